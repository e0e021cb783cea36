import Foundation
import ThrumTime
import XCTest

/// `ManualClock` moves only when told, never backwards, and safely from several threads;
/// `MonotonicClock` never goes backwards.
final class ClockTests: XCTestCase {
    func testManualClockStartsWhereToldAndStaysPut() {
        let clock = ManualClock(start: HostTime(nanoseconds: 42))
        XCTAssertEqual(clock.now(), HostTime(nanoseconds: 42))
        XCTAssertEqual(clock.now(), clock.now())
        XCTAssertEqual(ManualClock().now(), .zero)
    }

    func testManualClockAdvancesByDurations() {
        let clock = ManualClock()
        clock.advance(by: .milliseconds(3))
        clock.advance(by: .microseconds(250))
        clock.advance(by: .zero)
        XCTAssertEqual(clock.now().nanoseconds, 3_250_000)
    }

    /// `advance(to:)` moves forward only: an earlier or equal time is a no-op.
    func testManualClockAdvanceToIsForwardOnly() {
        let clock = ManualClock(start: HostTime(nanoseconds: 1_000))
        clock.advance(to: HostTime(nanoseconds: 5_000))
        XCTAssertEqual(clock.now().nanoseconds, 5_000)
        clock.advance(to: HostTime(nanoseconds: 2_000))
        XCTAssertEqual(clock.now().nanoseconds, 5_000)
        clock.advance(to: HostTime(nanoseconds: 5_000))
        XCTAssertEqual(clock.now().nanoseconds, 5_000)
    }

    /// Readings taken while other threads advance the clock are ordered, and no advance is lost.
    func testManualClockIsOrderedAndLosesNoAdvanceAcrossThreads() {
        let clock = ManualClock()
        let threads = 4
        let steps = 2_000
        let readings = Readings()
        DispatchQueue.concurrentPerform(iterations: threads + 1) { worker in
            if worker == threads {
                var last = HostTime.zero
                var ordered = true
                for _ in 0..<steps {
                    let now = clock.now()
                    if now < last { ordered = false }
                    last = now
                }
                readings.record(ordered: ordered)
            } else {
                for _ in 0..<steps { clock.advance(by: .microseconds(1)) }
            }
        }
        XCTAssertEqual(clock.now().nanoseconds, Int64(threads * steps) * 1_000)
        XCTAssertEqual(readings.allOrdered, true)
    }

    /// Through a `HostClock` existential, as components hold it.
    func testClocksServeAsHostClock() {
        let clocks: [any HostClock] = [ManualClock(start: HostTime(nanoseconds: 9)), MonotonicClock()]
        XCTAssertEqual(clocks[0].now().nanoseconds, 9)
        XCTAssertGreaterThan(clocks[1].now().nanoseconds, 0)
    }

    /// The operating system's monotonic clock: successive readings never decrease, and it
    /// advances (read until it does: no sleep, no assumption about the machine's speed).
    func testMonotonicClockNeverGoesBackwardsAndAdvances() {
        let clock = MonotonicClock()
        var previous = clock.now()
        var backwards = 0
        var advanced = false
        for _ in 0..<100_000 {
            let now = clock.now()
            if now < previous { backwards += 1 }
            if now > previous { advanced = true }
            previous = now
        }
        XCTAssertEqual(backwards, 0)
        XCTAssertTrue(advanced, "100 000 readings of a nanosecond clock were all equal")
    }
}

/// Collects a result from worker threads.
private final class Readings: @unchecked Sendable {
    private let lock = NSLock()
    private var ordered: Bool?

    func record(ordered value: Bool) {
        lock.lock()
        ordered = (ordered ?? true) && value
        lock.unlock()
    }

    var allOrdered: Bool? {
        lock.lock()
        defer { lock.unlock() }
        return ordered
    }
}
