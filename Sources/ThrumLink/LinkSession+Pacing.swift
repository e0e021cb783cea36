import ThrumTime
import ThrumWire

/// Pings paced to the link's return leg. Every ping costs the device an ACK frame (15 bytes) on
/// the way back, and a serial line carries that no faster than its rate: at 19 200 baud one ACK
/// takes 7.8 ms, so pings every 2 or 5 ms leave ACKs queued behind each other, a backlog that
/// lengthens every round trip and that a host connecting after this one reads before its own
/// answers (docs/timing.md, "Slow lines"). So a ping goes out only when the link can carry its
/// answer: on a line of known rate no sooner than an ACK's wire time after the previous ping, and
/// on any link while fewer than ``LinkConfiguration/maxPingsInFlight`` pings are unanswered (a
/// ping unanswered for a retransmission timeout counts as lost).
extension LinkSession {
    /// Bytes of the ACK frame a ping is answered with.
    static let pingAnswerBytes = 15

    /// The time the ACK of a ping takes on the line, when its rate is known
    /// (``ClockModelConfiguration/lineByteTime``: a serial port the host set); nil otherwise.
    public var pingAnswerWireTime: HostDuration? {
        guard let byteTime = configuration.clock.lineByteTime, byteTime > 0 else { return nil }
        return .seconds(byteTime * Double(Self.pingAnswerBytes) / 1e6)
    }

    /// Until when the pacing holds the next ping back, or nil when it may go now. Never `now`
    /// itself: a timer deadline must stay put while it is overdue (a pump that wakes late for a
    /// deadline draws its lateness once per deadline).
    func pingHeldUntil(now: HostTime) -> HostTime? {
        var until: HostTime?
        if let last = lastPingSent, let gap = pingAnswerWireTime, last + gap > now { until = last + gap }
        let live = pingsInFlight.filter { now - $0.sent < timer.timeout }
        if live.count >= configuration.maxPingsInFlight, let oldest = live.first {
            until = max(until ?? oldest.sent, oldest.sent + timer.timeout)
        }
        return until
    }

    /// Queues a PING (in an UNSEQ frame at the next ``takeOutgoing()``) if the link can carry its
    /// answer now (see above); returns whether it did. Bursts of pings (clock priming, narrowing)
    /// go through here, so that a slow line never builds a backlog of ACKs.
    @discardableResult
    public func sendPingIfCarried() -> Bool {
        let now = hostClock.now()
        guard !immediate.contains(.ping), pingHeldUntil(now: now) == nil else { return false }
        sendImmediately(.ping)
        return true
    }

    /// A frame carrying a PING went out at `now` as emission `order`.
    func notePingSent(order: UInt64, now: HostTime) {
        lastPingSent = now
        pingsInFlight.removeAll { now - $0.sent >= timer.timeout }
        pingsInFlight.append((order, now))
    }

    /// The device answered the host frame of emission `order`: the link keeps order, so every ping
    /// sent up to it has been answered or was lost.
    func noteAnswer(throughOrder order: UInt64) {
        pingsInFlight.removeAll { $0.order <= order }
    }
}
