import XCTest
@testable import ThrumSim

/// The amplitude loop stays stable across its register settings, and the resonance tracker
/// locks onto actuators away from the DRIVE_TIME guess (reference §1.2, §2.3).
final class LoopSettingsTests: XCTestCase {
    func testEveryGainBrakeAndUpdateRateSettlesAndStops() {
        for loop: UInt8 in [0, 3] { for brake: UInt8 in [0, 6] { for twice in [false, true] {
            let chip = SimTestSupport.rtpReadyChip(feedback: 0x80 | brake << 4 | loop << 2)
            if twice { chip.write(bytes: [0x1D, 0x0C], at: chip.time) }   // LRA_DRIVE_MODE = 1
            let t0 = chip.time
            chip.write(bytes: [0x02, 0xFF], at: t0)
            chip.advance(to: t0 + 200_000)
            let env = chip.trace.accelerationEnvelope(from: t0, to: t0 + 200_000).map(\.g)
            let tail = env.suffix(50)
            let steady = tail.reduce(0, +) / Double(tail.count)
            let label = "loop \(loop) brake \(brake) twice \(twice)"
            XCTAssertEqual(steady, 0.648, accuracy: 0.02, label)
            XCTAssertLessThan((tail.max()! - tail.min()!) / steady, 0.03, label)
            XCTAssertLessThan(env.max()! / steady, 1.06, "overshoot, \(label)")
            chip.write(bytes: [0x02, 0], at: chip.time)
            chip.advance(to: chip.time + 100_000)
            XCTAssertEqual(chip.activity, .idle, label)
            XCTAssertLessThan(chip.actuator.accelerationAmplitudeG, 0.05, label)
        }}}
    }

    func testCalibrationAndTrackingLockAcrossTheResonanceRange() {
        for f0 in [150.0, 175, 235, 280] {
            var p = LRAParameters.referenceExample
            p.resonanceHz = f0
            let chip = SimTestSupport.rtpReadyChip(parameters: p)   // DRIVE_TIME left at the 208 Hz default
            guard case .success(let cal) = chip.lastCalibration else {
                XCTFail("\(f0) Hz: \(String(describing: chip.lastCalibration))"); continue
            }
            XCTAssertEqual(cal.resonanceHz, f0, accuracy: 2)
            let t = chip.time
            chip.write(bytes: [0x02, 0xFF], at: t)
            chip.advance(to: t + 150_000)
            let (status, bytes) = chip.readStatus(register: 0x22, count: 1, at: chip.time)
            XCTAssertEqual(status, 0)
            XCTAssertEqual(1 / (Double(bytes[0]) * DRV2605LFormulas.periodLSB), f0, accuracy: f0 * 0.02, "LRA_PERIOD at \(f0) Hz")
            XCTAssertEqual(chip.actuator.backEMFAmplitude, chip.backEMFFullScale, accuracy: 0.04 * chip.backEMFFullScale)
        }
    }

    func testERMModeOnAnLRAOnlyThumps() {
        // §6 pitfall 1: N_ERM_LRA left at 0 drives DC, which only displaces the mass.
        let chip = DRV2605LModel()
        chip.write(bytes: [0x01, 0x05], at: 0)
        chip.write(bytes: [0x02, 0x7F], at: 1_000)
        chip.advance(to: 300_000)
        XCTAssertEqual(chip.activity, .driving)
        XCTAssertGreaterThan(chip.trace.samples(from: 0, to: 100_000).map(\.accelerationPeakG).max()!, 0.05)
        let late = chip.trace.samples(from: 250_000, to: 300_000).map(\.accelerationPeakG).max()!
        XCTAssertLessThan(late, 0.01, "no vibration once the step response has died out")
    }
}
