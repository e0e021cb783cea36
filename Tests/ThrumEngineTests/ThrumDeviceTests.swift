import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import XCTest

/// ``ThrumDevice``, the public way onto a device before an engine (what the CLI connects,
/// calibrates and reads the library with), against the virtual device's own state: the chip's
/// registers after a calibration, and its drive once an engine made on the device plays.
/// Imported without `@testable`: only the public surface.
final class ThrumDeviceTests: XCTestCase {
    func testConnectCalibrateAndPlayThroughThePublicSurface() throws {
        let profile = ActuatorProfile.default
        let virtual = VirtualDevice(configuration: VirtualDeviceFactory.configuration(for: profile, crystalErrorPPM: 0, clockStart: 0))
        let clock = ManualClock()
        let device = ThrumDevice(pump: SimulatedPump(device: virtual, clock: clock), endpointName: "the virtual device")

        let identity = try device.open()
        XCTAssertEqual(device.status.identity?.deviceId, identity.deviceId)
        device.configureDriver(DriverRegisters.derive(from: profile))
        try device.waitForDriverReady()
        let report = try device.calibrate()
        XCTAssertTrue(report.passed)
        XCTAssertEqual(device.calibrationResult, report)
        // The words reported are the ones the chip holds.
        let chip = virtual.chip
        func register(_ r: DRV2605LRegister) throws -> UInt8 {
            try XCTUnwrap(chip.read(register: r.rawValue, count: 1, at: virtual.now).get().first)
        }
        XCTAssertEqual(try register(.autoCalCompensation), report.aCalComp)
        XCTAssertEqual(try register(.autoCalBackEMF), report.aCalBemf)
        XCTAssertEqual(try XCTUnwrap(report.resonanceHz), profile.datasheet.resonanceHz, accuracy: 0.1 * profile.datasheet.resonanceHz)
        XCTAssertGreaterThan(device.linkHealth.roundTrip, .zero)

        // An engine on the device plays on it: the chip drives after the play.
        var configuration = HapticEngine.Configuration()
        configuration.calibrateOnStart = false
        let engine = HapticEngine(device: device, profile: profile, configuration: configuration, runMode: .manual)
        try engine.start()
        XCTAssertEqual(engine.calibrationResult, report, "one device: the engine sees the calibration made before it")
        let before = virtual.now
        try engine.playPattern(from: HapticPattern(
            events: [HapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0)], parameters: []))
        engine.run(for: 0.3)
        XCTAssertTrue(chip.trace.registerWrites.contains { $0.register == DRV2605LRegister.rtpInput.rawValue && $0.value > 0 && $0.time > before })
        engine.stop()
    }
}
