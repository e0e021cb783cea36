import ThrumTime

/// Tunables of a ``LinkSession``.
public struct LinkConfiguration: Sendable {
    /// How long to wait for IDENTIFY_REPLY before sending IDENTIFY again.
    public var identifyRetryInterval: HostDuration = .milliseconds(100)
    /// How many IDENTIFY frames to send before reporting that the device does not answer.
    public var identifyAttempts: Int = 5
    /// How long connecting waits on, after its IDENTIFY (or CLAIM) attempts, while the device keeps
    /// sending other frames: on a slow line the answers to an earlier host's frames can still be
    /// queued ahead of this host's (docs/timing.md, "Slow lines"). A device silent for a retry
    /// interval fails as before.
    public var identifyPatience: HostDuration = .seconds(3)
    /// The most pings unanswered at once (``LinkSession/sendPingIfCarried()``): on a link whose rate
    /// the host does not know (a pseudo-terminal, a network bridge), the answers a slow line has
    /// not yet carried stay within this many ACKs (47 ms at 19 200 baud). Six let an FTDI bridge
    /// at its factory 16 ms latency timer fill its 62-byte buffer, which sends at once.
    public var maxPingsInFlight: Int = 6
    /// Once connected, an UNSEQ PING goes out whenever nothing was sent for this long: fresh
    /// clock samples near every event keep the reported bounds narrow. Costs about 46 B/s host → device
    /// and 149 B/s back when idle on `usb-fs`, frame times and ACK departures included (`thrum bench` reports it per link), within 200 B/s each way.
    public var pingInterval: HostDuration = .milliseconds(150)
    /// The ping interval while the link relaxes its pings (``LinkSession/relaxesPings``: a long
    /// wait with nothing to play): the device's watchdog stops output after 1 s without a frame
    /// (`THRUM_WATCHDOG_US`), so one ping may be lost, and the next leave 200 ms late, before it
    /// would. Every ping is a round trip and a clock refit: at 400 ms rather than 300 a day's wait
    /// on the virtual device costs a quarter less (docs/robustness.md).
    public var relaxedPingInterval: HostDuration = .milliseconds(400)
    /// For this long after connecting the link probes every ``startupPingInterval`` instead (and
    /// every ``densePingInterval`` for the first ``denseProbing`` of it): the clock model's bracket
    /// closes on the best-placed samples and its drift needs a baseline, so a burst of samples at
    /// first makes the first patterns land as well as later ones (600 pings, about 5 kB host →
    /// device and 11 kB back, once per connection; the idle overhead after it is unchanged).
    public var startupProbing: HostDuration = .seconds(2)
    /// The ping interval while probing after connect, after the dense first part.
    public var startupPingInterval: HostDuration = .milliseconds(10)
    /// How long the first, densest part of the probing lasts. Two devices started together on
    /// one timeline land within each other's offset error, which shrinks with the square root of
    /// the samples; a ping per 2 ms for the first second took the two-device skew p99 from 788 to
    /// 273 µs on `usb-fs` (docs/timing.md).
    public var denseProbing: HostDuration = .seconds(1)
    /// The ping interval during ``denseProbing`` (two USB frames).
    public var densePingInterval: HostDuration = .milliseconds(2)
    /// While SEGMENTs wait for credits and no frame is in flight (so no ACK is coming), a PING
    /// goes out this long after the last frame to learn the device's fresh credits.
    public var creditProbeInterval: HostDuration = .milliseconds(10)
    /// A device of protocol version 3 with native USB reports its clock at a USB start of frame
    /// (FRAME_TIME) at most this often while the link probes after connecting (``FrameClock``:
    /// its drift is needed before the first pattern); nil asks for none. Each report is 7 bytes
    /// and rides on an ACK the device sends anyway.
    public var frameTimeInterval: HostDuration? = .milliseconds(200)
    /// The spacing of FRAME_TIME reports after the startup probing (a crystal's drift changes
    /// slowly): 7 B/s.
    public var settledFrameTimeInterval: HostDuration = .seconds(1)
    /// Lower bound of the retransmission timeout.
    public var minimumRetransmissionTimeout: HostDuration = .milliseconds(5)
    /// Upper bound of the retransmission timeout (also caps exponential backoff).
    public var maximumRetransmissionTimeout: HostDuration = .seconds(1)
    /// The retransmission timeout before any round-trip sample (RFC 6298 §2.1).
    public var initialRetransmissionTimeout: HostDuration = .seconds(1)
    /// The most sequenced frames sent and not yet acknowledged.
    public var maxFramesInFlight: Int = 16
    /// With a device of protocol version 2 or later, send queued SEGMENTs in the compact stream's
    /// form (SHAPE, PLAY_SHAPE, FOLLOW; PROTOCOL.md §3.4): the same drive in a fraction of the
    /// bytes. False keeps SEGMENTs (the device plays both the same).
    public var compactStream = true
    /// The link fails when one frame has been sent this many times without being acknowledged.
    public var maxTransmissionsPerFrame: Int = 10
    /// Whether the link claims a device of protocol version 5 or later for a session at connect
    /// (PROTOCOL.md §3.8): the device then answers this host's frames only, and a CLAIM by another
    /// host ends this link with ``LinkFailure/takenOver(session:deviceTime:)``. Off: the link
    /// speaks plain frames, as to an older device (a device another host holds then runs none of
    /// its sequenced frames).
    public var claimsSession = true
    /// The session to claim; nil: a random one at each connect (as every host should, so that two
    /// hosts never share one). Tests fix it.
    public var session: UInt32?
    /// The clock model's tunables.
    public var clock: ClockModelConfiguration = .init()

    /// Creates the default configuration.
    public init() {}
}

/// Tunables of a ``ClockModel``.
public struct ClockModelConfiguration: Sendable {
    /// The most samples the fit uses (the newest ones).
    public var windowSamples: Int = 2048
    /// Samples older than this (relative to the newest) leave the fit.
    public var windowDuration: HostDuration = .seconds(20)
    /// The smallest possible outbound delay (host send → device `rx_time`) when the link's legs
    /// are known to differ, as on USB (≈ 0: OUT data leaves with the next start of frame, while
    /// IN data waits for a poll). Nil: unknown, so the model assumes symmetric legs.
    public var outboundDelayFloor: HostDuration? = nil
    /// The time a byte takes on the line, µs, when the link is a UART whose rate the host set (a
    /// USB-serial bridge: 10 bits at the configured baud). Every frame then crosses no sooner
    /// than its bytes allow at the line's fastest rate (``lineRateTolerance``), both ways: the
    /// bracket and the estimate take that off each leg. Nil: not known to be a UART.
    public var lineByteTime: Double? = nil
    /// How much faster than its nominal rate either end's UART may run (baud generators round:
    /// an AVR at 16 MHz sends 115 200 baud 2.1 % fast).
    public var lineRateTolerance: Double = 0.05

    /// The least time a byte takes on the line (0 when not known).
    var guaranteedLineByteTime: Double { (lineByteTime ?? 0) * (1 - lineRateTolerance) }
    /// Spans of host time the window is cut into to measure drift over a long baseline (see
    /// ``ClockEnvelope``); below 2, the single hull edge above the window's mean is used.
    public var slopeBins: Int = 8
    /// Spans of host time within which the time per byte of a serial line is learnt (see
    /// ``ClockModel/byteTimeMicros``): short and long writes are compared only inside one span.
    public var byteTimeSpans: Int = 4
    /// A sample this far outside the guaranteed bracket (``ClockModel``'s, widened by its slack;
    /// never the fit's lines) means the device clock jumped (restart): the window starts afresh
    /// from it.
    public var jumpThreshold: HostDuration = .milliseconds(5)
    /// Drift beyond this (ppm) is treated as a bad fit and clamped.
    public var maximumDriftPPM: Double = 1_000
    /// Below this host-time span the fit keeps the previous slope (1 at first) and fits the offset only.
    public var minimumFitSpan: HostDuration = .milliseconds(500)
    /// ``ClockModel/isConverged`` needs at least this many samples...
    public var convergenceSamples: Int = 8
    /// ...and an error estimate at most this large.
    public var convergenceError: HostDuration = .microseconds(100)

    /// Creates the default configuration.
    public init() {}
}
