import Foundation
import XCTest

/// `thrum play FILE --port A --port B` against two `thrum sim`s whose crystals are 100 ppm off in
/// opposite directions: both play on one host timeline, and the reported skew of every onset
/// holds the true skew between the two chips' first drive (their traces, on the host's clock).
final class MultiDevicePlayTests: XCTestCase {
    func testTwoDevicesPlayTogetherAndTheReportedSkewHoldsTheChipsTruth() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-multi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let traces = [directory.appendingPathComponent("a.csv"), directory.appendingPathComponent("b.csv")]
        let sims = try [
            SimulatorProcess(arguments: ["--drift-ppm", "100", "--trace", traces[0].path]),
            SimulatorProcess(arguments: ["--drift-ppm", "-100", "--trace", traces[1].path]),
        ]
        defer { sims.forEach { $0.stop() } }
        let result = try ThrumProcess.run(
            ["play", TestPaths.example("metronome.ahap").path, "--port", sims[0].ptyPath, "--port", sims[1].ptyPath, "--json"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let devices = try XCTUnwrap(object["devices"] as? [[String: Any]])
        XCTAssertEqual(devices.count, 2)
        for device in devices {
            let events = try XCTUnwrap(device["events"] as? [[String: Any]])
            XCTAssertEqual(events.count, 8)
            for e in events { XCTAssertEqual(e["status"] as? String, "on_time") }
        }
        XCTAssertNotNil(object["skew_p99_us"] as? Double)
        let skews = try XCTUnwrap(object["skews"] as? [[String: Any]])
        XCTAssertEqual(skews.count, 8)

        // The chips' truth: each burst's first non-zero drive, on the host's monotonic clock.
        sims.forEach { $0.stop() }
        let bursts = traces.map { url -> [Int64] in
            var starts: [Int64] = []
            var lastNonZero: Int64?
            for w in SimulatorTrace.rtpWrites(url) where w.value > 0 {
                if lastNonZero.map({ w.ns - $0 > 100_000_000 }) ?? true { starts.append(w.ns) }
                lastNonZero = w.ns
            }
            return starts
        }
        XCTAssertEqual(bursts[0].count, 8)
        XCTAssertEqual(bursts[1].count, 8)
        for (k, s) in skews.enumerated() where k < min(bursts[0].count, bursts[1].count) {
            let reported = try XCTUnwrap(s["skew_us"] as? Double), bound = try XCTUnwrap(s["bound_us"] as? Double)
            XCTAssertEqual(s["on_frame_grid"] as? Bool, false, "a pseudo-terminal carries no USB frames")
            let truth = Double(bursts[1][k] - bursts[0][k]) / 1e3
            // Over a real pty the truth's own timestamps carry the simulator's scheduling (≈ 100 µs).
            XCTAssertLessThanOrEqual(abs(reported - truth), bound + 200, "onset \(k): reported \(reported) µs, true \(truth) µs, ± \(bound)")
        }
    }

    func testARouteManifestSendsEachEventToItsDevices() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-route-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let traces = [directory.appendingPathComponent("a.csv"), directory.appendingPathComponent("b.csv")]
        let sims = try traces.map { try SimulatorProcess(arguments: ["--trace", $0.path]) }
        defer { sims.forEach { $0.stop() } }
        // The heartbeat's four beats: 0 and 2 on the left, 1, 2 and 3 on the right (2 on both).
        let route = directory.appendingPathComponent("route.json")
        try #"{"devices": [{"events": [0, 2]}, {"events": [1, 2, 3]}]}"#.write(to: route, atomically: true, encoding: .utf8)
        let ports = sims.flatMap { ["--port", $0.ptyPath] }
        let result = try ThrumProcess.run(
            ["play", TestPaths.example("heartbeat.ahap").path] + ports + ["--route", route.path, "--json", "--no-calibrate"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let devices = try XCTUnwrap(object["devices"] as? [[String: Any]])
        let indices = try devices.map { try XCTUnwrap($0["events"] as? [[String: Any]]).compactMap { $0["index"] as? Int } }
        XCTAssertEqual(indices, [[0, 2], [1, 2, 3]])
        let skews = try XCTUnwrap(object["skews"] as? [[String: Any]])
        XCTAssertEqual(skews.compactMap { $0["index"] as? Int }, [2], "only the event both devices play has a skew")
        // At the chips: two bursts on the left, three on the right.
        sims.forEach { $0.stop() }
        let bursts = traces.map { url -> Int in
            var count = 0
            var last: Int64?
            for w in SimulatorTrace.rtpWrites(url) where w.value > 0 {
                if last.map({ w.ns - $0 > 50_000_000 }) ?? true { count += 1 }
                last = w.ns
            }
            return count
        }
        XCTAssertEqual(bursts, [2, 3])

        // A manifest that leaves an event out, or names one that is not there, is refused with its place.
        try #"{"devices": [{"events": [0]}, {"events": [1, 7]}]}"#.write(to: route, atomically: true, encoding: .utf8)
        let bad = try ThrumProcess.run(["play", TestPaths.example("heartbeat.ahap").path] + ports + ["--route", route.path])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.standardError.contains("route.json:1:"), bad.standardError)
        XCTAssertTrue(bad.standardError.contains("expected an event index from 0 to 3 (at devices[1].events[1])"), bad.standardError)
    }

    /// SIGTERM while two devices play the metronome (eight beats over 3.5 s): every device is
    /// stopped, the beats due after the signal are `stopped` on each (they played on to the end:
    /// the path ignored the signal), said per device, exit 143. The chips' truth: no stopped beat
    /// drove either chip.
    func testASignalStopsEveryDeviceAndTheBeatsAfterItAreStopped() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-multistop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let traces = [directory.appendingPathComponent("a.csv"), directory.appendingPathComponent("b.csv")]
        let sims = try traces.map { try SimulatorProcess(arguments: ["--trace", $0.path]) }
        defer { sims.forEach { $0.stop() } }
        let play = Process()
        play.executableURL = try TestPaths.thrumBinary
        play.arguments = ["play", TestPaths.example("metronome.ahap").path, "--no-calibrate", "--json"] + sims.flatMap { ["--port", $0.ptyPath] }
        let output = Pipe(), errors = Pipe()
        play.standardOutput = output
        play.standardError = errors
        try play.run()
        // Once the first beat drove a chip, signal.
        let drivingBy = Date().addingTimeInterval(10)
        while Date() < drivingBy, !SimulatorTrace.rtpWrites(traces[0]).contains(where: { $0.value > 0 }) { usleep(20_000) }
        usleep(200_000)
        kill(play.processIdentifier, SIGTERM)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        play.waitUntilExit()
        XCTAssertEqual(play.terminationStatus, 143, err)
        XCTAssertTrue(err.contains("interrupted (signal 15)"), err)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: out) as? [String: Any], err)
        let devices = try XCTUnwrap(object["devices"] as? [[String: Any]])
        sims.forEach { $0.stop() }
        for (k, device) in devices.enumerated() {
            XCTAssertEqual(device["interrupted_by_signal"] as? Int, 15)
            let statuses = try XCTUnwrap(device["events"] as? [[String: Any]]).compactMap { $0["status"] as? String }
            XCTAssertEqual(statuses.count, 8)
            let stopped = statuses.filter { $0 == "stopped" }.count
            XCTAssertGreaterThan(stopped, 0, "device \(k): \(statuses)")
            XCTAssertEqual(Array(statuses.suffix(stopped)), Array(repeating: "stopped", count: stopped), "device \(k): the last ones")
            XCTAssertTrue(err.contains("device \(k): \(stopped) events from"), err)
            // The chip's bursts: the beats that began before the signal, none of the stopped ones.
            var bursts = 0
            var last: Int64?
            for w in SimulatorTrace.rtpWrites(traces[k]) where w.value > 0 {
                if last.map({ w.ns - $0 > 100_000_000 }) ?? true { bursts += 1 }
                last = w.ns
            }
            XCTAssertGreaterThanOrEqual(bursts, statuses.filter { $0 == "on_time" }.count, "device \(k)")
            XCTAssertLessThanOrEqual(bursts, 8 - stopped, "device \(k): a stopped beat drove the chip")
        }
    }
}
