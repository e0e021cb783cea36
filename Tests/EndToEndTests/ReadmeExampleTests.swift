import ThrumEngine
import ThrumHarness
import ThrumPattern
import XCTest

/// The README's Swift example in virtual time, as its last paragraph describes: the engine on a
/// `VirtualRig`, `rig.advance(by:)` instead of waiting, the chip's truth. (The example as written,
/// on the default device in real time, is ThrumTests' `SelfRunningEngineTests`.)
final class ReadmeExampleTests: XCTestCase {
    func testTheReadmeEngineExamplePlaysEveryEventOnTime() throws {
        let path = TestPaths.example("heartbeat.ahap").path
        let rig = VirtualRig()
        let engine = rig.makeEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: try HapticPattern(contentsOf: path))
        player.playbackRate = 1.5
        var finished = false
        player.completionHandler = { _ in finished = true }
        try player.start(atTime: HapticTimeImmediate)
        rig.advance(by: 1.5)
        XCTAssertTrue(finished)
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
