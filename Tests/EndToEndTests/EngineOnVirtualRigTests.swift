import ThrumEngine
import ThrumHarness
import ThrumPattern
import XCTest

/// `VirtualRig.makeEngine()`: the Core-Haptics-shaped engine on the whole virtual stack.
final class EngineOnVirtualRigTests: XCTestCase {
    func testTwoPlayersOnTheRigMixAndReportOnsets() throws {
        let rig = VirtualRig()
        let engine = rig.makeEngine()
        try engine.start()
        let beat = HapticEvent(
            eventType: .hapticTransient, parameters: [HapticEventParameter(parameterID: .hapticSharpness, value: 1)],
            relativeTime: 0)
        let a = try engine.makePlayer(with: HapticPattern(events: [beat], parameters: [], parameterCurves: []))
        let b = try engine.makePlayer(with: HapticPattern(events: [beat], parameters: [], parameterCurves: []))
        let t0 = engine.currentTime + 0.1
        try a.start(atTime: t0)
        try b.start(atTime: t0 + 0.05)
        XCTAssertTrue(engine.runUntilPlayersFinished(timeout: 1))
        let onsets = engine.onsets
        XCTAssertEqual(onsets.count, 2)
        // Against the chip: when the driver was really told to drive, felt-onset corrected.
        XCTAssertEqual(try XCTUnwrap(rig.trueOnset(of: onsets[0])), t0, accuracy: 200e-6)
        XCTAssertEqual(try XCTUnwrap(rig.trueOnset(of: onsets[1])), t0 + 0.05, accuracy: 200e-6)
        XCTAssertEqual(rig.device.firmwareStatistics.bad_frames, 0)
    }
}
