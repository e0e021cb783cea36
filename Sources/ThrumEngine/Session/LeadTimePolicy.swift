import ThrumLink
import ThrumTime
import ThrumWire

/// How far ahead of now drive is placed, from what the link measures: the one rule for the lead
/// a start is given (``HapticEngine/leadTime``, ``ThrumDevice``'s ``LinkHealth/leadTime``), the
/// change lead (the earliest a CUT sent now takes effect) and the restart margin.
///
/// - **Retransmission lead** `clamp(k · (SRTT + 4 · RTTVAR) + margin, floor … ceiling)`:
///   SRTT + 4·RTTVAR is the RFC 6298 retransmission timeout before its floor, the time by which a
///   frame is almost surely either acknowledged or being resent, so with k ≥ 1 a first segment
///   lost once still arrives in time. Before any round-trip sample the ceiling is used.
/// - **Change lead**: what host → device frames recently took at most (the clock model's outbound
///   delay bound, the return leg does not matter) with a quarter more, plus what the host itself
///   puts in front of a change on a serial line (bytes still draining, one whole frame), plus
///   ``changeMargin`` for the frame's handling; never more than the retransmission lead, which
///   it is until the clock model has samples.
/// - **Restart margin**: at least two smoothed round trips (drive re-sent after a STOP arrives in
///   time).
/// - **Lead** (a start's): the retransmission lead, or two render chunks beyond what a start
///   waits for — the restart margin or the change lead, whichever is longer — so that a start
///   asked for one lead from now is never moved, however long the round trip.
public struct LeadTimePolicy: Sendable, Hashable {
    /// The shortest retransmission lead, whatever the link measures.
    public var floor: HostDuration
    /// The longest retransmission lead (used until the link has measured a round trip). The
    /// lead itself rises above it with the round trip (two chunks beyond two round trips).
    public var ceiling: HostDuration
    /// Multiplier on SRTT + 4·RTTVAR.
    public var factor: Double
    /// Added after the multiplier (frame alignment, device handling).
    public var margin: HostDuration
    /// Added to the change lead for the frame being handled on the device.
    public var changeMargin: HostDuration = .milliseconds(2)

    /// The engine's render chunk unless configured otherwise (``HapticEngine/Configuration/chunk``).
    public static let defaultChunk = HostDuration.milliseconds(10)
    /// The shortest restart margin unless configured otherwise (``HapticEngine/Configuration/restartMargin``).
    public static let defaultRestartMargin = HostDuration.milliseconds(8)

    /// Creates a policy; the defaults suit USB and UART links with multi-millisecond OS jitter.
    public init(floor: HostDuration = .milliseconds(10), ceiling: HostDuration = .milliseconds(120),
                factor: Double = 1.5, margin: HostDuration = .milliseconds(3)) {
        self.floor = floor
        self.ceiling = ceiling
        self.factor = factor
        self.margin = margin
    }

    /// A policy whose retransmission lead is `fixed` whatever the link measures.
    public static func fixed(_ fixed: HostDuration) -> LeadTimePolicy { LeadTimePolicy(floor: fixed, ceiling: fixed) }

    /// The retransmission lead for a link with these statistics.
    public func retransmissionLead(for statistics: LinkStatistics) -> HostDuration {
        guard let lead = measuredRetransmissionLead(for: statistics) else { return ceiling }
        return min(lead, ceiling)
    }

    /// `k · (SRTT + 4 · RTTVAR) + margin`, at least ``floor``; nil before a round trip was measured.
    private func measuredRetransmissionLead(for statistics: LinkStatistics) -> HostDuration? {
        guard statistics.roundTripSamples > 0, statistics.smoothedRoundTrip > .zero else { return nil }
        let rto = statistics.smoothedRoundTrip.microseconds + 4 * statistics.roundTripVariation.microseconds
        return max(HostDuration.microseconds(Int64((factor * rto).rounded(.up))) + margin, floor)
    }

    /// The earliest a change sent now on `link`'s sequenced lane (a CUT and the drive after it)
    /// takes effect on the device. Never more than the retransmission lead before its ceiling:
    /// the ceiling caps what a start adds for a lost frame, not how long a frame may take (capped,
    /// a CUT on a round trip of more than twice the ceiling would reach the device after its instant).
    public func changeLead(on link: LinkSession) -> HostDuration {
        let retransmission = measuredRetransmissionLead(for: link.statistics) ?? ceiling
        guard let outbound = link.clock.outboundDelayBound(excludingOwnBytes: true) else { return retransmission }
        // In whole microseconds, as the engine's schedule counts.
        let fixed = Self.wholeMicroseconds(outbound)
        let ownFrame = Int64((link.clock.byteTimeMicros * Double(ProtocolConstants.maxFrame)).rounded(.up))
        let change = fixed + fixed / 4 + Self.wholeMicroseconds(link.transmitBacklog) + ownFrame + Self.wholeMicroseconds(changeMargin)
        return min(retransmission, .microseconds(change))
    }

    /// The restart margin on `link`: `minimum`, or two smoothed round trips when longer.
    public func restartMargin(on link: LinkSession, minimum: HostDuration = defaultRestartMargin) -> HostDuration {
        .microseconds(Self.wholeMicroseconds(max(minimum, link.statistics.smoothedRoundTrip * 2)))
    }

    private static func wholeMicroseconds(_ d: HostDuration) -> Int64 { d.nanoseconds / 1_000 }

    /// The lead a start is given on `link` by an engine rendering `chunk` at a time (grown with
    /// the round trip for a device of `queueSlots`, ``renderChunk(on:chunk:queueSlots:)``) with
    /// restart margin at least `minimumRestart`.
    public func lead(
        on link: LinkSession, chunk: HostDuration = defaultChunk, minimumRestart: HostDuration = defaultRestartMargin, queueSlots: Int? = nil
    ) -> HostDuration {
        let wait = max(restartMargin(on: link, minimum: minimumRestart), changeLead(on: link))
        return max(retransmissionLead(for: link.statistics), renderChunk(on: link, chunk: chunk, queueSlots: queueSlots) * 2 + wait)
    }

    /// How much drive one render step covers on `link`: `chunk`, or longer on a long round trip,
    /// so that the device's queue holds what the host must keep sent and unacknowledged. Every
    /// streamed chunk of a held level takes one queue slot, and a slot is the host's again only
    /// a round trip after it was sent at the earliest (the segment must reach the device before
    /// its time, and the ACK that frees it comes back): `queueSlots` slots of `chunk` each must
    /// cover two smoothed round trips, or the stream waits for credits and the drive has holes
    /// (10 ms chunks in 32 slots: holes from a 260 ms round trip on, docs/timing.md). In whole
    /// milliseconds; `chunk` up to a 160 ms round trip on a 32-slot device. `queueSlots` is the
    /// device's (IDENTIFY_REPLY); nil (not known yet): `chunk`.
    public func renderChunk(on link: LinkSession, chunk: HostDuration = defaultChunk, queueSlots: Int?) -> HostDuration {
        guard let slots = queueSlots, slots > 0 else { return chunk }
        let twoRoundTrips: Int64 = 2 * Self.wholeMicroseconds(link.statistics.smoothedRoundTrip)
        let count = Int64(slots)
        let needed: Int64 = (twoRoundTrips + count - 1) / count
        let whole: Int64 = (needed + 999) / 1_000 * 1_000
        return max(chunk, .microseconds(whole))
    }
}
