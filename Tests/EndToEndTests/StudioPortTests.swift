import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `thrum studio --port` on a `thrum sim` pseudo-terminal: the studio holds the port (another
/// `thrum play` on it is refused, naming the studio's pid), a play asked through its API drives
/// the simulated chip (its register trace, the independent truth, shows each beat), the second
/// beat saved 20 ms later is driven 20 ms later on the next play, and once the studio stops the
/// port is free again. Real time (a pty and two processes).
final class StudioPortTests: XCTestCase {
    func testStudioHoldsThePortAndPlaysOnIt() throws {
        let scratch = try CLITestSupport.scratchDirectory(for: self)
        let trace = scratch.appendingPathComponent("trace.csv")
        let sim = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { sim.stop() }
        let served = scratch.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.example("heartbeat.ahap"), to: served.appendingPathComponent("heartbeat.ahap"))

        let studio = Process()
        studio.executableURL = try TestPaths.thrumBinary
        studio.arguments = ["studio", served.path, "--port", sim.ptyPath]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = scratch.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = scratch.path
        studio.environment = environment
        let output = Pipe()
        studio.standardOutput = output
        studio.standardError = FileHandle.nullDevice
        try studio.run()
        defer { if studio.isRunning { studio.terminate() } }
        let line = SimulatorProcess.firstLine(of: output)
        XCTAssertTrue(line.hasPrefix("url: http://127.0.0.1:"), line)
        let url = try XCTUnwrap(URL(string: String(line.dropFirst(5))))
        let token = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)

        let held = try ThrumProcess.run(["play", "examples/heartbeat.ahap", "--port", sim.ptyPath], environment: ["XDG_RUNTIME_DIR": scratch.path])
        XCTAssertEqual(held.status, 1)
        XCTAssertTrue(
            held.standardError.contains("\(sim.ptyPath) is held by thrum studio (pid \(studio.processIdentifier))"), held.standardError)

        // Play; the chip drives four beats, the second 160 ms after the first. Then the second beat
        // is moved 20 ms later and saved, and the next play drives it 180 ms after the first.
        let first = try play(url, token: token, trace: trace, count: 1)
        XCTAssertEqual(first.count, 4, "four beats driven on the simulated chip")
        if first.count == 4 { XCTAssertEqual(Double(first[1] - first[0]) / 1e6, 160, accuracy: 2) }
        let (saved, _) = try Self.request(
            url, "/api/save", token: token, body: #"{"file": "heartbeat.ahap", "changes": [{"event": 1, "time": 0.18}]}"#)
        XCTAssertEqual(saved, 200)
        let second = try play(url, token: token, trace: trace, count: 2)
        XCTAssertEqual(second.count, 4, "four beats on the next play")
        if second.count == 4 { XCTAssertEqual(Double(second[1] - second[0]) / 1e6, 180, accuracy: 2, "the saved change is felt") }

        studio.terminate()
        studio.waitUntilExit()
        XCTAssertEqual(studio.terminationStatus, 0)
        let free = try ThrumProcess.run(
            ["play", "examples/heartbeat.ahap", "--port", sim.ptyPath, "--no-plot"], environment: ["XDG_RUNTIME_DIR": scratch.path])
        // Free again: the play connects and reports (its timing on a loaded machine is not the
        // point here: a stall of the host under load is said, and exits 1).
        XCTAssertFalse(free.standardError.contains("held by"), free.standardError)
        XCTAssertTrue(free.standardOutput.contains("onset"), free.standardOutput + free.standardError)
    }

    /// Asks the studio to play the heartbeat, waits for its `count`-th play to end, and returns
    /// when each beat began on the simulated chip (ns, monotonic): the starts of the bursts of
    /// non-zero RTP_INPUT writes after the request.
    private func play(_ url: URL, token: String, trace: URL, count: Int) throws -> [Int64] {
        let asked = Self.monotonicNanoseconds()
        let (status, _) = try Self.request(url, "/api/play", token: token, body: #"{"file": "heartbeat.ahap"}"#)
        XCTAssertEqual(status, 200)
        var finished = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let (_, body) = try Self.request(url, "/api/status", token: token)
            let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            if object?["plays"] as? Int == count, object?["playing"] as? Bool == false {
                finished = true
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertTrue(finished, "play \(count) ended")
        var starts: [Int64] = []
        var last: Int64 = 0
        for write in SimulatorTrace.rtpWrites(trace) where write.ns > asked && write.value != 0 {
            if starts.isEmpty || write.ns - last >= 60_000_000 { starts.append(write.ns) }
            last = write.ns
        }
        return starts
    }

    static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// GET (or POST `body` as JSON) `path` on the studio with its token; the status and body.
    static func request(_ base: URL, _ path: String, token: String, body: String? = nil) throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.setValue(token, forHTTPHeaderField: "X-Thrum-Token")
        if let body {
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, Data) = (0, Data())
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data())
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 60)
        return result
    }
}
