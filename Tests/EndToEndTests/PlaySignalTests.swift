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
            // One 20 s continuous event at full intensity: still driving when the signal comes; a
            // transient at 15 s, which the signal stops before it plays.
            try Data(
                (#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":20,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}},"#
                    + #"{"Event":{"Time":15,"EventType":"HapticTransient","EventParameters":[]}}]}"#).utf8
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
            // The two processes' time waiting for a core (run-queue wait), sampled as it grows:
            // the part of the latency the machine's load adds, not the host's doing.
            let waits = RunQueueSampler(pids: [play.processIdentifier, simulator.process.processIdentifier])
            let sentAt = monotonicNanoseconds()
            kill(play.processIdentifier, signal)
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            play.waitUntilExit()
            let samples = waits.stop()
            XCTAssertEqual(play.terminationStatus, status, "signal \(signal): \(err)")
            XCTAssertTrue(err.contains("interrupted (signal \(signal))"), err)
            XCTAssertFalse(err.contains("crashed"), "no crash report: \(err)")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: out) as? [String: Any], "no JSON report")
            XCTAssertEqual(report["interrupted_by_signal"] as? Int, Int(signal))
            // The event under way keeps its status; the one due after the signal is `stopped`
            // (it was `not_reported`: "lost on the link, or the device never started it").
            let events = try XCTUnwrap(report["events"] as? [[String: Any]])
            XCTAssertEqual(events.map { $0["status"] as? String }, ["on_time", "stopped"], err)
            let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGQUIT: "SIGQUIT"][signal]!
            XCTAssertTrue(err.contains("1 event from 15.000 s on: stopped: the run was stopped (\(name)) before it"), err)
            XCTAssertFalse(err.contains("not_reported"), err)
            usleep(100_000)
            simulator.stop()
            // The chip's last RTP_INPUT write is 0, within 20 ms of the signal.
            let writes = try rtpWrites(trace)
            let last = try XCTUnwrap(writes.last)
            XCTAssertEqual(last.value, 0, "the actuator was left driving")
            let silenceAt = try XCTUnwrap(writes.first { $0.ns >= sentAt && $0.value == 0 }?.ns, "no 0 written after the signal")
            // Typically 2–6 ms here (the target is 20 ms). The interval holds two processes that
            // must each get a core: `play` to see the signal and send STOP, and the simulator to
            // read it (it stamps bytes when it reads them; a board's UART is never descheduled).
            // On a loaded machine (load 7: 53.9 ms once) that wait is the scheduler's, counted by
            // the kernel (/proc/PID/schedstat run-queue wait): the 50 ms allowance is for the
            // interval less the two processes' waits up to the last sample read before the
            // silence (an upper bound of what the load added: the waits may overlap). Time
            // `play` spent sleeping or computing before its STOP stays in; and whatever the
            // load, a STOP not sent at all leaves the chip driving its queue and then until the
            // device's 1 s watchdog: far beyond 250 ms.
            let latency = Double(silenceAt - sentAt) / 1e6
            let queued = min(RunQueueSampler.waited(samples, from: sentAt, to: silenceAt), latency)
            print(String(format: "signal %d → drive 0 at the chip: %.1f ms, up to %.1f ms of it waiting for a core", signal, latency, queued))
            XCTAssertLessThan(latency - queued, 50, "ms from the signal to drive 0, beside the time waiting for a core")
            XCTAssertLessThan(latency, 250, "ms from the signal to drive 0")
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
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-recal-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: junit) }
        play.arguments = [
            "play", "--port", simulator.ptyPath, "--recalibrate", "--json", "--junit", junit.path, TestPaths.example("heartbeat.ahap").path,
        ]
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
        // Nothing played: every event was stopped (they were `not_played`, "never sent to the device").
        let statuses = try XCTUnwrap(report["events"] as? [[String: Any]]).map { $0["status"] as? String }
        XCTAssertEqual(statuses, Array(repeating: "stopped", count: 4), err)
        // In the JUnit report they are skipped, not failed.
        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"failures="0" errors="0" skipped="4""#), xml)
        XCTAssertEqual(xml.components(separatedBy: "<skipped message=").count - 1, 4, xml)
        usleep(100_000)
        simulator.stop()
        XCTAssertEqual(try rtpWrites(trace).last?.value ?? 0, 0, "the actuator was left driving")
    }

    /// Ctrl-C during `calibrate`, `info` and `flash` (they ended the default way, killed with the
    /// device's session left to its watchdog and, for `flash`, nothing said about the library):
    /// each exits 130 with one `interrupted (signal 2)` line. `calibrate`'s calibration runs to its
    /// end and its report comes; `info` prints nothing; `flash` (on a 19 200 baud link, so that the
    /// signal comes mid-write) says the new library is incomplete and how to flash it again, and
    /// the device's EEPROM holds no library record. At the end the chip's last drive is 0 and the
    /// device reports no fault: `calibrate` and `info` released it (a session left to the
    /// watchdog is FAULT 5).
    func testCalibrateInfoAndFlashEndCleanlyOnSigint() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let trace = dir.appendingPathComponent("trace.csv"), storage = dir.appendingPathComponent("eeprom.bin")
        let image = dir.appendingPathComponent("lib.thl").path
        let built = try ThrumProcess.run(["library", "build", TestPaths.packageRoot.appendingPathComponent("examples/library").path, "-o", image])
        XCTAssertEqual(built.status, 0, built.standardError)
        let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { simulator.stop() }
        let storing = try SimulatorProcess(arguments: ["--storage", storage.path, "--link", "baud=19200"])
        defer { storing.stop() }
        let env = ["XDG_CONFIG_HOME": dir.appendingPathComponent("config").path]

        func interrupted(_ arguments: [String], when ready: (_ output: String) -> Bool) throws -> (status: Int32, out: String, err: String) {
            let process = Process()
            process.executableURL = try TestPaths.thrumBinary
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // Standard output as it comes (the flash's progress lines say when it writes).
            let lock = NSLock()
            nonisolated(unsafe) var out = Data()
            let reader = Thread {
                while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
                    lock.withLock { out.append(chunk) }
                }
            }
            reader.start()
            func text() -> String { lock.withLock { String(decoding: out, as: UTF8.self) } }
            let by = Date().addingTimeInterval(20)
            while Date() < by, process.isRunning, !(ready(text()) && catchesSIGINT(process.processIdentifier)) {
                usleep(5_000)
            }
            kill(process.processIdentifier, SIGINT)
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            while !reader.isFinished { usleep(5_000) }
            XCTAssertEqual(process.terminationReason, .exit, "\(arguments[0]) died of the signal: \(err)")
            XCTAssertFalse(err.contains("crashed"), err)
            XCTAssertEqual(err.components(separatedBy: "interrupted (signal \(SIGINT))").count, 2, "one line says so: \(err)")
            return (process.terminationStatus, text(), err)
        }

        let calibrate = try interrupted(["calibrate", "--port", simulator.ptyPath, "--json"]) { _ in calibrating(trace) }
        XCTAssertEqual(calibrate.status, 130, calibrate.err)
        XCTAssertTrue(calibrate.err.contains("the calibration ran to its end"), calibrate.err)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(calibrate.out.utf8)) as? [String: Any], calibrate.out)
        XCTAssertEqual(report["passed"] as? Bool, true)

        let info = try interrupted(["info", "--port", simulator.ptyPath]) { _ in true }
        XCTAssertEqual(info.status, 130, info.err)
        XCTAssertEqual(info.out, "", "info printed after the signal")

        let flash = try interrupted(["flash", image, "--port", storing.ptyPath, "--json"]) { out in
            out.split(separator: "\n").contains { $0.contains("\"phase\":\"writing\"") && !$0.contains("\"bytes\":0,") }
        }
        XCTAssertEqual(flash.status, 130, flash.err)
        XCTAssertTrue(flash.err.contains("the new library on the device is incomplete (never checked, not switched to"), flash.err)
        XCTAssertTrue(flash.err.contains("`thrum flash \(image) --port \(storing.ptyPath)`"), flash.err)

        usleep(1_500_000)  // past the device's 1 s watchdog: a session left to it would be a fault now
        let after = try ThrumProcess.run(["info", "--port", simulator.ptyPath, "--json"], environment: env)
        XCTAssertEqual(after.status, 0, after.standardError)
        let state = try XCTUnwrap(try CLITestSupport.json(after) as? [String: Any])
        let faults = try XCTUnwrap(state["state"] as? [String: Any])
        XCTAssertEqual((faults["faults"] as? [Any])?.count, 0, "\(faults)")
        XCTAssertEqual((faults["earlier_faults"] as? [Any])?.count, 0, "\(faults)")
        // The EEPROM (written back after every page write): neither record page holds a record
        // (`TL`), so no library is active — the bytes the device took were never committed.
        storing.stop()
        let eeprom = try Data(contentsOf: storage)
        XCTAssertEqual(eeprom.count, 32_768)
        for page in [0, 64] { XCTAssertNotEqual(Array(eeprom[page..<page + 2]), Array("TL".utf8), "a record at \(page)") }
        simulator.stop()
        XCTAssertEqual(try rtpWrites(trace).last?.value ?? 0, 0, "the actuator was left driving")
    }

    /// The run-queue wait (ns a thread was runnable but not running) of the main thread of each
    /// of `pids` (where `play` runs its engine and `thrum sim` serves), sampled every ~1 ms on a
    /// thread of its own, each sample stamped after it was read.
    final class RunQueueSampler: @unchecked Sendable {
        struct Sample {
            var ns: Int64
            var waits: [Int64?]
        }
        private let lock = NSLock()
        private var samples: [Sample] = []
        private var stopped = false
        private let done = DispatchSemaphore(value: 0)

        init(pids: [Int32]) {
            samples.append(Self.sample(pids))
            Thread.detachNewThread { [self] in
                while !lock.withLock({ stopped }) {
                    let s = Self.sample(pids)
                    lock.withLock { samples.append(s) }
                    usleep(1_000)
                }
                done.signal()
            }
        }

        func stop() -> [Sample] {
            lock.withLock { stopped = true }
            done.wait()
            return lock.withLock { samples }
        }

        static func sample(_ pids: [Int32]) -> Sample {
            let waits = pids.map { pid -> Int64? in
                guard let text = try? String(contentsOfFile: "/proc/\(pid)/schedstat", encoding: .utf8) else { return nil }
                let fields = text.split(separator: " ")
                return fields.count >= 2 ? Int64(fields[1]) : nil
            }
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            return Sample(ns: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec), waits: waits)
        }

        /// ms the processes waited for a core between the first sample (taken before `start`)
        /// and the last one read before `end`, each process's wait counted while it was readable;
        /// at most the interval itself per process.
        static func waited(_ samples: [Sample], from start: Int64, to end: Int64) -> Double {
            guard let first = samples.first, let last = samples.last(where: { $0.ns <= end }) else { return 0 }
            var total: Int64 = 0
            for k in first.waits.indices {
                guard let a = first.waits[k],
                    let b = samples.filter({ $0.ns <= last.ns }).compactMap({ $0.waits[k] }).last
                else { continue }
                total += min(max(0, b - a), end - start)
            }
            return Double(total) / 1e6
        }
    }

    /// Whether `pid` has a handler for SIGINT (`SigCgt` in /proc/PID/status): a signal sent
    /// before the command installed it would end the process the default way.
    private func catchesSIGINT(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(SIGINT - 1)) != 0
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
