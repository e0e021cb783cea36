import ThrumEngine
import ThrumPattern
import XCTest

/// `start()` does what docs/engine.md says: it returns with the device connected, the driver
/// configured and calibrated (the chip ran its auto-calibration) and the clock converged, so the
/// first play streams at once. Virtual time: nothing moves after `start()` returns until the test
/// moves it.
final class StartBlocksTests: XCTestCase {
    func testStartReturnsConnectedConfiguredCalibratedAndConverged() throws {
        let rig = EngineRig()
        XCTAssertNil(rig.device.chip.lastCalibration, "nothing calibrated before start")
        try rig.engine.start()
        XCTAssertNotNil(rig.session.identity, "connected")
        XCTAssertTrue(rig.session.link.clock.isConverged, "clock converged")
        XCTAssertNotNil(rig.session.calibrationResult, "the host has the calibration's result")
        guard case .success? = rig.device.chip.lastCalibration else {
            return XCTFail("the chip ran its auto-calibration before start() returned: \(String(describing: rig.device.chip.lastCalibration))")
        }
        // The first play starts one lead time after the call, not after a calibration.
        let call = rig.now
        let player = try rig.engine.makePlayer(with: metronome(beats: 1))
        try player.start(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.3)
        let onset = try XCTUnwrap(rig.engine.onsets(for: player).first)
        let truth = try XCTUnwrap(rig.trueOnset(onset))
        // (An immediate start's drive begins one lead after the call; it is felt its pre-shift later.)
        XCTAssertLessThanOrEqual(truth - onset.preShift - call, rig.engine.leadTime.seconds + 0.005, "the first drive follows the call by a lead time")
    }
}
