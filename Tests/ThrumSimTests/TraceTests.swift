import XCTest
@testable import ThrumSim

/// What ``SimulationTrace`` records and the helpers the benchmark uses.
final class TraceTests: XCTestCase {
    func testTraceRecordsWhatWasDriven() {
        let chip = SimTestSupport.rtpReadyChip()
        let t0 = (chip.time / 1000 + 5) * 1000
        chip.write(bytes: [0x02, 0xC0], at: t0)
        chip.advance(to: t0 + 60_000)
        chip.write(bytes: [0x02, 0x00], at: t0 + 60_000)
        chip.advance(to: t0 + 120_000)

        let window = chip.trace.samples(from: t0, to: t0 + 120_000)
        XCTAssertEqual(window.count, 120, "one sample per ms")
        XCTAssertEqual(window.first?.time, t0)
        XCTAssertTrue(zip(window.dropFirst(), window).allSatisfy { $0.time - $1.time == 1000 })
        XCTAssertEqual(window[window.startIndex + 30].rtpInput, 0xC0)
        XCTAssertEqual(window.last?.rtpInput, 0x00)
        // The drive envelope is the peak |v|: overdrive at the clamp on attack (2.97 V, §2.1).
        XCTAssertEqual(window[window.startIndex + 2].drivePeakVolts, 0.02122 * 0x8C, accuracy: 0.001)
        XCTAssertEqual(window.last?.drivePeakVolts, 0)
        // Once oscillating, the raw windowed peak stays within the envelope (the coil force adds a
        // little on top of the spring force, which the state-based envelope leaves out).
        let steady = window.dropFirst(30).prefix(25)
        XCTAssertTrue(steady.allSatisfy { $0.accelerationPeakG <= $0.accelerationEnvelopeG * 1.1 })
        XCTAssertTrue(steady.contains { $0.accelerationPeakG >= $0.accelerationEnvelopeG * 0.95 })

        let writes = chip.trace.registerWrites.filter { $0.time >= t0 }
        XCTAssertEqual(writes, [RegisterWrite(time: t0, register: 2, value: 0xC0),
                                RegisterWrite(time: t0 + 60_000, register: 2, value: 0)])
        XCTAssertEqual(chip.trace.driveOnset(after: t0), t0 + 40)
    }

    func testFeltOnsetAndEnvelopeHelpers() {
        let chip = SimTestSupport.rtpReadyChip()
        let t0 = chip.time + 500
        chip.write(bytes: [0x02, 0xFF], at: t0)
        chip.advance(to: t0 + 100_000)
        let peak = chip.trace.peakAcceleration(from: t0, to: t0 + 100_000)
        let onset = chip.trace.feltOnset(after: t0, fractionOfPeak: 0.5, until: t0 + 100_000)!
        XCTAssertEqual(chip.trace.feltOnset(after: t0, threshold: 0.5 * peak), onset)
        XCTAssertGreaterThan(onset, chip.trace.driveOnset(after: t0)!)
        XCTAssertLessThan(onset - t0, 15_000, "50 % of peak well inside the overdriven rise")
        let env = chip.trace.accelerationEnvelope(from: t0, to: t0 + 100_000)
        XCTAssertEqual(env.map(\.g).max(), peak)
        XCTAssertNil(chip.trace.feltOnset(after: t0, threshold: 10))
    }

    func testEnvelopeRecordingCanBeTurnedOff() {
        var config = DRV2605LConfiguration()
        config.recordsEnvelopes = false
        let chip = SimTestSupport.rtpReadyChip(configuration: config)
        chip.write(bytes: [0x02, 0xFF], at: chip.time)
        chip.advance(to: chip.time + 50_000)
        XCTAssertTrue(chip.trace.samples.isEmpty)
        XCTAssertFalse(chip.trace.driveOnsets.isEmpty)
        XCTAssertFalse(chip.trace.registerWrites.isEmpty)
    }

    func testDiagnosticsReportsWithoutTouchingCalibration() {
        let chip = DRV2605LModel()
        chip.write(bytes: [0x1A, 0xA8], at: 0)
        chip.write(bytes: [0x01, 0x06], at: 0)
        chip.write(bytes: [0x0C, 0x01], at: 0)
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: 50_000), .success([1]))
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: 100_000), .success([0]))
        XCTAssertEqual(chip.read(register: 0x00, count: 1, at: 100_000), .success([0xE0]))
        XCTAssertEqual(chip.peek(0x19), 0x6C)
    }
}

extension TraceTests {
    func testTakeTraceEmptiesTheRecording() {
        let chip = SimTestSupport.rtpReadyChip()
        let taken = chip.takeTrace()
        XCTAssertFalse(taken.samples.isEmpty)
        XCTAssertTrue(chip.trace.samples.isEmpty && chip.trace.registerWrites.isEmpty)
        chip.advance(to: chip.time + 5_000)
        XCTAssertGreaterThanOrEqual(chip.trace.samples.count, 4)
        XCTAssertEqual(chip.readStatus(address: 0x5A, register: 0, count: 1, at: chip.time).0, 0)
        XCTAssertEqual(chip.readStatus(address: 0x10, register: 0, count: 1, at: chip.time).0, -6)
    }
}
