#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Something that tells the current host time.
///
/// Components never read the system clock directly: they are handed a `HostClock`, so tests and
/// benchmarks run in virtual time with a ``ManualClock``.
public protocol HostClock: Sendable {
    /// The current time on this clock's monotonic timeline.
    func now() -> HostTime
}

/// The operating system's monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`).
public struct MonotonicClock: HostClock {
    /// Creates a handle on the system monotonic clock.
    public init() {}

    public func now() -> HostTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return HostTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// A clock that moves only when told to: virtual time for tests, benchmarks and the simulator.
public final class ManualClock: HostClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: HostTime

    /// Creates a clock that reads `start` until advanced.
    public init(start: HostTime = .zero) { current = start }

    public func now() -> HostTime {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves the clock forward by `duration` (which must not be negative).
    public func advance(by duration: HostDuration) {
        precondition(duration.nanoseconds >= 0, "a ManualClock never runs backwards")
        lock.lock()
        current = current + duration
        lock.unlock()
    }

    /// Moves the clock to `time` if that is later than now; a no-op otherwise.
    public func advance(to time: HostTime) {
        lock.lock()
        if time > current { current = time }
        lock.unlock()
    }
}
