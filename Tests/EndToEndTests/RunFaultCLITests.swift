import Foundation
import XCTest

/// Faults told to the run they happened in, through `thrum play` against `thrum sim` (issue 27,
/// item 4; docs/robustness.md). Truth from the simulator's trace.
final class RunFaultCLITests: XCTestCase {
    /// Through ser2net, which reads what the device writes while no host is connected and hands
    /// it to the next client, a normal play used to leave the device's watchdog FAULT 5 for the
    /// next play to read first (and fail on). A normal end now releases the session (RELEASE,
    /// PROTOCOL.md §3.8), so the device stops without a fault: the next play has neither `faults`
    /// nor `earlier_faults`, and exits 0 when every event played on time. (A fault that does come
    /// before a run is filed under `earlier_faults`: RunFaultTests, in virtual time.)
    func testAfterANormalPlayTheNextPlayThroughSer2NetInheritsNoFault() throws {
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let server = try Ser2NetProcess(accepter: "tcp(nodelay)", device: simulator.ptyPath)
        defer { server.stop() }
        let url = "tcp://127.0.0.1:\(server.port)"
        let metronome = TestPaths.example("metronome.ahap").path
        let first = try ThrumProcess.run(["play", "--port", url, "--json", "--no-plot", metronome])
        XCTAssertEqual(first.status, 0, first.standardError)
        // Long past the watchdog's second: a device that was not released would have faulted.
        Thread.sleep(forTimeInterval: 3)
        let second = try ThrumProcess.run(["play", "--port", url, "--json", "--no-plot", metronome])
        let object = try XCTUnwrap(try CLITestSupport.json(second) as? [String: Any])
        let earlier = try XCTUnwrap(object["earlier_faults"] as? [[String: Any]])
        let faults = try XCTUnwrap(object["faults"] as? [[String: Any]])
        XCTAssertEqual(earlier.count, 0, "no fault left by the first play: \(earlier)")
        XCTAssertEqual(faults.count, 0, "\(faults)")
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 8)
        if events.allSatisfy({ $0["status"] as? String == "on_time" }) {
            XCTAssertEqual(second.status, 0, second.standardError)
        }
        XCTAssertFalse(second.standardError.contains("before this run"), second.standardError)
    }

    /// The device gone mid-play (`thrum sim --fault disconnect@2s`: the pty hangs up, as an
    /// unplugged board, a killed ser2net or one that let another client in): the report of what
    /// played comes with the error (it was the error alone, the events that played lost with it),
    /// in JSON with the error object's keys. Truth: the simulator's trace.
    func testADisconnectMidPlayReportsWhatPlayedWithTheError() throws {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-disconnect-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: trace) }
        let simulator = try SimulatorProcess(arguments: ["--fault", "disconnect@2s", "--trace", trace.path])
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertEqual(result.standardError, "thrum: the device disconnected\n")
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        XCTAssertEqual((object["error"] as? [String: Any])?["message"] as? String, "the device disconnected")
        XCTAssertEqual(object["exit_code"] as? Int, 1)
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 8, "every event listed")
        let onTime = events.filter { $0["status"] as? String == "on_time" }.count
        // `sim` exits at the hang-up; its trace is whole once it has.
        let deadline = Date().addingTimeInterval(10)
        while simulator.process.isRunning && Date() < deadline { usleep(20_000) }
        let driven = SimulatorTrace.driveStarts(trace).count
        XCTAssertGreaterThan(onTime, 0, "the beats before the hang-up: \(events.map { $0["status"] ?? "?" })")
        XCTAssertLessThan(onTime, 8, "the disconnect cut the run")
        XCTAssertLessThanOrEqual(onTime, driven, "no beat on time that the chip did not drive")
    }

    /// `thrum sim --fault reset@2.5s` resets the device during the metronome (3.5 s): exit 1, a
    /// `device_reset` fault, every event listed, on time only where the chip drove it.
    func testADeviceResetDuringPlayIsAFaultAndEveryEventIsAccountedFor() throws {
        let trace = try CLITestSupport.scratchDirectory(for: self).appendingPathComponent("trace.csv")
        let simulator = try SimulatorProcess(arguments: ["--fault", "reset@2.5s", "--trace", trace.path])
        defer { simulator.stop() }
        let result = try ThrumProcess.run(
            ["play", "--port", simulator.ptyPath, "--json", "--no-calibrate", TestPaths.example("metronome.ahap").path])
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("the device reset during the run"), result.standardError)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        let faults = try XCTUnwrap(object["faults"] as? [[String: Any]])
        XCTAssertEqual(faults.compactMap { $0["kind"] as? String }.filter { $0 == "device_reset" }.count, 1, "\(faults)")
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.compactMap { $0["index"] as? Int }.sorted(), Array(0..<8), "every event listed once")
        let start = try XCTUnwrap((object["start_host_monotonic_ns"] as? NSNumber)?.int64Value)
        let drives = SimulatorTrace.driveStarts(trace)
        var lost = 0
        for event in events {
            let status = try XCTUnwrap(event["status"] as? String)
            let requested = try XCTUnwrap(event["requested_s"] as? Double)
            let intendedNs = Double(start) + requested * 1e9
            // A transient's drive starts ahead of its requested (felt) time by its pre-shift
            // (~12 ms for the default LRA); the metronome's events are 0.5 s apart.
            let drove = drives.contains { Double($0) > intendedNs - 25e6 && Double($0) < intendedNs + 5e6 }
            if status == "on_time" { XCTAssertTrue(drove, "event at \(requested) s on_time but the chip never drove it") }
            if !drove { XCTAssertNotEqual(status, "on_time", "event at \(requested) s") }
            if status == "lost_in_reset" { lost += 1 }
        }
        XCTAssertGreaterThan(lost, 0, "the events after the reset are lost with it: \(events.map { $0["status"] ?? "" })")
    }
}
