import ThrumTime
import XCTest

/// `HostTime` and `HostDuration`: arithmetic, ordering, conversions and the edges of 64-bit
/// nanoseconds.
final class HostTimeTests: XCTestCase {
    func testTimeAndDurationArithmetic() {
        let t = HostTime(nanoseconds: 1_000)
        let d = HostDuration(nanoseconds: 250)
        XCTAssertEqual((t + d).nanoseconds, 1_250)
        XCTAssertEqual((t - d).nanoseconds, 750)
        XCTAssertEqual((t + d) - t, d)
        XCTAssertEqual(t - (t + d), -d)
        var u = t
        u += d
        u += d
        XCTAssertEqual(u.nanoseconds, 1_500)
        XCTAssertEqual((d + d).nanoseconds, 500)
        XCTAssertEqual(d - d, .zero)
        XCTAssertEqual((d * 4).nanoseconds, 1_000)
        XCTAssertEqual((d * -2).nanoseconds, -500)
        XCTAssertEqual((-d).nanoseconds, -250)
        XCTAssertEqual(HostTime.zero + .zero, .zero)
    }

    func testOrdering() {
        let times = [5, -3, 0, 12, 7].map { HostTime(nanoseconds: $0) }
        XCTAssertEqual(times.sorted().map(\.nanoseconds), [-3, 0, 5, 7, 12])
        XCTAssertLessThan(HostTime(nanoseconds: -1), .zero)
        XCTAssertGreaterThan(HostDuration.microseconds(1), HostDuration(nanoseconds: 999))
        XCTAssertLessThan(-HostDuration.milliseconds(1), .zero)
        XCTAssertEqual(Set([HostTime(nanoseconds: 3), HostTime(nanoseconds: 3)]).count, 1)
    }

    func testUnitConstructorsAndReadouts() {
        XCTAssertEqual(HostDuration.microseconds(7).nanoseconds, 7_000)
        XCTAssertEqual(HostDuration.milliseconds(7).nanoseconds, 7_000_000)
        XCTAssertEqual(HostDuration.milliseconds(-2).nanoseconds, -2_000_000)
        XCTAssertEqual(HostDuration.seconds(1.5).nanoseconds, 1_500_000_000)
        XCTAssertEqual(HostDuration.seconds(-0.25).nanoseconds, -250_000_000)
        XCTAssertEqual(HostDuration(nanoseconds: 1_500).microseconds, 1.5)
        XCTAssertEqual(HostDuration(nanoseconds: 2_500_000_000).seconds, 2.5)
        XCTAssertEqual(HostTime(nanoseconds: 3_000_000_000).seconds, 3)
        XCTAssertEqual(HostTime(nanoseconds: 1_500_000_000).description, "1.5s")
        XCTAssertEqual(HostDuration.milliseconds(250).description, "0.25s")
    }

    /// Seconds round to the nearest nanosecond, symmetrically about zero.
    func testSecondsRoundToTheNearestNanosecond() {
        XCTAssertEqual(HostDuration.seconds(1.4e-9).nanoseconds, 1)
        XCTAssertEqual(HostDuration.seconds(1.6e-9).nanoseconds, 2)
        XCTAssertEqual(HostDuration.seconds(-1.6e-9).nanoseconds, -2)
        XCTAssertEqual(HostDuration.seconds(0.000_001).nanoseconds, 1_000, "1 µs although 1e-6 is not exact in binary")
        XCTAssertEqual(HostDuration.seconds(0.1).nanoseconds, 100_000_000)
        XCTAssertEqual(HostDuration.seconds(HostDuration.seconds(86_400).seconds).nanoseconds, 86_400_000_000_000)
    }

    /// 64-bit nanoseconds hold ±292 years; beyond, `seconds(_:)` saturates instead of trapping.
    func testOverflowEdges() {
        let max = HostTime(nanoseconds: .max)
        XCTAssertEqual((max - HostDuration(nanoseconds: 1)).nanoseconds, Int64.max - 1)
        XCTAssertEqual((HostTime(nanoseconds: .max - 10) + HostDuration(nanoseconds: 10)).nanoseconds, .max)
        XCTAssertEqual((HostTime(nanoseconds: .min + 10) - HostDuration(nanoseconds: 10)).nanoseconds, .min)
        XCTAssertEqual(max - HostTime(nanoseconds: .max - 5), HostDuration(nanoseconds: 5))
        XCTAssertEqual(max.seconds / (365.25 * 86_400), 292.271, accuracy: 0.001, "years on a 64-bit nanosecond clock")
        XCTAssertEqual(HostDuration.seconds(9.2e9).nanoseconds, 9_200_000_000_000_000_000)
        XCTAssertEqual(HostDuration.seconds(9.3e9).nanoseconds, .max)
        XCTAssertEqual(HostDuration.seconds(1e300).nanoseconds, .max)
        XCTAssertEqual(HostDuration.seconds(.infinity).nanoseconds, .max)
        XCTAssertEqual(HostDuration.seconds(-1e300).nanoseconds, .min)
        XCTAssertEqual(HostDuration.seconds(-.infinity).nanoseconds, .min)
        XCTAssertEqual(HostDuration.seconds(.nan), .zero)
        XCTAssertEqual(HostDuration.seconds(-0.0), .zero)
    }
}
