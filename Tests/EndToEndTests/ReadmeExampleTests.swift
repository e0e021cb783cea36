import ThrumEngine
import ThrumHarness
import ThrumPattern
import XCTest

/// The Swift example in README.md, kept compiling and true.
final class ReadmeExampleTests: XCTestCase {
    func testTheReadmeEngineExamplePlaysEveryEventOnTime() throws {
        let path = TestPaths.example("heartbeat.ahap").path
        // --- as in README.md ---
        let rig = VirtualRig()
        let engine = rig.makeEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: try HapticPattern(contentsOf: path))
        player.playbackRate = 1.5
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 5)
        // --- end of the example ---
        let onsets = engine.onsets
        XCTAssertEqual(onsets.count, 4)
        for onset in onsets {
            XCTAssertNotNil(onset.onsetTime, "no onset for the event at \(onset.requestedTime) s")
            XCTAssertEqual(onset.status, .onTime)
        }
        // At rate 1.5 the beats are 0.8 / 1.5 s apart, on the chip.
        let times = onsets.compactMap { rig.trueOnset(of: $0) }
        XCTAssertEqual(times[2] - times[0], 0.8 / 1.5, accuracy: 0.0002)
    }
}
