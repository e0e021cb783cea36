import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `thrum monitor` in a terminal multiplexer: its screen is read back with `tmux capture-pane`
/// while `thrum play` plays through its bridge on `thrum sim`.
final class MonitorTests: XCTestCase {
    func testScreenShowsTheLinkClockQueueDriverAndOnsets() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            return XCTFail("tmux is not installed (Debian package tmux)")
        }
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let bridge = dir.appendingPathComponent("bridge").path
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let session = "thrum-monitor-\(UUID().uuidString.prefix(8))"
        let binary = try TestPaths.thrumBinary.path
        // Its own tmux server (-L), so the test never touches a user's sessions.
        func tmux(_ arguments: [String]) throws -> String {
            try ProcessRunner.run("/usr/bin/tmux", ["-L", session] + arguments)
        }
        // The server new-session starts inherits the client's standard output: not a pipe, or
        // reading it to its end would wait for the server.
        try ProcessRunner.start(
            "/usr/bin/tmux",
            [
                "-L", session,
                "new-session", "-d", "-s", session, "-x", "120", "-y", "32",
                "\(binary) monitor --port \(simulator.ptyPath) --link \(bridge)",
            ])
        defer { _ = try? tmux(["kill-server"]) }
        func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", session]) }
        try waitFor(timeout: 10) {
            try screen().contains("thrum monitor — ") && FileManager.default.fileExists(atPath: bridge)
        }

        let play = try ThrumProcess.run(["play", "--port", bridge, "--json", TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(play.status, 0, play.standardError)
        let report = try XCTUnwrap(try CLITestSupport.json(play) as? [String: Any])
        XCTAssertEqual(
            (report["events"] as? [[String: Any]])?.compactMap { $0["status"] as? String },
            Array(repeating: "on_time", count: 8))

        // Wait for a fresh CPU window with the device idle, then read the screen.
        Thread.sleep(forTimeInterval: 2.5)
        let text = try screen()
        let lines = text.split(separator: "\n").map(String.init)
        func line(_ prefix: String) throws -> String {
            try XCTUnwrap(lines.first { $0.hasPrefix(prefix) }, "no '\(prefix)' line in\n\(text)")
        }
        XCTAssertTrue(try line("device   ").contains("DRV2605L, firmware 0.1.0"), text)
        let link = try line("link     host→device ")
        let frames = try XCTUnwrap(Int(link.split(separator: " ")[2]), link)
        XCTAssertGreaterThan(frames, 8, link)
        XCTAssertTrue(try line("         device→host ").contains("CRC errors 0 host, 0 device"), text)
        XCTAssertTrue(try line("clock    offset ").contains(" samples, round trip "), text)
        XCTAssertTrue(try line("queue    ").hasPrefix("queue    0 of 32 slots in use"), text)
        XCTAssertTrue(try line("driver   ").contains("calibration passed"), text)
        // The player ended normally 2.5 s ago (RELEASE, nothing queued): the device's watchdog
        // has nothing to stop and reports nothing (it used to say FAULT 5 here, a fault of no run).
        XCTAssertEqual(try line("faults   "), "faults   none")
        let onsets = lines.filter { $0.hasPrefix("  event ") }
        XCTAssertEqual(onsets.count, 8, text)
        XCTAssertTrue(onsets.allSatisfy { $0.hasSuffix("on_time") }, text)

        // ≥ 10 Hz, ≤ 2 % of a core (the monitor's own getrusage over the last 2 s).
        let header = try line("thrum monitor — ")
        let hz = try XCTUnwrap(
            Double(try XCTUnwrap(header.components(separatedBy: "refresh ").last?.split(separator: " ").first)), header)
        XCTAssertGreaterThanOrEqual(hz, 9.5, header)
        let status = try line("refreshes ")
        let cpu = try XCTUnwrap(
            Double(try XCTUnwrap(status.components(separatedBy: "cpu ").last?.split(separator: " ").first)), status)
        XCTAssertLessThanOrEqual(cpu, 2.0, status)

        // q quits and takes the link away.
        _ = try tmux(["send-keys", "-t", session, "q"])
        try waitFor(timeout: 5) { !FileManager.default.fileExists(atPath: bridge) }
    }

    func waitFor(timeout: TimeInterval, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("timed out") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

/// Runs shell command lines with the C library (`system`, `popen`): tmux's server outlives the
/// client that starts it and keeps what it inherited, which Foundation's `Process` then waits on.
enum ProcessRunner {
    static func quoted(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// Runs a program to completion, its output discarded.
    static func start(_ executable: String, _ arguments: [String]) throws {
        let status = system(quoted([executable] + arguments) + " </dev/null >/dev/null 2>&1")
        guard status == 0 else {
            throw Ser2NetError(message: "\(executable) \(arguments.joined(separator: " ")) exited with \(status)")
        }
    }

    /// Runs a program to completion and returns its standard output.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        guard let pipe = popen(quoted([executable] + arguments) + " </dev/null 2>/dev/null", "r") else {
            throw Ser2NetError(message: "popen failed for \(executable)")
        }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        pclose(pipe)
        return String(decoding: data, as: UTF8.self)
    }
}
