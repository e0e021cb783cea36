import XCTest

@testable import ThrumSim

/// Crystal errors the device cannot model (nan, ±inf, −10⁶ ppm and below, which would run the
/// clock backwards) are clamped instead of trapping when the clock is read (issue 13).
final class CrystalRangeTests: XCTestCase {
    func testAbsurdCrystalErrorsAreClampedAndTheClockStillRuns() {
        for ppm in [Double.nan, .infinity, -.infinity, -2e6, -1e6, 1e300, -1e300] {
            let device = VirtualDevice(configuration: .init(crystalErrorPPM: ppm))
            let a = device.deviceClock(atTrueTime: 1_000_000)
            let b = device.deviceClock(atTrueTime: 2_000_000)
            XCTAssertGreaterThan(b &- a, 0, "\(ppm)")
            XCTAssertTrue(device.trueTime(ofDeviceClock: b, near: 2_000_000).isFinite, "\(ppm)")
            device.advance(to: 50_000)  // firmware passes run against the clamped clock
            XCTAssertEqual(device.now, 50_000)
        }
        let nan = VirtualDevice(configuration: .init(crystalErrorPPM: .nan))
        XCTAssertEqual(nan.deviceClock(atTrueTime: 1_000_000), 1_000_000, "nan reads as an ideal crystal")
        let slow = VirtualDevice(configuration: .init(crystalErrorPPM: -1e6))
        XCTAssertEqual(slow.deviceClock(atTrueTime: 1_000_000), 900_000, "clamped to −10 %")
    }

    func testTheLargestTrueTimeDoesNotTrap() {
        let device = VirtualDevice(configuration: .init(crystalErrorPPM: 100_000))
        _ = device.deviceClock(atTrueTime: .max)
    }
}
