import ThrumEngine
import ThrumPattern
import XCTest

/// Start, stop and cancel against the virtual device's onset reports and chip trace.
final class PlayerStartStopTests: XCTestCase {
    func testStartAtATimeLandsEveryOnsetOnTime() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: metronome(beats: 4, interval: 0.1))
        let t0 = rig.now + 0.2
        try player.start(atTime: t0)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        let onsets = rig.engine.onsets(for: player)
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 1, 2, 3])
        for (k, onset) in onsets.enumerated() {
            XCTAssertEqual(onset.requestedTime, t0 + 0.1 * Double(k), accuracy: 1e-6)
            XCTAssertEqual(onset.status, .onTime)
            XCTAssertEqual(try XCTUnwrap(onset.onsetTime), onset.requestedTime, accuracy: 200e-6)
        }
        // The actuator moves at each beat and not before the first.
        XCTAssertLessThan(rig.peakG(from: t0 - 0.1, to: t0 - 0.015), 0.01)
        for k in 0..<4 { XCTAssertGreaterThan(rig.peakG(from: t0 + 0.1 * Double(k), to: t0 + 0.1 * Double(k) + 0.03), 0.1) }
        XCTAssertEqual(rig.device.firmwareStatistics.bad_frames, 0)
    }
}
