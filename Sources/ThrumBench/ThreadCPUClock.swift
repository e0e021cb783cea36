import Foundation
import ThrumTime

/// The CPU time the calling thread has used (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), as a
/// `HostClock`: it advances only while the thread runs, so a timing taken on it does not grow
/// when other processes preempt the thread (time spent in the kernel on the thread's behalf,
/// page faults included, counts). Read it on the thread being timed.
public struct ThreadCPUClock: HostClock {
    /// Creates a handle on the calling thread's CPU-time clock.
    public init() {}

    public func now() -> HostTime {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return HostTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}
