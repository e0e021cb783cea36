import ThrumEngine
import ThrumPattern
import XCTest

/// The CI assertions' rules (`thrum play --expect-max-error-us/--expect-onsets`) on made-up reports.
final class PlaybackExpectationsTests: XCTestCase {
    func event(
        _ index: Int, at requested: Double, onset: Double?, bound: Double?, truth: Double? = nil,
        status: PlaybackReport.OnsetStatus = .onTime, type: HapticEvent.EventType = .hapticTransient
    ) -> PlaybackReport.Event {
        var e = PlaybackReport.Event(
            id: UInt32(index + 1), patternIndex: index, type: type, requestedTime: requested, onsetTime: onset,
            driveOnsetTime: onset, status: status)
        e.onsetBound = bound
        e.trueOnsetTime = truth
        return e
    }

    func report(_ events: [PlaybackReport.Event]) -> PlaybackReport {
        PlaybackReport(events: events, bytesSent: 0, bytesReceived: 0, segmentCount: 0, startDeviceTime: 0, duration: 1)
    }

    func testTheRuleIsOnErrorPlusBoundNotOnTheEstimate() {
        // Error 100 µs, bound 350 µs: the estimate is well inside 400 µs, the guaranteed interval is not.
        let r = report([event(0, at: 0.1, onset: 0.1001, bound: 350e-6)])
        XCTAssertTrue(PlaybackExpectations(maxError: 450e-6).check(r).passed)
        let missed = PlaybackExpectations(maxError: 400e-6).check(r)
        XCTAssertFalse(missed.passed)
        XCTAssertEqual(missed.eventFailures.map(\.reportIndex), [0])
        XCTAssertEqual(missed.summary, "event 0 at 100.000 ms: |error| + bound = 100 + 350 µs = 450 µs > 400 µs")
        XCTAssertEqual(missed.worstErrorPlusBound ?? 0, 450e-6, accuracy: 1e-12)
    }

    func testNegativeErrorsCountByMagnitude() {
        let r = report([event(0, at: 0.2, onset: 0.1997, bound: 100e-6)])
        XCTAssertFalse(PlaybackExpectations(maxError: 350e-6).check(r).passed)
        XCTAssertTrue(PlaybackExpectations(maxError: 410e-6).check(r).passed)
    }

    func testTrueErrorBeyondTheLimitFailsEvenWhenTheBoundHeld() {
        // A bound that does not contain the truth (a bug the virtual device can expose).
        let r = report([event(0, at: 0, onset: 0, bound: 50e-6, truth: 600e-6)])
        let outcome = PlaybackExpectations(maxError: 500e-6).check(r)
        XCTAssertFalse(outcome.passed)
        XCTAssertTrue(
            outcome.summary?.contains("true error 600 µs > 500 µs although the bound held") == true, "\(outcome)")
    }

    func testMissingLateAndDroppedEventsFail() {
        let r = report([
            event(0, at: 0, onset: nil, bound: nil, status: .notReported),
            event(1, at: 0.1, onset: 0.1, bound: 10e-6, status: .lateTrimmed),
            event(2, at: 0.2, onset: 0.2, bound: 10e-6),
        ])
        let outcome = PlaybackExpectations(maxError: 1e-3).check(r)
        XCTAssertEqual(outcome.eventFailures.map(\.reportIndex), [0, 1])
        XCTAssertTrue(outcome.eventFailures[0].message.contains("no onset reported (not_reported)"))
        XCTAssertTrue(outcome.eventFailures[1].message.contains("late_trimmed"))
        XCTAssertEqual(outcome.summary, outcome.eventFailures[0].message + " (and 1 more)")
    }

    func testOnsetCountBothWays() {
        let r = report([
            event(0, at: 0, onset: 0, bound: 10e-6),
            event(1, at: 0.1, onset: 0.1, bound: 10e-6),
            event(2, at: 0.2, onset: nil, bound: nil, type: .audioCustom),  // audio: never counted
        ])
        XCTAssertTrue(PlaybackExpectations(onsets: 2).check(r).passed)
        let missed = PlaybackExpectations(onsets: 3).check(r)
        XCTAssertEqual(missed.countFailure, "expected 3 onsets, the device reported 2 (of 2 haptic events)")
        XCTAssertEqual(missed.reportedOnsets, 2)
    }

    func testNoRulesAlwaysPass() {
        let r = report([event(0, at: 0, onset: nil, bound: nil, status: .dropped)])
        XCTAssertTrue(PlaybackExpectations().check(r).passed)
        XCTAssertNil(PlaybackExpectations().check(r).summary)
    }
}
