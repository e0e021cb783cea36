import XCTest
@testable import ThrumSim

/// Modelled auto-calibration (MODE 7 + GO; reference §2.4, §5.4 item 4).
final class CalibrationTests: XCTestCase {
    /// A 3 Ω, 90 Hz "actuator": outside both the resistance and resonance windows.
    static let absurd = LRAParameters(
        resonanceHz: 90, mechanicalQ: 20, movingMass: 0.001, coilResistance: 3, coilInductance: 0.1e-3,
        forceFactor: 0.4)

    func startCalibration(_ parameters: LRAParameters, feedback: UInt8 = 0xA8) -> DRV2605LModel {
        let chip = DRV2605LModel(actuator: parameters)
        chip.write(bytes: [0x01, 0x07], at: 1_000)
        chip.write(bytes: [0x1A, feedback], at: 1_100)
        chip.write(bytes: [0x0C, 0x01], at: 1_200)
        return chip
    }

    func testReferenceActuatorPasses() {
        let chip = startCalibration(.referenceExample)
        // AUTO_CAL_TIME = 2 (reset): 500–700 ms window; GO stays set and cannot be cancelled.
        chip.write(bytes: [0x0C, 0x00], at: 100_000)
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: 400_000), .success([1]))
        XCTAssertEqual(chip.activity, .calibrating)
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: 1_200 + 600_000), .success([0]))
        XCTAssertEqual(chip.read(register: 0x00, count: 1, at: 700_000), .success([0xE0]), "DIAG_RESULT 0 = pass")
        guard case .success(let r) = chip.lastCalibration else { return XCTFail("\(String(describing: chip.lastCalibration))") }
        XCTAssertEqual(r.resonanceHz, 205, accuracy: 3)
        // Back-EMF at rated drive ≈ 0.2 V (§5.3) → BEMF_GAIN 0 (3.75×), A_CAL_BEMF ≈ 0.2·3.75·255/1.22 ≈ 157.
        XCTAssertEqual(r.measuredBackEMF, 0.2, accuracy: 0.01)
        XCTAssertEqual(r.backEMFGain, 0)
        XCTAssertEqual(chip.peek(0x19), r.backEMF)
        XCTAssertEqual(chip.peek(0x1A), 0xA8 | r.backEMFGain)
        XCTAssertEqual(chip.peek(0x18), 0x0A)
        XCTAssertEqual(chip.backEMFFullScale, r.measuredBackEMF, accuracy: 0.002)
        XCTAssertNotNil(chip.trace.driveOnset(after: 1_200), "the actuator buzzes during calibration")
    }

    func testAbsurdActuatorFails() {
        let chip = startCalibration(Self.absurd)
        chip.advance(to: 800_000)
        XCTAssertEqual(chip.peek(0x0C), 0)
        XCTAssertEqual(chip.read(register: 0x00, count: 1, at: 800_000), .success([0xE8]), "DIAG_RESULT 1 = fail")
        XCTAssertEqual(chip.peek(0x19), 0x6C, "a failed run leaves the calibration words alone")
        guard case .failure = chip.lastCalibration else { return XCTFail() }
    }

    func testResonanceOutOfRangeFailsEvenWithGoodResistance() {
        var p = LRAParameters.referenceExample
        p.resonanceHz = 90
        let chip = startCalibration(p)
        chip.advance(to: 800_000)
        guard case .failure(.resonanceOutOfRange) = chip.lastCalibration else {
            return XCTFail("\(String(describing: chip.lastCalibration))")
        }
    }

    func testCalibratingInERMModeFails() {
        let chip = startCalibration(.referenceExample, feedback: 0x36)
        chip.advance(to: 800_000)
        XCTAssertEqual(chip.lastCalibration, .failure(.notInLRAMode))
    }

    func testCalibrationDurationFollowsAutoCalTime() {
        let chip = DRV2605LModel()
        chip.write(bytes: [0x01, 0x07], at: 0)
        chip.write(bytes: [0x1A, 0xA8], at: 0)
        chip.write(bytes: [0x1E, 0x00], at: 0)       // AUTO_CAL_TIME 0: 150–350 ms
        chip.write(bytes: [0x0C, 0x01], at: 0)
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: 240_000), .success([1]))
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: 260_000), .success([0]))
    }
}
