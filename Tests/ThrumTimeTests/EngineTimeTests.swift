import ThrumTime
import XCTest

/// `EngineTime` and `EngineDuration` (the engine's schedule: host time in whole µs), and the
/// conversions into and out of it: host time, Core Haptics seconds, pattern offsets.
final class EngineTimeTests: XCTestCase {
    func testTimeAndDurationArithmetic() {
        let t = EngineTime(microseconds: 1_000)
        let d = EngineDuration.microseconds(250)
        XCTAssertEqual((t + d).microseconds, 1_250)
        XCTAssertEqual((t - d).microseconds, 750)
        XCTAssertEqual((t + d) - t, d)
        XCTAssertEqual(t - (t + d), -d)
        var u = t
        u += d
        u -= d * 3
        XCTAssertEqual(u.microseconds, 500)
        var e = d
        e += .milliseconds(1)
        XCTAssertEqual(e.microseconds, 1_250)
        XCTAssertEqual((d + d).microseconds, 500)
        XCTAssertEqual(d - d, .zero)
        XCTAssertEqual((d * 4).microseconds, 1_000)
        XCTAssertEqual((-d).microseconds, -250)
        XCTAssertEqual(EngineTime.zero + .zero, .zero)
    }

    /// Division truncates toward zero, as Int64 division does (`fixed / 4` in the change lead).
    func testDivisionTruncatesTowardZero() {
        XCTAssertEqual((EngineDuration.microseconds(7) / 4).microseconds, 1)
        XCTAssertEqual((EngineDuration.microseconds(-7) / 4).microseconds, -1)
        XCTAssertEqual((EngineDuration.milliseconds(3) * 5 / 2).microseconds, 7_500)
    }

    func testOrderingAndSentinels() {
        let times = [5, -3, 0, 12, 7].map { EngineTime(microseconds: $0) }
        XCTAssertEqual(times.sorted().map(\.microseconds), [-3, 0, 5, 7, 12])
        XCTAssertEqual(times.min(), EngineTime(microseconds: -3))
        XCTAssertLessThan(EngineTime.distantPast, EngineTime(microseconds: .min + 1))
        XCTAssertGreaterThan(EngineTime.distantFuture, EngineTime(microseconds: .max - 1))
        XCTAssertEqual(max(EngineTime(microseconds: 4), .distantPast).microseconds, 4)
        XCTAssertLessThan(-EngineDuration.milliseconds(1), .zero)
        XCTAssertEqual(Set([EngineTime(microseconds: 3), EngineTime(microseconds: 3)]).count, 1)
    }

    /// Host → engine truncates to the microsecond (toward zero, as the engine always read its
    /// clock); engine → host is exact.
    func testHostTimeConversions() {
        XCTAssertEqual(EngineTime(HostTime(nanoseconds: 1_234_999)).microseconds, 1_234)
        XCTAssertEqual(EngineTime(HostTime(nanoseconds: 1_234_000)).microseconds, 1_234)
        XCTAssertEqual(EngineTime(HostTime(nanoseconds: -1_999)).microseconds, -1)
        XCTAssertEqual(EngineTime(microseconds: 1_234).hostTime, HostTime(nanoseconds: 1_234_000))
        for ns: Int64 in [0, 999, 1_000, 123_456_789, 86_400_000_000_123] {
            let t = EngineTime(HostTime(nanoseconds: ns))
            XCTAssertEqual(EngineTime(t.hostTime), t, "engine → host → engine is the identity")
            XCTAssertLessThanOrEqual(t.hostTime.nanoseconds, ns)
            XCTAssertLessThan(ns - t.hostTime.nanoseconds, 1_000)
        }
        XCTAssertEqual(EngineDuration(truncating: HostDuration(nanoseconds: 2_999)).microseconds, 2)
        XCTAssertEqual(EngineDuration(truncating: HostDuration(nanoseconds: -2_999)).microseconds, -2)
        XCTAssertEqual(EngineDuration(truncating: .milliseconds(30)), .milliseconds(30))
        XCTAssertEqual(EngineDuration.microseconds(7).hostDuration, .microseconds(7))
    }

    /// Core Haptics seconds round to the nearest microsecond, and saturate instead of trapping.
    func testSecondsConversions() {
        XCTAssertEqual(EngineTime(seconds: 1.5).microseconds, 1_500_000)
        XCTAssertEqual(EngineTime(seconds: 0.000_001).microseconds, 1, "1 µs although 1e-6 is not exact in binary")
        XCTAssertEqual(EngineTime(seconds: 0.000_001_4).microseconds, 1)
        XCTAssertEqual(EngineTime(seconds: 0.000_001_6).microseconds, 2)
        XCTAssertEqual(EngineDuration.seconds(-0.000_001_6).microseconds, -2)
        XCTAssertEqual(EngineDuration.seconds(0.1).microseconds, 100_000)
        XCTAssertEqual(EngineTime(microseconds: 2_500_000).seconds, 2.5)
        XCTAssertEqual(EngineDuration.milliseconds(250).seconds, 0.25)
        XCTAssertEqual(EngineTime(seconds: .infinity), .distantFuture)
        XCTAssertEqual(EngineTime(seconds: 1e300), .distantFuture)
        XCTAssertEqual(EngineDuration.seconds(-.infinity).microseconds, .min)
        XCTAssertEqual(EngineTime(seconds: .nan), .zero)
        // An event 0.1 s after a whole-µs origin: summed in µs, so the result is the exact decimal.
        XCTAssertEqual(EngineTime(microseconds: 3_000_007).seconds(plus: 0.1), 3.100_007)
        XCTAssertEqual(EngineTime(microseconds: 1_000_000).seconds(plus: 0), 1)
        XCTAssertEqual(HostTime(seconds: 1.5).nanoseconds, 1_500_000_000)
        XCTAssertEqual(HostTime(seconds: 0.000_000_001_4).nanoseconds, 1)
    }

    /// A pattern offset placed at an origin and read back is itself; offsets and spans add.
    func testPatternOffsetPlacement() {
        let origin = EngineTime(microseconds: 5_000_000)
        let x = PatternOffset(microseconds: -1_200)  // a pre-shifted onset
        XCTAssertEqual(x.engineTime(origin: origin).microseconds, 4_998_800)
        XCTAssertEqual(PatternOffset(at: x.engineTime(origin: origin), origin: origin), x)
        XCTAssertEqual(PatternOffset(at: origin, origin: origin), .zero)
        XCTAssertEqual(PatternOffset.zero.engineTime(origin: origin), origin)
        let y = PatternOffset(microseconds: 30_000)
        XCTAssertEqual(y - x, .microseconds(31_200))
        XCTAssertEqual(x + (y - x), y)
        XCTAssertEqual(y - .milliseconds(30), .zero)
        XCTAssertEqual(y.engineTime(origin: origin) - x.engineTime(origin: origin), y - x, "placing keeps spans")
        XCTAssertLessThan(PatternOffset.distantPast, x)
        XCTAssertGreaterThan(PatternOffset.distantFuture, y)
    }

    func testDescriptionsNameTheTimeline() {
        XCTAssertEqual(EngineTime(microseconds: 12).description, "engine 12 µs")
        XCTAssertEqual(EngineDuration.microseconds(-5).description, "-5 µs (engine)")
    }
}
