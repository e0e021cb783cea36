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
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", file.path])
        XCTAssertEqual(result.status, 0, result.standardError)
        let report = try decodeReport(result.standardOutput)
        XCTAssertGreaterThan(report.events.count, 1)
        try assertEveryOnsetClose(report)
        XCTAssertEqual(report.device["driver"] as? String, "DRV2605L")
        XCTAssertGreaterThan(report.bytesOnWire, 0)
    }

    func testMetronomeExampleReportsEveryOnset() throws {
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(result.status, 0, result.standardError)
        let report = try decodeReport(result.standardOutput)
        XCTAssertEqual(report.events.count, 8)
        try assertEveryOnsetClose(report)
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
    }

    func decodeReport(_ text: String) throws -> Report {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let events = try XCTUnwrap(object?["events"] as? [[String: Any]], "no events array in \(text)")
        let device = try XCTUnwrap(object?["device"] as? [String: Any], "no device object in \(text)")
        let bytes = try XCTUnwrap(object?["bytes_on_wire"] as? Int, "no bytes_on_wire in \(text)")
        return Report(events: events, device: device, bytesOnWire: bytes)
    }

    func assertEveryOnsetClose(_ report: Report, file: StaticString = #filePath, line: UInt = #line) throws {
        for event in report.events {
            let requested = try XCTUnwrap(event["requested_s"] as? Double)
            let onset = try XCTUnwrap(event["onset_s"] as? Double, "event at \(requested) s has no onset: \(event)")
            XCTAssertEqual(onset, requested, accuracy: tolerance, "event at \(requested) s", file: file, line: line)
        }
    }
}
