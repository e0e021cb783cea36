import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumSim
import ThrumWire
import XCTest

/// Each calibration outcome on the virtual device (in virtual time): a pass, and the three
/// failure modes the virtual device models, diagnosed from what the driver reports.
final class CalibrationDiagnosisTests: XCTestCase {
    let profile = ActuatorProfile.pmdC10_100

    /// Connects a rig whose board was set up for `profile` and calibrates once.
    func calibrate(_ change: (inout VirtualDevice.Configuration) -> Void = { _ in }) throws -> CalibrationDiagnosis {
        var configuration = VirtualDeviceFactory.configuration(for: profile)
        change(&configuration)
        let rig = VirtualRig(profile: profile, deviceConfiguration: configuration)
        try rig.connect(calibrate: false)
        XCTAssertEqual(rig.session.programCapabilities?.calibrated, false, "not calibrated since reset")
        let report: CalibrationReport
        do {
            report = try rig.session.calibrate()
        } catch .calibrationFailed(let failed) {
            report = failed
        }
        return CalibrationDiagnosis(report: report, profile: profile)
    }

    func testTheProfilesActuatorPassesAtItsResonance() throws {
        let d = try calibrate()
        XCTAssertTrue(d.passed, "\(d)")
        XCTAssertTrue(d.report.passed)
        XCTAssertEqual(try XCTUnwrap(d.resonanceHz), 175, accuracy: 4)
        XCTAssertNil(d.advice)
        XCTAssertGreaterThan(d.report.aCalBemf, 0)
    }

    func testNoActuatorFailsWithNoResonance() throws {
        let d = try calibrate { $0.actuator = .absent }
        XCTAssertFalse(d.report.passed)
        XCTAssertEqual(d.report.lraPeriod, 0)
        XCTAssertEqual(d.cause, .noActuator)
        XCTAssertTrue(d.advice?.hasPrefix("no actuator") == true)
    }

    func testRatedVoltageBeyondTheSupplyFails() throws {
        // 2 V RMS rated (2.33 V peak on the output) on a 3.0 V rail: no headroom (reference §6).
        let d = try calibrate { $0.chip.supplyVoltage = 3.0 }
        XCTAssertFalse(d.report.passed)
        XCTAssertEqual(try XCTUnwrap(d.resonanceHz), 175, accuracy: 4, "the actuator itself resonates where expected")
        XCTAssertEqual(d.cause, .ratedVoltageBeyondSupply)
    }

    func testWrongActuatorIsCaughtByItsResonance() throws {
        // A 240 Hz LRA0825 on a board set up for the 175 Hz C10-100: the driver converges on it,
        // but it is not the profile's actuator.
        let d = try calibrate { $0.actuator = VirtualDeviceFactory.lraParameters(for: .lra0825) }
        XCTAssertEqual(try XCTUnwrap(d.resonanceHz), 240, accuracy: 6)
        XCTAssertEqual(d.cause, .wrongActuator)
        XCTAssertFalse(d.passed)
        XCTAssertTrue(d.advice?.contains("the profile expects 175") == true, d.advice ?? "")
    }

    func testCapabilitiesSayCalibratedSinceResetAfterAPassOnly() throws {
        let rig = VirtualRig(profile: profile)
        try rig.connect(calibrate: true)
        XCTAssertEqual(rig.session.calibrationResult?.passed, true)
        // A new connection (another process) learns it from CAPABILITIES.
        try rig.session.reconnect()
        XCTAssertEqual(rig.session.programCapabilities?.calibrated, true)
        // A device reset clears it.
        rig.device.reset()
        try rig.session.reconnect()
        XCTAssertEqual(rig.session.programCapabilities?.calibrated, false)
    }

    /// RESTORE_CALIBRATION through the session, in virtual time: a second rig (a new device, as
    /// after a power cycle) takes the first one's result without calibrating, and says restored.
    func testASessionRestoresAKeptResultIntoANewDevice() throws {
        let configuration = VirtualDeviceFactory.configuration(for: profile)
        let first = VirtualRig(profile: profile, deviceConfiguration: configuration)
        try first.connect(calibrate: false)
        let report = try first.session.calibrate()
        XCTAssertEqual(try first.session.refreshCapabilities()?.calibration, .measured)

        let second = VirtualRig(profile: profile, deviceConfiguration: configuration)
        try second.connect(calibrate: false)
        XCTAssertTrue(second.session.canRestoreCalibration, "the virtual device speaks protocol version 2")
        XCTAssertEqual(second.session.programCapabilities?.calibration, DriverCalibration.none)
        let words = report.words
        XCTAssertEqual(try second.session.restoreCalibration(words), .restored)
        XCTAssertEqual(second.session.programCapabilities?.calibrated, true)
        XCTAssertEqual(second.session.calibrationCount, 0, "no calibration ran")
        XCTAssertEqual(second.device.chip.peek(0x19), report.aCalBemf)
        XCTAssertEqual(second.device.chip.peek(0x1A) & 3, report.bemfGain)
    }
}
