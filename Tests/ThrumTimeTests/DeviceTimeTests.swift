import ThrumTime
import XCTest

/// Device time, its 32-bit wire form and pattern offsets: arithmetic, the wrap, and that each
/// stays its own type (the compile-time half of that is the absence of cross-type operators).
final class DeviceTimeTests: XCTestCase {
    func testArithmeticStaysOnTheDeviceTimeline() {
        let t = DeviceTime(microseconds: 1_000_000)
        XCTAssertEqual(t + .microseconds(250), DeviceTime(microseconds: 1_000_250))
        XCTAssertEqual(t - .milliseconds(2), DeviceTime(microseconds: 998_000))
        XCTAssertEqual(DeviceTime(microseconds: 1_500_000) - t, .microseconds(500_000))
        XCTAssertEqual((t - DeviceTime(microseconds: 1_500_000)).microseconds, -500_000)
        var u = t
        u += .microseconds(10)
        u -= .microseconds(3)
        XCTAssertEqual(u.microseconds, 1_000_007)
        XCTAssertEqual(t.seconds, 1.0)
        XCTAssertEqual(DeviceDuration.milliseconds(3).seconds, 0.003)
        XCTAssertEqual(-DeviceDuration.microseconds(4), .microseconds(-4))
        XCTAssertLessThan(DeviceTime(microseconds: 5), DeviceTime(microseconds: 6))
        XCTAssertEqual(DeviceTime(microseconds: -3).clampedToOrigin, .zero)
        XCTAssertEqual(DeviceTime(microseconds: 3).clampedToOrigin.microseconds, 3)
    }

    func testWireFormIsTheLow32Bits() {
        XCTAssertEqual(DeviceTime(microseconds: 0x1_0000_0005).wire.rawValue, 5)
        XCTAssertEqual(DeviceTime(microseconds: 0xFFFF_FFFF).wire.rawValue, 0xFFFF_FFFF)
        XCTAssertEqual(DeviceTime(microseconds: 0x3_8000_0000).wire, DeviceTime32(rawValue: 0x8000_0000))
    }

    func testExtendingPicksTheNearestLapBothWays() {
        let reference = DeviceTime(microseconds: 0x2_0000_0000)
        XCTAssertEqual(reference.extending(5).microseconds, 0x2_0000_0005, "just after the wrap")
        XCTAssertEqual(reference.extending(0xFFFF_FFFF).microseconds, 0x1_FFFF_FFFF, "just before it")
        XCTAssertEqual(reference.extending(0x7FFF_FFFF).microseconds, 0x2_7FFF_FFFF, "just under half a lap ahead")
        XCTAssertEqual(reference.extending(0x8000_0001).microseconds, 0x1_8000_0001, "just over half a lap: behind")
        XCTAssertEqual(DeviceTime(microseconds: 100).extending(0xFFFF_FFF0).microseconds, 0xFFFF_FFF0, "no lap before the origin")
        // Every time within half a lap of the reference survives the round trip through the wire.
        var rng = SplitMix64(seed: 7)
        for _ in 0..<1_000 {
            let base = Int64(rng.next() % (1 << 40)) + (1 << 32)
            let t = DeviceTime(microseconds: base + Int64(Int32.random(in: Int32.min + 1...Int32.max, using: &rng)))
            XCTAssertEqual(DeviceTime(microseconds: base).extending(t.wire), t)
        }
    }

    func testPatternOffsetsRoundToMicrosecondsAndMapToHostSpans() {
        XCTAssertEqual(PatternOffset(seconds: 0.1234564).microseconds, 123_456)
        XCTAssertEqual(PatternOffset(seconds: 0.1234565).microseconds, 123_457)
        XCTAssertEqual(PatternOffset(seconds: -0.002).microseconds, -2_000)
        XCTAssertEqual(PatternOffset(microseconds: 1_500).seconds, 0.0015)
        XCTAssertEqual(PatternOffset(microseconds: 1_500).hostDuration, .microseconds(1_500))
        XCTAssertLessThan(PatternOffset.zero, PatternOffset(microseconds: 1))
    }

    func testDescriptionsNameTheTimeline() {
        XCTAssertEqual(DeviceTime(microseconds: 12).description, "device 12 µs")
        XCTAssertEqual(DeviceTime32(rawValue: 12).description, "device 12 µs (32-bit)")
        XCTAssertEqual(PatternOffset(microseconds: 12).description, "+12 µs (pattern)")
    }
}
