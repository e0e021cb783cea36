import Foundation
import ThrumLink
import XCTest

/// `thrum sim` in one process, `thrum play --port` in another, over a real pseudo-terminal.
final class PlayOverPseudoTerminalTests: XCTestCase {
    /// Every onset must land within this of its requested time. The device fires on its own
    /// clock and the simulator catches up step by step after a late wake-up, so this bounds the
    /// host's clock-sync error over a pty, not the machine's scheduling.
    let tolerance = 0.001

    func testHeartbeatExampleReportsEveryOnset() throws {
        let file = TestPaths.example("heartbeat.ahap")
        let trace = traceFile()
        let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", file.path])
        XCTAssertEqual(result.status, 0, result.standardError)
        simulator.stop()
        let report = try decodeReport(result.standardOutput)
        XCTAssertGreaterThan(report.events.count, 1)
        try assertEveryOnsetClose(report)
        try assertAgainstTheChip(report, trace: trace)
        XCTAssertEqual(report.device["driver"] as? String, "DRV2605L")
        XCTAssertGreaterThan(report.bytesOnWire, 0)
    }

    func testMetronomeExampleReportsEveryOnset() throws {
        let trace = traceFile()
        let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(result.status, 0, result.standardError)
        simulator.stop()
        let report = try decodeReport(result.standardOutput)
        XCTAssertEqual(report.events.count, 8)
        try assertEveryOnsetClose(report)
        try assertAgainstTheChip(report, trace: trace)
    }

    func testNonexistentPortIsAClearError() throws {
        let result = try ThrumProcess.run(["play", "--port", "/dev/thrum-does-not-exist", TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardError.contains("/dev/thrum-does-not-exist"), result.standardError)
        XCTAssertFalse(result.standardError.contains("Fatal error"), result.standardError)
    }

    func testPortWithNoDeviceBehindItSaysSo() throws {
        // A pty nobody serves: the port opens, but nothing answers IDENTIFY.
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let path = terminal.devicePath
        let result = try ThrumProcess.run(["play", "--port", path, TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardError.contains("no Thrum device answered"), result.standardError)
    }

    // MARK: Helpers

    struct Report {
        var events: [[String: Any]]
        var device: [String: Any]
        var bytesOnWire: Int
        /// Pattern time zero on CLOCK_MONOTONIC (the clock `thrum sim --trace` stamps with too).
        var startMonotonicNanoseconds: Int64
    }

    func traceFile() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-trace-\(UUID().uuidString).csv")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Each event against the simulated chip, read from `thrum sim --trace` (another process, the
    /// same monotonic clock): the chip's first drive start (a non-zero RTP_INPUT write after a zero one) after the event's intended
    /// drive instant lands within `tolerance` of it, lies inside the reported bound, and the
    /// intervals between events are the requested ones.
    func assertAgainstTheChip(_ report: Report, trace: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let drives = SimulatorTrace.driveStarts(trace)
        XCTAssertFalse(drives.isEmpty, "the trace has no drive", file: file, line: line)
        var previous: (truth: Double, intended: Double)?
        for event in report.events {
            let requested = try XCTUnwrap(event["requested_s"] as? Double, file: file, line: line)
            let onset = try XCTUnwrap(event["onset_s"] as? Double, file: file, line: line)
            let drive = try XCTUnwrap(event["drive_onset_s"] as? Double, file: file, line: line)
            let bound = try XCTUnwrap(event["onset_bound_s"] as? Double, "no bound: \(event)", file: file, line: line)
            let intended = requested - (onset - drive)  // the planned drive instant (pre-shift removed)
            let intendedNs = Double(report.startMonotonicNanoseconds) + intended * 1e9
            let truthNs = try XCTUnwrap(drives.first { Double($0) >= intendedNs - 3e6 }, "no drive near \(requested) s", file: file, line: line)
            let truth = (Double(truthNs) - Double(report.startMonotonicNanoseconds)) / 1e9
            XCTAssertEqual(truth, intended, accuracy: tolerance, "true drive vs intent at \(requested) s", file: file, line: line)
            // The bound holds the chip's truth over a real pty too: the served device stamps a frame
            // no later than it arrived and sends nothing before its true time (DeviceServer).
            XCTAssertLessThanOrEqual(abs(truth - drive), bound, "the reported bound misses the chip at \(requested) s", file: file, line: line)
            if let p = previous {
                XCTAssertEqual(truth - p.truth, intended - p.intended, accuracy: 100e-6, "interval before \(requested) s", file: file, line: line)
            }
            previous = (truth, intended)
        }
    }

    func decodeReport(_ text: String) throws -> Report {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let events = try XCTUnwrap(object?["events"] as? [[String: Any]], "no events array in \(text)")
        let device = try XCTUnwrap(object?["device"] as? [String: Any], "no device object in \(text)")
        let bytes = try XCTUnwrap(object?["bytes_on_wire"] as? Int, "no bytes_on_wire in \(text)")
        let start = try XCTUnwrap((object?["start_host_monotonic_ns"] as? NSNumber)?.int64Value, "no start_host_monotonic_ns")
        return Report(events: events, device: device, bytesOnWire: bytes, startMonotonicNanoseconds: start)
    }

    /// Every event was reported, on time.
    func assertEveryOnsetClose(_ report: Report, file: StaticString = #filePath, line: UInt = #line) throws {
        for event in report.events {
            let requested = try XCTUnwrap(event["requested_s"] as? Double)
            XCTAssertNotNil(event["onset_s"] as? Double, "event at \(requested) s has no onset: \(event)", file: file, line: line)
            XCTAssertEqual(event["status"] as? String, "on_time", file: file, line: line)
        }
    }
}
