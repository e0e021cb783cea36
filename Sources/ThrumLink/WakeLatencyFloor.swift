import ThrumTime

/// The least time the host's own timers have woken late lately: a lower bound of how long a
/// reader blocked on the port takes to run once data has arrived, which is part of every
/// device → host delay the host measures (``ClockModel/readerWakeFloor``).
///
/// Each time a timer of the link runs, how far past its deadline the host got there is
/// recorded. A wake-up for something else (data, another timer) that happens to run an overdue
/// timer records less than that timer's own latency, so the floor can only err low. It is the
/// least value of the last ``window``, kept per second; nothing is reported before
/// ``minimumWakes`` timers ran.
public struct WakeLatencyFloor: Sendable {
    /// How long a recorded wake-up counts.
    public var window: HostDuration
    /// Wake-ups recorded before a floor is reported.
    public var minimumWakes: Int
    private var buckets: [(second: Int64, least: HostDuration)] = []
    private var recorded = 0

    /// An empty record.
    public init(window: HostDuration = .seconds(20), minimumWakes: Int = 16) {
        self.window = window
        self.minimumWakes = minimumWakes
    }

    /// Records a timer due at `deadline` that ran at `now`.
    public mutating func record(deadline: HostTime, ranAt now: HostTime) {
        let late = max(now - deadline, .zero)
        let second = now.nanoseconds / 1_000_000_000
        if let last = buckets.last, last.second == second {
            buckets[buckets.count - 1].least = min(last.least, late)
        } else {
            buckets.append((second, late))
        }
        let oldest = (now - window).nanoseconds / 1_000_000_000
        buckets.removeAll { $0.second < oldest }
        recorded += 1
    }

    /// The least lateness of the window; zero until ``minimumWakes`` timers ran.
    public var floor: HostDuration {
        guard recorded >= minimumWakes else { return .zero }
        return buckets.map(\.least).min() ?? .zero
    }
}
