import ThrumLink
import ThrumTime

/// How far ahead of its start a program is scheduled, from the link's measured round trip.
///
/// lead = clamp(k · (SRTT + 4 · RTTVAR) + margin, floor … ceiling). SRTT + 4·RTTVAR is the RFC 6298
/// retransmission timeout before its floor: the time by which a frame is almost surely either
/// acknowledged or being resent, so with k ≥ 1 a first segment lost once still arrives in time.
/// Before any round-trip sample the ceiling is used.
public struct LeadTimePolicy: Sendable, Hashable {
    /// The shortest lead, whatever the link measures.
    public var floor: HostDuration
    /// The longest lead (used until the link has measured a round trip).
    public var ceiling: HostDuration
    /// Multiplier on SRTT + 4·RTTVAR.
    public var factor: Double
    /// Added after the multiplier (frame alignment, device handling).
    public var margin: HostDuration

    /// Creates a policy; the defaults suit USB and UART links with multi-millisecond OS jitter.
    public init(floor: HostDuration = .milliseconds(10), ceiling: HostDuration = .milliseconds(120),
                factor: Double = 1.5, margin: HostDuration = .milliseconds(3)) {
        self.floor = floor
        self.ceiling = ceiling
        self.factor = factor
        self.margin = margin
    }

    /// The lead for a link with these statistics.
    public func lead(for statistics: LinkStatistics) -> HostDuration {
        guard statistics.roundTripSamples > 0, statistics.smoothedRoundTrip > .zero else { return ceiling }
        let rto = statistics.smoothedRoundTrip.microseconds + 4 * statistics.roundTripVariation.microseconds
        let lead = HostDuration.microseconds(Int64((factor * rto).rounded(.up))) + margin
        return min(max(lead, floor), ceiling)
    }
}
