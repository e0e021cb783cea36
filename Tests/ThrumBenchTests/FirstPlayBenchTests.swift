import ThrumBench
import XCTest

/// The first-play measurement runs on the wall clock: the completion handler comes, and never
/// before the pattern's own length (the handler follows the drive, it cannot be early). Its
/// speed is a bench figure (`first_play_completion_s`), printed here, not asserted.
final class FirstPlayBenchTests: XCTestCase {
    func testTheFirstPlayCompletesAfterThePatternsLength() throws {
        let result = try XCTUnwrap(try FirstPlayBench.run(), "the completion handler never ran")
        print("first play: start() \(result.start) s, player.start → completion \(result.completion) s")
        XCTAssertGreaterThanOrEqual(result.completion, FirstPlayBench.patternLength)
    }
}
