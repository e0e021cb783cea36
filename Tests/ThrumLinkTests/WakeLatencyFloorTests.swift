import ThrumLink
import ThrumTime
import XCTest

final class WakeLatencyFloorTests: XCTestCase {
    /// Host time `ms` milliseconds in, to the microsecond.
    func at(_ ms: Double) -> HostTime { HostTime(nanoseconds: Int64((ms * 1_000).rounded()) * 1_000) }

    func testNothingUntilEnoughTimersRanThenTheLeastLateness() {
        var record = WakeLatencyFloor(minimumWakes: 4)
        for (k, late) in [0.9, 0.7, 2.5].enumerated() {
            XCTAssertEqual(record.floor, .zero, "after \(k) wake-ups")
            let due = Double(k) * 10
            record.record(deadline: at(due), ranAt: at(due + late))
        }
        record.record(deadline: at(30), ranAt: at(30.6))
        XCTAssertEqual(record.floor, .microseconds(600), "four wake-ups: the least of them")
        record.record(deadline: at(40), ranAt: at(43.1))
        XCTAssertEqual(record.floor, .microseconds(600))
    }

    func testATimerRunEarlyCountsAsNoLatenessAndOldSecondsAreForgotten() {
        var record = WakeLatencyFloor(window: .seconds(2), minimumWakes: 1)
        record.record(deadline: at(100), ranAt: at(100.4))
        record.record(deadline: at(1_100), ranAt: at(1_100.8))
        XCTAssertEqual(record.floor, .microseconds(400))
        // Seconds older than the window leave it: only the newer wake-ups count.
        record.record(deadline: at(3_500), ranAt: at(3_500.9))
        XCTAssertEqual(record.floor, .microseconds(800))
        record.record(deadline: at(3_600), ranAt: at(3_599))
        XCTAssertEqual(record.floor, .zero, "a poll before the deadline is not a negative latency")
    }
}
