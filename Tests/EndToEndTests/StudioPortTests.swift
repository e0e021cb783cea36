import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `thrum studio --port A --port B` on two `thrum sim` pseudo-terminals whose crystals are 100 ppm
/// off in opposite directions: the studio holds the ports (another `thrum play` on one is refused,
/// naming the studio's pid), a play asked through its API drives both simulated chips (their
/// register traces, the independent truth, show each beat) on one host timeline, and the skew it
/// reports for every beat holds the true skew between the two chips' drives; the second beat saved
/// 20 ms later is driven 20 ms later on the next play (with the virtual device too, on its own
/// timeline); a looped play loops on both until stopped; once the studio stops the port is free
/// again. Real time (ptys and processes).
final class StudioPortTests: XCTestCase {
    func testStudioHoldsThePortAndPlaysOnIt() throws {
        let scratch = try CLITestSupport.scratchDirectory(for: self)
        let traces = [scratch.appendingPathComponent("trace.csv"), scratch.appendingPathComponent("trace-b.csv")]
        let sims = try [
            SimulatorProcess(arguments: ["--drift-ppm", "100", "--trace", traces[0].path]),
            SimulatorProcess(arguments: ["--drift-ppm", "-100", "--trace", traces[1].path]),
        ]
        defer { sims.forEach { $0.stop() } }
        let sim = sims[0]
        let served = scratch.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.example("heartbeat.ahap"), to: served.appendingPathComponent("heartbeat.ahap"))

        let studio = Process()
        studio.executableURL = try TestPaths.thrumBinary
        studio.arguments = ["studio", served.path, "--port", sim.ptyPath, "--port", sims[1].ptyPath]
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

        // Play (both ports by default, on one timeline); each chip drives four beats, the second 160
        // ms after the first. Then the second beat is moved 20 ms later and saved, and the next play
        // (the virtual device too) drives it 180 ms after the first.
        let ports = sims.map(\.ptyPath)
        let first = try play(url, token: token, traces: traces, count: 1)
        XCTAssertEqual(first.starts[0].count, 4, "four beats driven on the simulated chip")
        if first.starts[0].count == 4 { XCTAssertEqual(Double(first.starts[0][1] - first.starts[0][0]) / 1e6, 160, accuracy: 2) }
        try checkSkews(first, ports: ports, timelines: [ports])
        let (saved, _) = try Self.request(
            url, "/api/save", token: token, body: #"{"file": "heartbeat.ahap", "changes": [{"event": 1, "time": 0.18}]}"#)
        XCTAssertEqual(saved, 200)
        let devices = try String(decoding: JSONSerialization.data(withJSONObject: ["virtual"] + ports), as: UTF8.self)
        let second = try play(url, token: token, traces: traces, count: 2, devices: devices)
        XCTAssertEqual(second.starts[0].count, 4, "four beats on the next play")
        if second.starts[0].count == 4 {
            XCTAssertEqual(Double(second.starts[0][1] - second.starts[0][0]) / 1e6, 180, accuracy: 2, "the saved change is felt")
        }
        try checkSkews(second, ports: ports, timelines: [ports, ["virtual"]])
        XCTAssertEqual(
            second.end["timeline_note"] as? String, "\(ports[0]) and \(ports[1]) on one timeline; the virtual device on its own (it runs in virtual time)")

        // Looped on both ports: a second pass plays on both chips, with its skews, until stopped;
        // after the stop neither chip drives again.
        let looped = Self.monotonicNanoseconds()
        XCTAssertEqual(try Self.request(url, "/api/play", token: token, body: #"{"file": "heartbeat.ahap", "loop": true}"#).0, 200)
        // Stopped once each chip drove the second pass's first two beats (six in all).
        let driven = Date().addingTimeInterval(20)
        while Date() < driven, traces.contains(where: { trace in SimulatorTrace.driveStarts(trace).filter { $0 > looped }.count < 6 }) {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let stopAsked = Self.monotonicNanoseconds()
        XCTAssertEqual(try Self.request(url, "/api/stop", token: token, body: "{}").0, 200)
        var stoppedEnd: [String: Any] = [:]
        for _ in 0..<100 {
            let object = try JSONSerialization.jsonObject(with: try Self.request(url, "/api/status", token: token).1) as? [String: Any]
            if object?["playing"] as? Bool == false, let end = object?["last_play"] as? [String: Any], end["play"] as? Int == 3 {
                stoppedEnd = end
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertEqual(stoppedEnd["stopped"] as? Bool, true, "the loop stopped: \(stoppedEnd["summary"] ?? "")")
        let passes = ((stoppedEnd["skew"] as? [String: Any])?["skews"] as? [[String: Any]] ?? []).compactMap { $0["pass"] as? Int }
        XCTAssertTrue(passes.contains(1), "skews of the loop's second pass (\(passes))")
        Thread.sleep(forTimeInterval: 0.3)
        for trace in traces {
            let writes = SimulatorTrace.rtpWrites(trace).filter { $0.ns > looped && $0.value != 0 }
            let beats = SimulatorTrace.driveStarts(trace).filter { $0 > looped }.count
            XCTAssertGreaterThanOrEqual(beats, 6, "a second pass driven on \(trace.lastPathComponent)")
            // The stop reaches the device within the group's 10 ms turn and a STOP's way there (a
            // loaded machine: 250 ms allowed); the last drive written on the chip, after the stop:
            let after = writes.last.map { Double($0.ns - stopAsked) / 1e6 } ?? 0
            print("studio loop stop: last drive on \(trace.lastPathComponent) \(String(format: "%.1f", after)) ms after the stop was asked")
            XCTAssertLessThan(after, 250, "no drive after the stop on \(trace.lastPathComponent)")
        }

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

    /// Asks the studio to play the heartbeat (on `devices`, a JSON list, or its default ports),
    /// waits for its `count`-th play to end, and returns when each beat began on each simulated
    /// chip (ns, monotonic: the starts of the bursts of non-zero RTP_INPUT writes after the
    /// request) and the play's end message (`last_play` of `/api/status`).
    private func play(
        _ url: URL, token: String, traces: [URL], count: Int, devices: String? = nil
    ) throws -> (starts: [[Int64]], end: [String: Any]) {
        let asked = Self.monotonicNanoseconds()
        let (status, _) = try Self.request(
            url, "/api/play", token: token, body: #"{"file": "heartbeat.ahap""# + (devices.map { #", "devices": \#($0)"# } ?? "") + "}")
        XCTAssertEqual(status, 200)
        var end: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let (_, body) = try Self.request(url, "/api/status", token: token)
            let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            if object?["plays"] as? Int == count, object?["playing"] as? Bool == false {
                end = object?["last_play"] as? [String: Any] ?? [:]
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertEqual(end["play"] as? Int, count, "play \(count) ended")
        let starts = traces.map { trace -> [Int64] in
            var starts: [Int64] = []
            var last: Int64 = 0
            for write in SimulatorTrace.rtpWrites(trace) where write.ns > asked && write.value != 0 {
                if starts.isEmpty || write.ns - last >= 60_000_000 { starts.append(write.ns) }
                last = write.ns
            }
            return starts
        }
        return (starts, end)
    }

    /// The play's timelines are `timelines`, and its skew of each beat of the second port against
    /// the first holds the true skew: the difference of the two chips' drive starts.
    private func checkSkews(_ play: (starts: [[Int64]], end: [String: Any]), ports: [String], timelines: [[String]]) throws {
        XCTAssertEqual(play.end["timelines"] as? [[String]], timelines)
        XCTAssertEqual(play.end["reported"] as? Int, 4 * timelines.joined().count, "\(play.end["summary"] ?? "")")
        let report = try XCTUnwrap(play.end["skew"] as? [String: Any], "the play's skews")
        XCTAssertEqual(report["reference"] as? String, ports[0])
        XCTAssertTrue(
            (play.end["summary"] as? String ?? "").contains("skew against \(ports[0]): p99 "), "\(play.end["summary"] ?? "")")
        let byDevice = try XCTUnwrap(report["by_device"] as? [[String: Any]])
        XCTAssertEqual(byDevice.compactMap { $0["device"] as? String }, [ports[1]])
        XCTAssertEqual(byDevice.first?["skew_p99_us"] as? Double, report["skew_p99_us"] as? Double, "two ports: the one device's p99 is the play's")
        let skews = try XCTUnwrap(report["skews"] as? [[String: Any]])
        XCTAssertEqual(skews.compactMap { $0["index"] as? Int }, [0, 1, 2, 3])
        XCTAssertEqual(play.starts[1].count, 4, "four beats driven on the second chip")
        guard play.starts.allSatisfy({ $0.count == 4 }), skews.count == 4 else { return }
        for s in skews {
            let k = try XCTUnwrap(s["index"] as? Int)
            XCTAssertEqual(s["device"] as? String, ports[1])
            let reported = try XCTUnwrap(s["skew_us"] as? Double), bound = try XCTUnwrap(s["bound_us"] as? Double)
            let truth = Double(play.starts[1][k] - play.starts[0][k]) / 1e3
            // Over a real pty the truth's own timestamps carry the simulator's scheduling (≈ 100 µs),
            // as in MultiDevicePlayTests.
            XCTAssertLessThanOrEqual(abs(reported - truth), bound + 200, "beat \(k): reported \(reported) µs, true \(truth) µs, ± \(bound)")
            print("studio skew, beat \(k): reported \(String(format: "%+.1f", reported)) µs ± \(String(format: "%.1f", bound)), true \(String(format: "%+.1f", truth)) µs")
        }
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
