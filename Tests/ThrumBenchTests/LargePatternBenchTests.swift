import ThrumBench
import ThrumPattern
import XCTest

/// The large-pattern bench times what it says: real reads and renders of the generated pattern.
final class LargePatternBenchTests: XCTestCase {
    func testTheGeneratedDocumentIsValidAHAPWithTheEventsAsked() throws {
        let document = try AHAPReader().read(data: LargePatternBench.ahap(events: 250, spacing: 0.05))
        XCTAssertEqual(document.pattern.events.count, 250)
        XCTAssertEqual(document.warnings, [])
        XCTAssertEqual(document.pattern.events.last?.relativeTime ?? 0, 249 * 0.05, accuracy: 1e-9)
        XCTAssertEqual(document.pattern.events[3].value(of: .hapticIntensity) ?? 0, 0.51, accuracy: 1e-6)
        XCTAssertEqual(document.pattern.events[3].value(of: .hapticSharpness) ?? 0, 0.3, accuracy: 1e-6)
    }

    func testRunsAreTimedAndSummarisedByTheirMedian() throws {
        let read = try LargePatternBench.validate(events: 300, runs: 3, baselineRuns: 1)
        XCTAssertEqual(read.events, 300)
        XCTAssertEqual(read.durations.count, 3)
        XCTAssertEqual(read.baselineDurations.count, 1)
        XCTAssertEqual(read.median, read.durations.sorted()[1])
        XCTAssertTrue(read.durations.allSatisfy { $0 > 0 })
        XCTAssertTrue(read.spread.hasSuffix("over 3 runs"), read.spread)
        let render = LargePatternBench.render(events: 40, runs: 2)
        XCTAssertEqual(render.durations.count, 2)
        XCTAssertEqual(render.baselineDurations, [])
        XCTAssertNil(render.baselineMedian)
        let document = try LargePatternBench.renderDocument(events: 60, runs: 3)
        XCTAssertEqual(document.events, 60)
        XCTAssertEqual(document.durations.count, 3)
        XCTAssertEqual(document.median, document.durations.sorted()[1])
    }

    func testSizeNames() {
        XCTAssertEqual(LargePatternBench.sizeName(1_000_000), "1e6")
        XCTAssertEqual(LargePatternBench.sizeName(100_000), "1e5")
        XCTAssertEqual(LargePatternBench.sizeName(10), "1e1")
        XCTAssertEqual(LargePatternBench.sizeName(1), "1")
        XCTAssertEqual(LargePatternBench.sizeName(2_000), "2000")
    }
}
