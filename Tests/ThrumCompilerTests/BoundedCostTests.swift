import XCTest
import ThrumPattern
@testable import ThrumCompiler

/// Cost follows events and curve points, not the timeline's length; absurd times built in code
/// (the reader refuses them) never trap (issue 13).
final class BoundedCostTests: XCTestCase {
    let renderer = EnvelopeRenderer(profile: .default)

    func testOneEventAt3600sRendersTheSameRowsAsOneAt2s() {
        let early = renderer.render(pattern([transient(2)]))
        let late = renderer.render(pattern([transient(3600)]))
        // The leading silence keeps only its end rows: the rest is the event itself.
        XCTAssertEqual(late.count, early.count)
        XCTAssertLessThan(late.count, 200)
        XCTAssertEqual(late.time.first, 0)
        XCTAssertEqual(late.time.last ?? 0, early.time.last! + 3598, accuracy: 1e-6)
        // The same samples, shifted by 3598 s (to the rounding of times near 3600 s).
        func largestDifference(_ a: [Double], _ b: [Double]) -> Double { zip(a, b).map { abs($0 - $1) }.max() ?? 0 }
        XCTAssertLessThan(largestDifference(late.drive, early.drive), 1e-3)
        XCTAssertLessThan(largestDifference(late.acceleration, early.acceleration), 1e-3)
        XCTAssertLessThan(largestDifference(late.intensity, early.intensity), 1e-3)
        // Every row stays on the sample grid.
        for t in late.time { XCTAssertEqual((t * 1000).rounded(), t * 1000, accuracy: 1e-6) }
    }

    func testShortSilencesAreStillSampledEvenly() {
        let r = renderer.render(pattern([transient(0.1), transient(0.6)]))
        for (a, b) in zip(r.time, r.time.dropFirst()) { XCTAssertEqual(b - a, 0.001, accuracy: 1e-9) }
    }

    func testAGapLongerThanASecondIsLeftOutAndTheActuatorIsAtRestAcrossIt() throws {
        let r = renderer.render(pattern([transient(0.1), continuous(10, 0.2)]))
        let jumps = zip(r.time, r.time.dropFirst()).enumerated().filter { $0.element.1 - $0.element.0 > 0.0015 }
        XCTAssertEqual(jumps.count, 1)
        let i = try XCTUnwrap(jumps.first).offset
        XCTAssertEqual(r.drive[i], 0)
        XCTAssertEqual(r.drive[i + 1], 0)
        XCTAssertLessThan(r.acceleration[i], 0.01, "rung down before the gap")
        XCTAssertEqual(r.intensity[i + 1], 0)
        // The continuous event still renders in full after the gap.
        XCTAssertEqual(r.drive.max() ?? 0, 1, accuracy: 0.01)
    }

    func testRowsGrowLinearlyWithSpreadOutEvents() {
        func rows(_ n: Int) -> Int { renderer.render(pattern((0..<n).map { transient(Double($0) * 100) })).count }
        let r10 = rows(10), r40 = rows(40)
        XCTAssertEqual(Double(r40) / Double(r10), 4, accuracy: 0.2, "\(r10) → \(r40)")
    }

    func testAbsurdTimesBuiltInCodeAreListedUnplayedWithoutATrap() {
        let compiler = plainCompiler()
        let p = pattern(
            [transient(1.2e59), transient(-1e300), continuous(1, 1e300), transient(.nan), transient(0.5)],
            parameters: [.init(parameterID: .hapticIntensityControl, value: 1, relativeTime: 1e200)],
            curves: [.init(parameterID: .hapticSharpnessControl, controlPoints: [.init(relativeTime: 1e250, value: 0.5)], relativeTime: 0)])
        let program = compiler.compile(p)
        XCTAssertEqual(program.events.filter(\.played).count, 1)
        XCTAssertEqual(program.diagnostics.filter { $0.kind == .invalidEventNotPlayed }.count, 4)
        XCTAssertLessThan(program.duration, 1, "absurd ends do not stretch the program")
        let r = renderer.render(p)
        XCTAssertLessThan(r.count, 2_000)
        XCTAssertGreaterThan(r.drive.max() ?? 0, 0)
    }

    func testAbsurdSampleRatesAreClamped() {
        let p = pattern([transient(0.1)])
        XCTAssertEqual(renderer.render(p, sampleRate: 0).sampleRate, 1)
        XCTAssertEqual(renderer.render(p, sampleRate: -.infinity).sampleRate, 1)
        XCTAssertEqual(renderer.render(p, sampleRate: .nan).sampleRate, 1000)
        XCTAssertEqual(EnvelopeRenderer.sampleRates.upperBound, 1_000_000)
    }
}
