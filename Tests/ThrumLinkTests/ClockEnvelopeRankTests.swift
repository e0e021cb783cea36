import ThrumTime
import XCTest

@testable import ThrumLink

/// ``ClockEnvelope/lowest(_:rank:slope:)`` picks the point a stable sort of the span by
/// z − slope · x puts at that rank (the long-baseline fit's span floors), equal values included.
final class ClockEnvelopeRankTests: XCTestCase {
    func testTheRankedPointIsTheOneAStableSortPutsThere() {
        var rng = SplitMix64(seed: 23)
        for trial in 0..<300 {
            let count = 1 + Int(rng.next() % 60)
            // Coarse values so that equal z − slope · x values (ties) are common.
            let slope = trial % 3 == 0 ? 0 : Double(Int(rng.next() % 5) - 2) * 1e-4
            let span = (0..<count).map { _ in (x: Double(rng.next() % 8) * 1000, z: Double(rng.next() % 6)) }
            let sorted = span.sorted { $0.z - slope * $0.x < $1.z - slope * $1.x }
            for rank in 1...(count + 2) {
                let expected = sorted[min(rank, count) - 1]
                let picked = ClockEnvelope.lowest(span, rank: rank, slope: slope)
                XCTAssertTrue(picked == expected, "trial \(trial), rank \(rank) of \(count): \(picked) ≠ \(expected)")
            }
        }
    }
}
