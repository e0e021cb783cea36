import ThrumTime

/// The RFC 6298 retransmission-timeout estimator: SRTT, RTTVAR, RTO with floor, cap and
/// exponential backoff.
struct RetransmissionTimer: Sendable {
    let minimum: HostDuration
    let maximum: HostDuration
    private(set) var smoothed: HostDuration?
    private(set) var variation: HostDuration = .zero
    private var base: HostDuration
    private var backoff: Int64 = 1

    init(initial: HostDuration, minimum: HostDuration, maximum: HostDuration) {
        self.minimum = minimum
        self.maximum = maximum
        base = initial
    }

    /// The timeout to use now, backoff included.
    var timeout: HostDuration { clamp(base * backoff) }

    /// Folds in a round-trip sample from a frame sent exactly once (Karn's rule).
    mutating func addSample(_ rtt: HostDuration) {
        if let srtt = smoothed {
            let error = HostDuration(nanoseconds: abs(srtt.nanoseconds - rtt.nanoseconds))
            variation = HostDuration(nanoseconds: (3 * variation.nanoseconds + error.nanoseconds) / 4)
            smoothed = HostDuration(nanoseconds: (7 * srtt.nanoseconds + rtt.nanoseconds) / 8)
        } else {
            smoothed = rtt
            variation = HostDuration(nanoseconds: rtt.nanoseconds / 2)
        }
        base = clamp(smoothed! + variation * 4)
    }

    /// Doubles the timeout after an expiry (RFC 6298 §5.5), up to the cap.
    mutating func backOff() {
        if timeout < maximum { backoff *= 2 }
    }

    /// Drops the backoff once new data is acknowledged.
    mutating func resetBackoff() { backoff = 1 }

    private func clamp(_ d: HostDuration) -> HostDuration { min(max(d, minimum), maximum) }
}
