import ThrumTime
import XCTest

@testable import ThrumLink

/// The clock model defends its bracket: a sample whose facts contradict the samples before it (a
/// stamp later than its ACK left, a device clock that stalls) is counted, left out of the
/// bracket, and widens every interval by its excess, so the reported bound still holds the truth;
/// contradictions in a row restart the window on the clock as it now is.
final class ClockModelContradictionTests: XCTestCase {
    /// The device clock: host µs + 5 000 000 (no drift).
    let offset: Int64 = 5_000_000

    /// A sample at host µs `t` with a 100 µs round trip, the frame arriving after `outbound` µs,
    /// stamped `stampLate` µs after it arrived and the clock `clockLag` µs behind the truth.
    func sample(at t: Int64, outbound: Int64 = 50, stampLate: Int64 = 0, clockLag: Int64 = 0) -> ClockSample {
        ClockSample(
            hostSend: HostTime(nanoseconds: t * 1_000), hostReceive: HostTime(nanoseconds: (t + 100) * 1_000),
            deviceReceive: DeviceTime(microseconds: t + outbound + offset + stampLate - clockLag))
    }

    /// The host interval the model gives for device time `device` contains host time `truth`.
    func assertHolds(_ model: ClockModel, device: Int64, truth: Int64, file: StaticString = #filePath, line: UInt = #line) throws {
        let range = try XCTUnwrap(model.hostTimeBounds(atDevice: DeviceTime(microseconds: device)), file: file, line: line)
        let t = HostTime(nanoseconds: truth * 1_000)
        XCTAssertTrue(
            range.contains(t),
            "truth \(truth) µs outside \(range.lowerBound.nanoseconds / 1_000)…\(range.upperBound.nanoseconds / 1_000)", file: file, line: line)
    }

    func testALateStampIsCountedAndTheBoundStillHoldsTheTruth() throws {
        var model = ClockModel()
        for k in 0..<40 { model.addSample(sample(at: Int64(k) * 10_000)) }
        XCTAssertEqual(model.contradictions, 0)
        XCTAssertEqual(model.inconsistency, .zero)
        let before = try XCTUnwrap(model.hostTimeBounds(atDevice: DeviceTime(microseconds: 400_000 + offset)))
        // The device stamps this frame 400 µs after it arrived, later than its ACK left (the
        // host had the ACK 50 µs after arrival; the bracket allowed 50 µs more): a fact the bracket rests on is broken.
        model.addSample(sample(at: 400_000, stampLate: 400))
        XCTAssertEqual(model.contradictions, 1)
        XCTAssertEqual(model.inconsistency.microseconds, 300, accuracy: 5)
        // A device time near it: the truth is in the interval, now wider by the excess.
        try assertHolds(model, device: 400_050 + offset, truth: 400_050)
        let after = try XCTUnwrap(model.hostTimeBounds(atDevice: DeviceTime(microseconds: 400_000 + offset)))
        XCTAssertGreaterThan(
            (after.upperBound - after.lowerBound).microseconds, (before.upperBound - before.lowerBound).microseconds + 500)
        // Good samples after it agree again; the contradiction stays in the window (and widens the
        // bound) until it ages out.
        for k in 41..<50 { model.addSample(sample(at: Int64(k) * 10_000)) }
        XCTAssertEqual(model.contradictions, 1)
        try assertHolds(model, device: 480_050 + offset, truth: 480_050)
    }

    func testAClockThatStallsRestartsTheWindowOnTheClockAsItNowIs() throws {
        var model = ClockModel()
        for k in 0..<40 { model.addSample(sample(at: Int64(k) * 10_000)) }
        // The device clock stalls 1.7 ms (a simulator that fell behind, a missed timer overflow):
        // from now on it reads 1 700 µs less than before.
        for k in 40..<60 { model.addSample(sample(at: Int64(k) * 10_000, clockLag: 1_700)) }
        XCTAssertGreaterThanOrEqual(model.contradictions, 3)
        XCTAssertGreaterThanOrEqual(model.errorEstimate, .zero, "an error estimate is never negative")
        XCTAssertEqual(model.jumps, 1, "three contradictions in a row restart the window")
        XCTAssertEqual(model.inconsistency, .zero, "the window now holds the clock as it is")
        try assertHolds(model, device: 590_050 + offset - 1_700, truth: 590_050)
        let range = try XCTUnwrap(model.hostTimeBounds(atDevice: DeviceTime(microseconds: 590_050 + offset - 1_700)))
        XCTAssertLessThan((range.upperBound - range.lowerBound).microseconds, 200, "narrow again once restarted")
    }

    func testSamplesThatAgreeAreNeverContradictions() {
        var model = ClockModel()
        var rng = SplitMix64(seed: 9)
        for k in 0..<300 {
            let outbound = Int64(rng.next() % 90) + 5
            model.addSample(sample(at: Int64(k) * 5_000, outbound: outbound))
        }
        XCTAssertEqual(model.contradictions, 0)
    }
}
