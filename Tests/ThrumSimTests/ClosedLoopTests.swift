import XCTest
@testable import ThrumSim

/// Closed-loop RTP behaviour of the output stage against the LRA (reference §1.3, §5.3, §5.4).
final class ClosedLoopTests: XCTestCase {
    struct Response { var steady: Double; var steadyBackEMF: Double; var rise90: Double; var stop10: Double }

    /// Plays RTP `value` for 200 ms, then 0; returns steady envelope, rise to 90 % and stop to 10 % (ms).
    func pulse(_ chip: DRV2605LModel, value: UInt8 = 0xFF) -> Response {
        let t0 = chip.time + 1_000
        chip.write(bytes: [0x02, value], at: t0)
        chip.advance(to: t0 + 200_000)
        let steadyBackEMF = chip.actuator.backEMFAmplitude
        let steady = SimTestSupport.meanEnvelope(chip, from: t0 + 150_000, to: t0 + 200_000)
        let rise = chip.trace.feltOnset(after: t0, threshold: 0.9 * steady) ?? .max
        let t1 = chip.time
        chip.write(bytes: [0x02, 0x00], at: t1)
        chip.advance(to: t1 + 250_000)
        let stop = chip.trace.settledBelow(threshold: 0.1 * steady, after: t1) ?? .max
        return Response(steady: steady, steadyBackEMF: steadyBackEMF,
                        rise90: Double(rise - t0) / 1000, stop10: Double(stop - t1) / 1000)
    }

    func testFullScaleRTPSettlesOnTheCalibratedTarget() {
        let chip = SimTestSupport.rtpReadyChip()
        let r = pulse(chip)
        // 255 unsigned unidirectional = 100 % = the back-EMF calibration found at rated voltage.
        XCTAssertEqual(r.steadyBackEMF, chip.backEMFFullScale, accuracy: 0.03 * chip.backEMFFullScale)
        // …which is the §5.3 rated response: ≈ 0.65 G on the 100 g jig.
        XCTAssertEqual(r.steady, 0.65, accuracy: 0.03)
    }

    func testHalfScaleGivesHalfTheAmplitude() {
        let full = pulse(SimTestSupport.rtpReadyChip())
        let half = pulse(SimTestSupport.rtpReadyChip(), value: 128)
        XCTAssertEqual(half.steady / full.steady, 128.0 / 255.0, accuracy: 0.03)
    }

    func testOverdriveRisesMuchFasterThanTheFreeTimeConstant() {
        let tau = LRAParameters.referenceExample.freeTimeConstant * 1000
        let atDefaultClamp = pulse(SimTestSupport.rtpReadyChip())
        let chip5V = SimTestSupport.rtpReadyChip()
        chip5V.write(bytes: [0x17, 0xEB], at: chip5V.time)     // OD_CLAMP ≈ 5 V
        let at5V = pulse(chip5V)
        print("closed loop rise to 90 %: \(atDefaultClamp.rise90) ms at OD_CLAMP 0x8C (2.97 V), \(at5V.rise90) ms at 5 V; τ = \(tau) ms")
        // Without overdrive the rated sine needs ≈ 58 ms (§5.3, LRAModelTests).
        XCTAssertLessThan(atDefaultClamp.rise90, 0.85 * tau)
        XCTAssertLessThan(at5V.rise90, 15)
    }

    func testActiveBrakingStopsMuchFasterThanCoasting() {
        let braked = pulse(SimTestSupport.rtpReadyChip())
        let coasting = pulse(SimTestSupport.rtpReadyChip(feedback: 0xF8))   // FB_BRAKE_FACTOR 7: off
        print("stop to 10 %: braked \(braked.stop10) ms, coasting \(coasting.stop10) ms")
        XCTAssertLessThan(braked.stop10, 20)
        XCTAssertEqual(coasting.stop10, 72, accuracy: 8)   // τ·ln 10 plus up to one loop update
        XCTAssertLessThan(braked.stop10 * 3, coasting.stop10)
    }

    func testBrakingThenHiZ() {
        let chip = SimTestSupport.rtpReadyChip()
        _ = pulse(chip)
        XCTAssertEqual(chip.activity, .idle)
        XCTAssertTrue(chip.trace.samples.contains { $0.activity == .braking })
    }

    func testDriveStartsAfterTheStartLatency() {
        let chip = SimTestSupport.rtpReadyChip()
        let t0 = chip.time + 1_234
        chip.write(bytes: [0x02, 0xFF], at: t0)
        chip.advance(to: t0 + 10_000)
        XCTAssertEqual(chip.trace.driveOnset(after: t0), t0 + chip.configuration.driveStartLatencyMicros)
    }

    func testSignedBidirectionalFormatIgnoresNegativeValues() {
        let chip = DRV2605LModel()
        chip.write(bytes: [0x1A, 0xA8], at: 0)   // LRA; CONTROL2/3 at reset: bidirectional, signed
        chip.write(bytes: [0x01, 0x05], at: 0)
        chip.write(bytes: [0x02, 0x80], at: 1_000)   // −128 → nothing (§6 pitfall 11)
        chip.advance(to: 30_000)
        XCTAssertTrue(chip.trace.driveOnsets.isEmpty)
        chip.write(bytes: [0x02, 0x7F], at: 30_000)  // +127 → full scale
        chip.advance(to: 60_000)
        XCTAssertEqual(chip.trace.driveOnsets.count, 1)
    }

    func testReducedTargetIsApproachedByBraking() {
        let chip = SimTestSupport.rtpReadyChip()
        let t0 = chip.time
        chip.write(bytes: [0x02, 0xFF], at: t0)
        chip.advance(to: t0 + 150_000)
        chip.write(bytes: [0x02, 0x80], at: t0 + 150_000)
        chip.advance(to: t0 + 300_000)
        let s = chip.trace.samples(from: t0 + 150_000, to: t0 + 300_000)
        XCTAssertTrue(s.contains { $0.activity == .braking })
        let late = SimTestSupport.meanEnvelope(chip, from: t0 + 250_000, to: t0 + 300_000)
        XCTAssertEqual(late, 0.65 * 128 / 255, accuracy: 0.03)
    }

    func testOpenLoopDrivesAtTheProgrammedPeriod() {
        let chip = DRV2605LModel()
        chip.write(bytes: [0x1A, 0xA8], at: 0)
        chip.write(bytes: [0x1D, 0x09], at: 0)        // open loop, unsigned
        chip.write(bytes: [0x20, 50], at: 0)          // 1 / (50 × 98.46 µs) = 203 Hz
        chip.write(bytes: [0x01, 0x05], at: 0)
        chip.write(bytes: [0x02, 0xFF], at: 1_000)
        chip.advance(to: 300_000)
        let onResonance = SimTestSupport.meanEnvelope(chip, from: 250_000, to: 300_000)
        chip.write(bytes: [0x20, 45], at: 300_000)    // 226 Hz: ≈ 21 Hz off at Q 20 → much weaker (§5.4 item 3)
        chip.advance(to: 700_000)
        let offResonance = SimTestSupport.meanEnvelope(chip, from: 650_000, to: 700_000)
        print("open loop on/off resonance:", onResonance, offResonance)
        XCTAssertGreaterThan(onResonance, 0.5)
        XCTAssertLessThan(offResonance, 0.5 * onResonance)
    }
}
