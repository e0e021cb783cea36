import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Remote rigs through a real ser2net (Debian's, installed by tools/ensure-deps.sh) started on
/// the loopback interface in front of `thrum sim`: `--port tcp://…` (ser2net's raw `tcp`
/// accepter) and `--port rfc2217://…` (its `telnet(rfc2217)` accepter). Each playback is held
/// against the simulated chip's own trace, as over a local pty (PlayOverPseudoTerminalTests), and
/// its figures are printed beside a local pty's from the same run.
final class Ser2NetTests: XCTestCase {
    func testRawTCPThroughSer2Net() throws {
        try checkThroughSer2Net(accepter: "tcp(nodelay)", scheme: "tcp")
    }

    func testRFC2217ThroughSer2Net() throws {
        try checkThroughSer2Net(accepter: "telnet(rfc2217),tcp(nodelay)", scheme: "rfc2217") { port in
            // The Telnet negotiation and the COM-PORT settings do not disturb a calibration either.
            let calibrate = try ThrumProcess.run(["calibrate", "--port", port, "--json"])
            XCTAssertEqual(calibrate.status, 0, calibrate.standardError)
            let json = try XCTUnwrap(try CLITestSupport.json(calibrate) as? [String: Any])
            XCTAssertEqual(json["passed"] as? Bool, true)
        }
    }

    /// Plays the metronome (8 events) over the pty and then through ser2net on the same
    /// simulator, checks every onset against the chip, and prints both sets of figures.
    func checkThroughSer2Net(accepter: String, scheme: String, extra: (String) throws -> Void = { _ in }) throws {
        let trace = try CLITestSupport.scratchDirectory(for: self).appendingPathComponent("trace.csv")
        let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { simulator.stop() }
        let local = try playAndCheck(port: simulator.ptyPath, trace: trace)
        let server = try Ser2NetProcess(accepter: accepter, device: simulator.ptyPath)
        defer { server.stop() }
        let url = "\(scheme)://127.0.0.1:\(server.port)"
        let remote = try playAndCheck(port: url, trace: trace)
        try extra(url)
        print(
            String(
                format: "ser2net %@: |true error| max %.0f µs, mean bound %.0f µs; local pty: %.0f µs, %.0f µs",
                scheme, remote.maxTrueError * 1e6, remote.meanBound * 1e6, local.maxTrueError * 1e6,
                local.meanBound * 1e6))
    }

    /// Plays the metronome over `port` and holds each onset against the chip (``OnsetTruth``).
    func playAndCheck(port: String, trace: URL, file: StaticString = #filePath, line: UInt = #line) throws
        -> OnsetTruth.Figures
    {
        let result = try ThrumProcess.run(["play", "--port", port, "--json", TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(result.status, 0, result.standardError, file: file, line: line)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any], file: file, line: line)
        return try OnsetTruth.check(object, trace: trace, events: 8, label: "over \(port)", file: file, line: line)
    }
}

/// A `ser2net` serving one pseudo-terminal on a free loopback port, without a config file
/// (`-Y` lines), configured as docs/cli.md recommends for a rig: `chardelay: false` so it
/// forwards bytes as they come instead of waiting for more (its default waits up to ≈ 20
/// character times, 1.7 ms at 115200 baud), and `tcp(nodelay)` so its small writes are not held
/// back by Nagle's algorithm (without it the true error was 4–6× a local pty's; with it, alike).
final class Ser2NetProcess {
    let process = Process()
    let port: Int

    init(accepter: String, device: String) throws {
        guard
            let executable = ["/usr/sbin/ser2net", "/usr/bin/ser2net", "/usr/local/sbin/ser2net"]
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw Ser2NetError(message: "ser2net is not installed: run tools/ensure-deps.sh (Debian package ser2net)")
        }
        port = try Self.freePort()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "-n", "-u",
            "-Y", "connection: &thrum",
            "-Y", "  accepter: \(accepter),127.0.0.1,\(port)",
            "-Y", "  connector: serialdev,\(device),115200n81,local",
            "-Y", "  options:",
            "-Y", "    kickolduser: true",
            "-Y", "    chardelay: false",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Listening once a connection is accepted (the probe is closed at once; kickolduser lets
        // the real client in after it).
        let deadline = Date().addingTimeInterval(5)
        while !Self.accepts(port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw Ser2NetError(message: "ser2net did not listen on 127.0.0.1:\(port)")
            }
            usleep(20_000)
        }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    /// A port the kernel just had free on 127.0.0.1.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Ser2NetError(message: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Ser2NetError(message: "bind failed") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}

struct Ser2NetError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
