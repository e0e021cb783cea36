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
            let truth = Double(bursts[1][k] - bursts[0][k]) / 1e3
            // Over a real pty the truth's own timestamps carry the simulator's scheduling (≈ 100 µs).
            XCTAssertLessThanOrEqual(abs(reported - truth), bound + 200, "onset \(k): reported \(reported) µs, true \(truth) µs, ± \(bound)")
        }
    }
}
