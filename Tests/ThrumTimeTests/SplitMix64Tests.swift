import ThrumTime
import XCTest

/// The project's one seeded generator: the reference SplitMix64 sequence, equal seeds giving
/// equal sequences, and its unit and chance helpers.
final class SplitMix64Tests: XCTestCase {
    /// The first outputs for seed 0 of Vigna's reference splitmix64.c.
    func testReferenceSequence() {
        var rng = SplitMix64(seed: 0)
        XCTAssertEqual(rng.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(rng.next(), 0x6E78_9E6A_A1B9_65F4)
        XCTAssertEqual(rng.next(), 0x06C4_5D18_8009_454F)
    }

    func testEqualSeedsGiveEqualSequencesAndOthersDiffer() {
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42), c = SplitMix64(seed: 43)
        let sa = (0..<64).map { _ in a.next() }
        XCTAssertEqual(sa, (0..<64).map { _ in b.next() })
        XCTAssertNotEqual(sa, (0..<64).map { _ in c.next() })
        XCTAssertEqual(Set(sa).count, 64)
    }

    func testUnitIsInTheHalfOpenIntervalAndCoversIt() {
        var rng = SplitMix64(seed: 7)
        let values = (0..<10_000).map { _ in rng.unit() }
        XCTAssertTrue(values.allSatisfy { $0 >= 0 && $0 < 1 })
        XCTAssertLessThan(values.min()!, 0.001)
        XCTAssertGreaterThan(values.max()!, 0.999)
        XCTAssertEqual(values.reduce(0, +) / Double(values.count), 0.5, accuracy: 0.02)
    }

    func testChance() {
        var rng = SplitMix64(seed: 9)
        XCTAssertFalse((0..<1_000).contains { _ in rng.chance(0) })
        XCTAssertTrue((0..<1_000).allSatisfy { _ in rng.chance(1) })
        let hits = (0..<10_000).filter { _ in rng.chance(0.25) }.count
        XCTAssertEqual(Double(hits) / 10_000, 0.25, accuracy: 0.02)
    }

    /// It serves the standard library's random APIs.
    func testWorksAsARandomNumberGenerator() {
        var a = SplitMix64(seed: 3), b = SplitMix64(seed: 3)
        XCTAssertEqual(Int.random(in: 0..<1_000, using: &a), Int.random(in: 0..<1_000, using: &b))
        XCTAssertEqual([1, 2, 3, 4, 5].shuffled(using: &a), [1, 2, 3, 4, 5].shuffled(using: &b))
    }
}
