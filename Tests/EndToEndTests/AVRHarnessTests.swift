import Foundation
import ThrumBench
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

    func testWithNothingOnTheBusTheFirmwareStillBoots() throws {
        let trace = try boot(["--no-chip"])
        XCTAssertEqual(trace.writes.count, 0)
        XCTAssertNotNil(trace.facts["device_clock_start_us"], "Timer1, the firmware's clock, started")
    }
}
