import Foundation
import ThrumBench
import ThrumTime
import XCTest

/// The harness's corrections to simavr 1.6, each shown to matter: the AVR binary boots (no host
/// needed, free-running) and probes and sets up its DRV2605L, or fails to, depending on them.
final class AVRHarnessTests: XCTestCase {
    /// Boots the binary for 20 ms of simulated time and returns its register trace.
    private func boot(_ options: [String]) throws -> AVRTrace {
        let elf = try AVRToolchain.prepare()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-avrsim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("trace.csv")
        let harness = TestPaths.packageRoot.appendingPathComponent("hardware/avrsim/build/avrsim")
        let result = try AVRToolchain.run(
            [harness.path, "--elf", elf.path, "--no-pace", "--stop-after-ms", "20", "--trace", trace.path] + options)
        XCTAssertEqual(result.status, 0, result.output)
        return try AVRTrace(contentsOf: trace)
    }

    /// The AVR port's boot: DEV_RESET (MODE), then the set-up: RTP 0, MODE, FEEDBACK,
    /// RATED_VOLTAGE, OD_CLAMP, CONTROL1-3, OL_LRA_PERIOD, LIBRARY, MODE 5, RTP 0
    /// (drv2605l_configure after a successful probe).
    private let setUpRegisters: [UInt8] = [0x01, 0x02, 0x01, 0x1A, 0x16, 0x17, 0x1B, 0x1C, 0x1D, 0x20, 0x03, 0x01, 0x02]

    /// Write-to-write times of the set-up sequence (after the DEV_RESET, whose wait is the firmware's).
    private func setUpGaps(_ trace: AVRTrace) -> [Double] {
        let setUp = trace.writes.dropFirst()
        return zip(setUp.dropFirst(), setUp).map { $0.timeMicros - $1.timeMicros }
    }

    func testWithTheWorkaroundsTheFirmwareFindsAndSetsUpItsDriver() throws {
        let trace = try boot([])
        XCTAssertEqual(trace.writes.map(\.register), setUpRegisters)
        XCTAssertGreaterThan(Int(trace.facts["sla_status_fixes"] ?? "0") ?? 0, 0, "simavr's SLA+W status was corrected")
        // 400 kHz: START + address + register + value = 1 + 27 SCL periods of 2.5 µs, plus the
        // firmware's own instructions between writes.
        let gaps = setUpGaps(trace)
        XCTAssertTrue(gaps.allSatisfy { $0 >= 70 && $0 < 120 }, "write-to-write \(gaps) µs")
    }

    func testWithoutTheSlaStatusFixTheProbeFails() throws {
        let trace = try boot(["--no-sla-fix"])
        XCTAssertEqual(trace.writes.count, 0, "the firmware must not find a driver when SLA+W reads as MT_DATA_ACK")
    }

    func testWithoutTheTwintFixAndWithoutBusTimingTheProbeFails() throws {
        // The byte timing hides TWINT until the byte's time is up, which also hides simavr's stale
        // TWINT; with simavr's own timing the stale flag reaches the firmware.
        XCTAssertEqual(try boot(["--no-twint-fix", "--no-bus-timing"]).writes.count, 0)
        let fast = try boot(["--no-bus-timing"])
        XCTAssertEqual(fast.writes.map(\.register), setUpRegisters)
        let gaps = setUpGaps(fast)
        XCTAssertTrue(gaps.allSatisfy { $0 < 50 }, "simavr's own ~9 µs bytes: write-to-write \(gaps) µs")
    }

    /// `--clock-file`: the simulated time a host can run on (SimulationClock): it ends where the
    /// trace ends, marked stopped, and was rewritten on every instruction.
    func testTheClockFileCarriesTheSimulatedTime() throws {
        let elf = try AVRToolchain.prepare()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-avrsim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("trace.csv"), clockFile = directory.appendingPathComponent("clock")
        let harness = TestPaths.packageRoot.appendingPathComponent("hardware/avrsim/build/avrsim")
        let result = try AVRToolchain.run(
            [harness.path, "--elf", elf.path, "--no-pace", "--stop-after-ms", "20", "--trace", trace.path, "--clock-file", clockFile.path])
        XCTAssertEqual(result.status, 0, result.output)
        let facts = try AVRTrace(contentsOf: trace)
        let clock = try SimulationClock(path: clockFile.path, origin: HostTime(nanoseconds: 1_000_000_000), driftPPM: 80)
        XCTAssertTrue(clock.isStopped, "the harness marks its clock stopped when it exits")
        XCTAssertEqual(clock.frequencyHz, 16_000_000)
        XCTAssertEqual(clock.simulatedMicros, try facts.number("sim_time_us"), accuracy: 0.1)
        XCTAssertGreaterThanOrEqual(clock.simulatedMicros, 20_000)
        // 20 ms of simulated time at 16 MHz: one update per run-loop step (an instruction is 1-4 cycles).
        let updates = try facts.number("updates")
        XCTAssertGreaterThan(updates, 320_000 / 4)
        XCTAssertLessThanOrEqual(updates, Double(clock.cycles))
        XCTAssertEqual(facts.facts["clock_file"], clockFile.path)
        XCTAssertEqual(Double(clock.now().nanoseconds), 1e9 + clock.simulatedMicros * 1e3 * 1.00008, accuracy: 1)
    }

    func testAClockFileThatCannotBeWrittenIsAnError() throws {
        let elf = try AVRToolchain.prepare()
        let harness = TestPaths.packageRoot.appendingPathComponent("hardware/avrsim/build/avrsim")
        let result = try AVRToolchain.run([harness.path, "--elf", elf.path, "--no-pace", "--stop-after-ms", "1",
                                           "--clock-file", "/nonexistent-thrum-dir/clock"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.output.contains("--clock-file: cannot create '/nonexistent-thrum-dir/clock'"), result.output)
    }

    func testWithNothingOnTheBusTheFirmwareStillBoots() throws {
        let trace = try boot(["--no-chip"])
        XCTAssertEqual(trace.writes.count, 0)
        XCTAssertNotNil(trace.facts["device_clock_start_us"], "Timer1, the firmware's clock, started")
    }
}
