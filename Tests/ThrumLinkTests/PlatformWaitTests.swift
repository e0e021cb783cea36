import ThrumTime
import XCTest

@testable import ThrumLink

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real wait behind ``TermiosSystem/poll(_:events:timeout:)`` on a pipe: it answers at once
/// when there is something to read, a zero timeout only looks, and an empty wait lasts at least
/// its timeout (an upper bound would depend on the machine's load, so none is asserted). The
/// `poll(2)` fallback's millisecond rounding is checked as arithmetic.
final class PlatformWaitTests: XCTestCase {
    private func withPipe(_ body: (_ read: CInt, _ write: CInt) throws -> Void) rethrows {
        var fds: [CInt] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer {
            _ = systemClose(fds[0])
            _ = systemClose(fds[1])
        }
        try body(fds[0], fds[1])
    }

    func testAReadableDescriptorAnswersAtOnceAndAnEmptyOneWaitsItsTimeout() {
        let system = RealTermiosSystem()
        let clock = MonotonicClock()
        withPipe { readEnd, writeEnd in
            XCTAssertEqual(system.poll(readEnd, events: Platform.pollIn, timeout: .zero), .success(0))
            let start = clock.now()
            XCTAssertEqual(system.poll(readEnd, events: Platform.pollIn, timeout: .microseconds(300)), .success(0))
            XCTAssertGreaterThanOrEqual(clock.now() - start, .microseconds(300))
            var byte: UInt8 = 1
            XCTAssertEqual(systemWrite(writeEnd, &byte, 1), 1)
            XCTAssertEqual(
                system.poll(readEnd, events: Platform.pollIn, timeout: .seconds(10)), .success(Platform.pollIn))
        }
    }

    func testAWaitOnNoDescriptorOnlyWaits() {
        let start = MonotonicClock().now()
        XCTAssertEqual(RealTermiosSystem().poll(-1, events: 0, timeout: .microseconds(200)), .success(0))
        XCTAssertGreaterThanOrEqual(MonotonicClock().now() - start, .microseconds(200))
    }

    func testThePollFallbackRoundsUpToWholeMilliseconds() {
        XCTAssertEqual(Platform.pollMilliseconds(.zero), 0)
        XCTAssertEqual(Platform.pollMilliseconds(.microseconds(-3)), 0)
        XCTAssertEqual(Platform.pollMilliseconds(HostDuration(nanoseconds: 1)), 1)
        XCTAssertEqual(Platform.pollMilliseconds(.milliseconds(1)), 1)
        XCTAssertEqual(Platform.pollMilliseconds(HostDuration(nanoseconds: 1_000_001)), 2)
        XCTAssertEqual(Platform.pollMilliseconds(.seconds(1e9)), CInt.max)
        XCTAssertEqual(Platform.pollMilliseconds(HostDuration(nanoseconds: .max)), CInt.max)
    }

    func testLinuxWaitsBelowAMillisecond() {
        #if os(Linux)
        XCTAssertTrue(Platform.waitsBelowAMillisecond)
        #else
        XCTAssertFalse(Platform.waitsBelowAMillisecond)
        #endif
    }
}
