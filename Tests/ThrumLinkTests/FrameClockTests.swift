import ThrumLink
import ThrumTime
import XCTest

/// The device's clock against the USB frame grid, from FRAME_TIME reports.
final class FrameClockTests: XCTestCase {
    /// A device whose crystal runs `ppm` fast against the grid reports frame `k` at this time.
    private func device(atFrame k: Int64, ppm: Double, start: Int64 = 5_000_000) -> DeviceTime {
        DeviceTime(microseconds: start + Int64((Double(k) * 1_000 * (1 + ppm * 1e-6)).rounded()))
    }

    func testNothingIsFittedBeforeTwoHundredFramesOfReports() {
        var clock = FrameClock()
        clock.add(frame: 10, device: device(atFrame: 10, ppm: 0))
        clock.add(frame: 110, device: device(atFrame: 110, ppm: 0))
        XCTAssertFalse(clock.isFitted)
        XCTAssertNil(clock.driftPPM)
        XCTAssertNil(clock.frame(atDevice: device(atFrame: 50, ppm: 0)))
        clock.add(frame: 210, device: device(atFrame: 210, ppm: 0))
        XCTAssertTrue(clock.isFitted)
    }

    func testTheCountGivesTheDriftToAFractionOfAPpmInHalfASecondAcrossTheWrap() throws {
        var clock = FrameClock()
        // A report every 200 frames from frame 1 500: the numbers wrap at 2 048.
        for k in stride(from: Int64(1_500), through: 2_100, by: 200) {
            clock.add(frame: UInt16(k % 2_048), device: device(atFrame: k, ppm: 87))
        }
        let drift = try XCTUnwrap(clock.driftPPM)
        XCTAssertEqual(drift, 87, accuracy: 1, "the device's crystal against the grid")
        XCTAssertEqual(clock.samples.map(\.frame), [1_500, 1_700, 1_900, 2_100], "placed on one lap count")
        // Positions and device times invert each other, and the residual is the clock's rounding.
        let at = device(atFrame: 2_000, ppm: 87)
        XCTAssertEqual(try XCTUnwrap(clock.frame(atDevice: at)), 2_000, accuracy: 0.002)
        XCTAssertEqual(try XCTUnwrap(clock.deviceMicros(atFrame: 2_000)), Double(at.microseconds), accuracy: 1)
        XCTAssertLessThanOrEqual(try XCTUnwrap(clock.residualMicros), 1)
    }

    func testReportsSecondsApartLandInTheRightLap() throws {
        var clock = FrameClock()
        // 5 s, 9 s and 30 s gaps: 2, 4 and 14 laps of the frame number.
        for k: Int64 in [100, 5_100, 14_100, 44_100] {
            clock.add(frame: UInt16(k % 2_048), device: device(atFrame: k, ppm: -120))
        }
        XCTAssertEqual(clock.samples.map(\.frame), [100, 5_100, 14_100, 44_100])
        XCTAssertEqual(try XCTUnwrap(clock.driftPPM), -120, accuracy: 0.1)
        XCTAssertEqual(clock.restarts, 0)
    }

    func testARepeatedReportChangesNothingAndAClockThatJumpedStartsAfresh() throws {
        var clock = FrameClock()
        for k in stride(from: Int64(0), through: 600, by: 200) { clock.add(frame: UInt16(k), device: device(atFrame: k, ppm: 10)) }
        clock.add(frame: 600, device: device(atFrame: 600, ppm: 10))
        XCTAssertEqual(clock.samples.count, 4, "the same SOF again")
        // The device restarted: its clock reads near 0 at the next frame.
        clock.add(frame: 800, device: DeviceTime(microseconds: 1_234))
        XCTAssertEqual(clock.restarts, 1)
        XCTAssertEqual(clock.samples.count, 1)
        XCTAssertFalse(clock.isFitted)
    }

    func testTheUncertaintyGrowsAwayFromTheReports() throws {
        var clock = FrameClock()
        // Reports taken a few µs late now and then (interrupt latency).
        let late: [Int64] = [0, 3, 0, 1, 0, 4, 0, 0]
        for (i, k) in stride(from: Int64(0), to: 1_600, by: 200).enumerated() {
            clock.add(frame: UInt16(k), device: device(atFrame: k, ppm: 0) + .microseconds(late[i]))
        }
        let near = try XCTUnwrap(clock.uncertaintyMicros(atDevice: device(atFrame: 800, ppm: 0)))
        let far = try XCTUnwrap(clock.uncertaintyMicros(atDevice: device(atFrame: 10_000, ppm: 0)))
        XCTAssertGreaterThanOrEqual(near, try XCTUnwrap(clock.residualMicros))
        XCTAssertGreaterThan(far, near)
        // Every report lies within the uncertainty of the line at its own time.
        for s in clock.samples {
            let f = try XCTUnwrap(clock.frame(atDevice: s.device))
            XCTAssertLessThanOrEqual(abs(f - Double(s.frame)) * 1_000, try XCTUnwrap(clock.uncertaintyMicros(atDevice: s.device)))
        }
    }
}
