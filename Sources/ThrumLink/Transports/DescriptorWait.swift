import ThrumTime

/// Waits on one descriptor until a deadline on a clock, through a ``TermiosSystem``: the one
/// place that turns a deadline into the timeout of a wait and retries an interrupted one.
///
/// Each wait asks for exactly the time left until the deadline (`ppoll(2)` takes it to the
/// nanosecond on Linux; ``Platform/waitForEvents(_:timeout:)`` rounds up to whole milliseconds only
/// where there is no `ppoll`), so a frame due in 200 µs is written 200 µs from now, not at the next
/// millisecond. A wait interrupted by a signal (EINTR) starts again with what is left then; a
/// deadline already passed gives a wait of zero, which only looks and never blocks.
struct DescriptorWait {
    /// The system calls.
    let system: any TermiosSystem
    /// The clock the deadlines are on.
    let clock: any HostClock

    /// Waits until `fd` has one of `events` or `deadline` passes. Returns the returned events
    /// (empty: the deadline passed first), or the error of the wait other than EINTR.
    func wait(for events: Int16, on fd: CInt, until deadline: HostTime) -> Result<Int16, SystemErrno> {
        while true {
            let remaining = max(deadline - clock.now(), .zero)
            switch system.poll(fd, events: events, timeout: remaining) {
            case .failure(.interrupted): continue
            case let result: return result
            }
        }
    }

    /// Waits until `fd` has one of `events`, `wake` is readable or `deadline` passes, in one
    /// `ppoll(2)` on both (``WakeSignal``). Returns `fd`'s events (empty: it had none) and whether
    /// `wake` ended the wait, or the error of the wait other than EINTR.
    func wait(
        for events: Int16, on fd: CInt, orWake wake: CInt, until deadline: HostTime
    ) -> Result<(events: Int16, woken: Bool), SystemErrno> {
        while true {
            let remaining = max(deadline - clock.now(), .zero)
            switch system.poll(fd, events: events, orWake: wake, timeout: remaining) {
            case .failure(.interrupted): continue
            case let result: return result
            }
        }
    }

    /// Waits until `deadline` with nothing to watch (a wait on no descriptor), for a caller that
    /// must let the time pass without turning into a busy loop. Errors other than EINTR end the
    /// wait early.
    func sleep(until deadline: HostTime) {
        while clock.now() < deadline {
            switch system.poll(-1, events: 0, timeout: max(deadline - clock.now(), .zero)) {
            case .failure(.interrupted): continue
            case .failure, .success: return
            }
        }
    }
}
