import Foundation
import ThrumEngine
import ThrumPattern
import XCTest

/// The background driver: the engine runs on its own thread, callbacks arrive there.
final class EngineDriverTests: XCTestCase {
    func testADriverThreadRunsTheEngineAndDeliversCallbacks() throws {
        let rig = EngineRig()
        let driver = HapticEngineDriver(engine: rig.engine)
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var onMain: Bool?; var error: Error? }
        let box = Box()
        let player = try driver.sync { engine in
            try engine.start()
            let player = try engine.makeAdvancedPlayer(with: metronome(beats: 3, interval: 0.1))
            player.completionHandler = { error in
                box.onMain = Thread.isMainThread
                box.error = error
                done.signal()
            }
            try player.start(atTime: HapticTimeImmediate)
            return player
        }
        driver.start()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the player never finished")
        driver.stop()
        XCTAssertEqual(box.onMain, false, "callbacks arrive on the driver thread")
        XCTAssertNil(box.error)
        let onsets = driver.sync { $0.onsets(for: player) }
        XCTAssertEqual(onsets.count, 3)
        XCTAssertTrue(onsets.allSatisfy { $0.status == .onTime })
    }
}
