import ThrumTime

/// Counters and round-trip estimates of a ``LinkSession``.
public struct LinkStatistics: Sendable, Equatable {
    /// Bytes handed out by ``LinkSession/takeOutgoing()``.
    public var bytesSent = 0
    /// Bytes passed to ``LinkSession/receive(_:)``.
    public var bytesReceived = 0
    /// Frames sent, including retransmissions and any-lane frames.
    public var framesSent = 0
    /// Valid device frames received (CRC good).
    public var framesReceived = 0
    /// Sequenced frames sent again (go-back-N counts every frame resent).
    public var retransmissions = 0
    /// Retransmission-timer expiries.
    public var timeouts = 0
    /// CLAIMs sent again to a device that fell silent (it reset and forgot the session, PROTOCOL.md §3.8).
    public var reclaims = 0
    /// Retransmission-timer expiries that resent nothing: the device was still answering frames sent
    /// before the oldest outstanding frame's latest copy, which is then still on its way (a queue
    /// of bytes ahead of it, as behind a slow or stalled serial line), not lost.
    public var drainWaits = 0
    /// Fast retransmits triggered by duplicate ACKs.
    public var fastRetransmits = 0
    /// ACKs that named a frame sent after the oldest outstanding one yet did not advance `next_seq`.
    public var duplicateAcknowledgements = 0
    /// Device frames that failed the CRC.
    public var badFrames = 0
    /// Bytes the frame decoder threw away.
    public var discardedBytes = 0
    /// Valid device frames whose payload did not parse or did not start with exactly one ACK.
    public var badPayloads = 0
    /// ONSETs received again (the device repeats each in a few later frames) and dropped.
    public var repeatedOnsets = 0
    /// Device frames missing from the device frame counter (gaps in device SEQ).
    public var lostDeviceFrames = 0
    /// Round-trip samples taken (Karn's rule excludes retransmitted frames).
    public var roundTripSamples = 0
    /// ACK departures (DEPARTURE, PROTOCOL.md §3.7) the clock model took: samples whose return
    /// leg starts when the host's USB IN transfer took the ACK rather than when it was written.
    public var departures = 0
    /// Smoothed round-trip time (RFC 6298), zero before the first sample.
    public var smoothedRoundTrip: HostDuration = .zero
    /// Round-trip variation (RFC 6298), zero before the first sample.
    public var roundTripVariation: HostDuration = .zero
    /// The current retransmission timeout, backoff included.
    public var retransmissionTimeout: HostDuration = .zero
    /// Bytes of new sequenced frames (first transmissions only: no retransmission, no any-lane
    /// frame): what the drive and the commands cost on the wire, without pings.
    public var sequencedBytesSent = 0

    /// Creates zeroed statistics.
    public init() {}
}
