import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C and SIGTERM during `thrum play --port`: the actuator goes silent at once (STOP), the
/// report of what played is printed, and the exit status says which signal ended it. The chip's
/// truth comes from `thrum sim --trace`, on the same monotonic clock as this test.
final class PlaySignalTests: XCTestCase {
    func testSigintAndSigtermSilenceTheActuatorAtOnce() throws {
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGQUIT, Int32(131))] {
            let trace = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-signal-\(UUID().uuidString).csv")
            defer { try? FileManager.default.removeItem(at: trace) }
            let pattern = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-long-\(UUID().uuidString).ahap")
            defer { try? FileManager.default.removeItem(at: pattern) }
            // One 20 s continuous event at full intensity: still driving when the signal comes.
            try Data(
                #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":20,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#
                    .utf8
            ).write(to: pattern)
            let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
            defer { simulator.stop() }
            let play = Process()
            play.executableURL = try TestPaths.thrumBinary
            play.arguments = ["play", "--port", simulator.ptyPath, "--no-calibrate", "--json", pattern.path]
            let output = Pipe(), errors = Pipe()
            play.standardOutput = output
            play.standardError = errors
            try play.run()
            // Wait until the chip drives, then signal.
            let drivingBy = Date().addingTimeInterval(10)
            while Date() < drivingBy, !(try driving(trace)) { usleep(20_000) }
            XCTAssertTrue(try driving(trace), "the chip never started driving")
            usleep(300_000)
            let sentAt = monotonicNanoseconds()
            kill(play.processIdentifier, signal)
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            play.waitUntilExit()
            XCTAssertEqual(play.terminationStatus, status, "signal \(signal): \(err)")
            XCTAssertTrue(err.contains("interrupted (signal \(signal))"), err)
            XCTAssertFalse(err.contains("crashed"), "no crash report: \(err)")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: out) as? [String: Any], "no JSON report")
            XCTAssertEqual(report["interrupted_by_signal"] as? Int, Int(signal))
            usleep(100_000)
            simulator.stop()
            // The chip's last RTP_INPUT write is 0, within 20 ms of the signal.
            let writes = try rtpWrites(trace)
            let last = try XCTUnwrap(writes.last)
            XCTAssertEqual(last.value, 0, "the actuator was left driving")
            let silenceAt = try XCTUnwrap(writes.first { $0.ns >= sentAt && $0.value == 0 }?.ns, "no 0 written after the signal")
            // Typically 2–6 ms here (the target is 20 ms); two real-time processes on a loaded
            // machine get some room so that the test checks the behaviour, not the scheduler.
            let latency = Double(silenceAt - sentAt) / 1e6
            print("signal \(signal) → drive 0 at the chip: \(latency) ms")
            XCTAssertLessThan(latency, 50, "ms from the signal to drive 0")
        }
    }

    /// Ctrl-C while `play --recalibrate` calibrates (the chip's MODE register in auto-calibration):
    /// the report comes as for any interrupt (exit 130, the JSON report with the signal), and
    /// the actuator is left silent.
    func testSigintDuringRecalibrationGivesTheReport() throws {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-recal-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: trace) }
        let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { simulator.stop() }
        let play = Process()
        play.executableURL = try TestPaths.thrumBinary
        play.arguments = ["play", "--port", simulator.ptyPath, "--recalibrate", "--json", TestPaths.example("heartbeat.ahap").path]
        let output = Pipe(), errors = Pipe()
        play.standardOutput = output
        play.standardError = errors
        try play.run()
        let calibratingBy = Date().addingTimeInterval(10)
        while Date() < calibratingBy, !calibrating(trace) { usleep(5_000) }
        XCTAssertTrue(calibrating(trace), "the chip never started calibrating")
        kill(play.processIdentifier, SIGINT)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        play.waitUntilExit()
        XCTAssertEqual(play.terminationReason, .exit, err)
        XCTAssertEqual(play.terminationStatus, 130, err)
        XCTAssertTrue(err.contains("interrupted (signal \(SIGINT))"), err)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: out) as? [String: Any], "no JSON report: \(err)")
        XCTAssertEqual(report["interrupted_by_signal"] as? Int, Int(SIGINT))
        usleep(100_000)
        simulator.stop()
        XCTAssertEqual(try rtpWrites(trace).last?.value ?? 0, 0, "the actuator was left driving")
    }

    /// Whether the chip's MODE register (0x01) has been set to auto-calibration (mode 7).
    private func calibrating(_ trace: URL) -> Bool {
        guard let text = try? String(contentsOf: trace, encoding: .utf8) else { return false }
        return text.split(separator: "\n").dropFirst().contains { row in
            let f = row.split(separator: ",")
            return f.count == 4 && f[2] == "1" && (Int(f[3]).map { $0 & 0x07 == 7 } ?? false)
        }
    }

    /// A link that stalls for 1.5 s mid-pattern: the device's watchdog stops the drive, and
    /// `thrum play` says so (text and JSON) and fails instead of reporting every event on time.
    func testAWatchdogStopDuringPlayIsReportedAndFails() throws {
        let pattern = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-long-\(UUID().uuidString).ahap")
        defer { try? FileManager.default.removeItem(at: pattern) }
        try Data(
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":4,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#
                .utf8
        ).write(to: pattern)
        let simulator = try SimulatorProcess(arguments: ["--fault", "stall=1500ms@1.5s"])
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--no-calibrate", "--json", pattern.path])
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("fault 5"), result.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let faults = try XCTUnwrap(report["faults"] as? [[String: Any]])
        XCTAssertTrue(faults.contains { $0["code"] as? Int == 5 }, "\(faults)")
    }

    private func rtpWrites(_ trace: URL) throws -> [(ns: Int64, value: Int)] { SimulatorTrace.rtpWrites(trace) }

    private func driving(_ trace: URL) throws -> Bool { try rtpWrites(trace).contains { $0.value > 0 } }

    private func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
