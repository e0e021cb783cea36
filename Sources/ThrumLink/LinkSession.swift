import ThrumTime
import ThrumWire

/// The host end of the reliable link, as a sans-IO state machine (PROTOCOL.md §2).
///
/// Feed it the device's bytes with ``receive(_:)``, run its timers with ``poll()`` at
/// ``nextDeadline``, and after any call write ``takeOutgoing()`` to the transport. It connects
/// with IDENTIFY, delivers sequenced messages with go-back-N retransmission under an RFC 6298
/// timer and the device's credits, sends idle pings, and fits the device clock from every ACK.
public final class LinkSession {
    /// The clock every timestamp comes from.
    public let hostClock: any HostClock
    /// The tunables.
    public let configuration: LinkConfiguration
    /// Where the link stands.
    public internal(set) var state: LinkState = .idle
    /// The device↔host time mapping.
    public internal(set) var clock: ClockModel
    /// The device's clock against the USB start-of-frame grid, from its FRAME_TIME reports (empty
    /// for a device that sends none: an older protocol, or no native USB).
    public internal(set) var frameClock = FrameClock()
    /// FRAME_TIMES requests left to send, and when the next is due, while no report came back
    /// (the request travels in an UNSEQ frame, which may be lost).
    var frameTimesRequest: (left: Int, due: HostTime)?
    /// Whether the reports were asked down to ``LinkConfiguration/settledFrameTimeInterval``.
    var frameTimesSettled = false
    /// Counters and round-trip estimates.
    public var statistics: LinkStatistics {
        var s = counters
        s.badFrames = decoder.badFrames
        s.discardedBytes = decoder.discardedBytes
        s.smoothedRoundTrip = timer.smoothed ?? .zero
        s.roundTripVariation = timer.variation
        s.retransmissionTimeout = timer.timeout
        return s
    }

    var counters = LinkStatistics()
    var decoder = FrameDecoder(direction: .deviceToHost)
    var timer: RetransmissionTimer
    var lane = SequencedLane()
    var immediate: [HostMessage] = []
    var events: [DeviceEvent] = []
    /// Preset-library reports (LIBRARY, LIBRARY_DATA, TRIGGER), kept apart from ``DeviceEvent``
    /// so that only the library client reads them.
    var libraryReports: [LibraryReport] = []
    var sentLog: [UInt16: SentRecord] = [:]
    var nextTag: UInt8 = 0
    var maxPayload = ProtocolConstants.maxPayload
    var identifyAttemptsMade = 0
    var identifyDeadline: HostTime?
    var retransmitDeadline: HostTime?
    var lastTransmit: HostTime?
    /// Until when the link probes fast (``LinkConfiguration/startupProbing``).
    var probingUntil: HostTime?
    /// Whether the bytes being handled woke the reader (``receive(_:readerWoken:)``).
    var receivingWoken = false
    /// How late the link's ping timers ran: the least of it is the clock model's reader wake floor.
    public private(set) var wakeLatency = WakeLatencyFloor()
    /// Whether the clock model's estimate takes the reader's wake-up floor into account
    /// (``ClockModel/readerWakeFloor``); a group of devices turns it off (``HapticEngineGroup``).
    public var appliesReaderWakeFloor = true {
        didSet { updateReaderWakeFloor() }
    }
    /// While set, the connected link pings whenever nothing was sent for this long, after the
    /// startup probing too (when shorter than ``LinkConfiguration/pingInterval``). A group of
    /// devices on one timeline sets it (``HapticEngineGroup``): the skew between two devices is the
    /// noise of their two offset estimates, which shrinks with the samples, while one device's
    /// alignment is its link's asymmetry, which samples do not move. Nil: the configured pings.
    public var steadyPingInterval: HostDuration?
    /// While set (and no ``steadyPingInterval`` is), the connected link pings, after its startup
    /// probing, whenever nothing was sent for ``LinkConfiguration/relaxedPingInterval`` instead of
    /// ``LinkConfiguration/pingInterval``: a long wait with nothing to play, where only the device's
    /// watchdog needs the pings. The engine sets it while the next drive is further off than the
    /// clock model's window (``HapticEngine``), so that the window holds the usual samples again
    /// when the drive is placed.
    public var relaxesPings = false
    var lastFastRetransmit: HostTime?
    var lastDeviceSeq: UInt8?
    var emissionCounter: UInt64 = 0
    /// When the bytes written so far will have left a serial line at the learnt byte time
    /// (``transmitBacklog``).
    var serialDrainEnd: HostTime?
    /// The session this link claimed (PROTOCOL.md §3.8), from the moment its CLAIM is queued; nil
    /// before, for a device older than version 5, and with ``LinkConfiguration/claimsSession`` off.
    public internal(set) var session: UInt32?
    /// The key of ``session``: this link's frames, once the CLAIM went out, start their CRC from it.
    var sessionKey: UInt16?
    /// Whether the device confirmed ``session`` (SESSION claimed): from then on only frames in its
    /// key are read, so no other host's reports can be taken for this one's.
    public internal(set) var sessionConfirmed = false
    /// While connecting to a device of version 5: the identity it gave, the CLAIMs sent, and when
    /// the next is due unless SESSION claimed came.
    var claiming: (identity: DeviceIdentity, attempts: Int, due: HostTime)?
    /// A CLAIM goes out (in a plain frame, ahead of everything) at the next ``takeOutgoing()``.
    var claimOutgoing = false
    /// RELEASE was queued: the session is over.
    var releaseSent = false
    /// When bytes last came from the device (any, a frame of another session's too).
    var lastBytesTime: HostTime?
    /// When a well-formed device frame last came (this link's, or one in another session's key:
    /// ``FrameDecoder/foreignFrames``); garbage (a wrong baud rate) does not count.
    var lastFrameTime: HostTime?
    /// When ``connect()`` last started: waiting for the device's answers while it keeps sending
    /// other frames is bounded from here (``LinkConfiguration/identifyPatience``).
    var connectStarted: HostTime?
    /// Whether the IDENTIFY after a busy wait went out (``pollIdentify(now:)``).
    var identifyAskedAfterWait = false
    /// Frames carrying a PING not yet answered, oldest first (``sendPingIfCarried()``).
    var pingsInFlight: [(order: UInt64, sent: HostTime)] = []
    /// When the last frame carrying a PING went out.
    var lastPingSent: HostTime?
    /// When the CLAIM was last sent again to a device gone silent (``pollReclaim(now:)``).
    var lastReclaim: HostTime?
    /// The latest ONSETs received, to recognise the device's repeats of them (PROTOCOL.md §3.2).
    var recentOnsets: [OnsetReport] = []
    /// When the device last answered one of our frames (an ACK naming a frame in ``sentLog``).
    var lastAnswerTime: HostTime?
    /// The link keeps order, so the device has had every frame emitted up to here: the earliest
    /// emission of the newest frame it answered.
    var deliveredThroughOrder: UInt64 = 0

    /// The frames sent so far and not yet answered give no round trip or clock sample when their
    /// ACKs come: the host did not read the link for a while (a run loop left idle), so an ACK
    /// that waited in the port would count the wait as a round trip.
    public func forgetTimingOfFramesInFlight() {
        for key in sentLog.keys { sentLog[key]?.ambiguous = true }
    }

    /// When a host frame went out, and whether an ACK naming it could refer to another transmission.
    struct SentRecord {
        var time: HostTime
        /// Position in the byte stream: frames reach the device in this order.
        var order: UInt64
        /// The position of this frame's first copy still unanswered (an ACK naming a retransmitted
        /// frame may answer any copy: the device has had at least everything before the first).
        var earliestOrder: UInt64 = 0
        var ambiguous: Bool
        /// Bytes of the write that carried it, up to the frame's end.
        var bytesThrough: Int = 0
    }

    /// Creates an idle session reading time from `clock`.
    public init(clock: any HostClock, configuration: LinkConfiguration = .init()) {
        self.hostClock = clock
        self.configuration = configuration
        self.clock = ClockModel(configuration: configuration.clock)
        timer = RetransmissionTimer(
            initial: configuration.initialRetransmissionTimeout, minimum: configuration.minimumRetransmissionTimeout,
            maximum: configuration.maximumRetransmissionTimeout)
    }

    /// A fresh link over the same clock, for a device that rebooted: new sequence numbers and a new
    /// clock model, with this link's configuration and the settings made on it at run time
    /// (``steadyPingInterval``, ``appliesReaderWakeFloor``).
    public func successor() -> LinkSession {
        let next = LinkSession(clock: hostClock, configuration: configuration)
        next.steadyPingInterval = steadyPingInterval
        next.appliesReaderWakeFloor = appliesReaderWakeFloor
        return next
    }

    /// Sequenced messages not yet acknowledged (queued or in flight).
    public var pendingCount: Int { lane.pendingCount }

    /// Sequenced frames sent and not yet acknowledged (at most `maxFramesInFlight`).
    public var framesInFlight: Int { lane.outstanding.count }

    /// Starts (or restarts) connecting: IDENTIFY in an UNSEQ frame now, retried every
    /// `identifyRetryInterval` up to `identifyAttempts` times. Frames in flight from an earlier
    /// connection are forgotten; messages not yet sent stay queued.
    public func connect() {
        lane.restart()
        immediate.removeAll()
        retransmitDeadline = nil
        lastTransmit = nil
        lastFastRetransmit = nil
        lastAnswerTime = nil
        frameTimesRequest = nil
        frameTimesSettled = false
        session = nil
        sessionKey = nil
        sessionConfirmed = false
        claiming = nil
        claimOutgoing = false
        releaseSent = false
        lastBytesTime = nil
        lastFrameTime = nil
        lastReclaim = nil
        pingsInFlight = []
        lastPingSent = nil
        decoder.keys = []
        decoder.acceptsPlain = true
        state = .connecting
        identifyAttemptsMade = 0
        identifyAskedAfterWait = false
        let now = hostClock.now()
        connectStarted = now
        sendIdentify(now: now)
    }

    /// Queues a message on the sequenced lane. It goes out, packed with its neighbours, when the
    /// link is connected, the window has room and the device has credits for its SEGMENTs.
    public func send(_ message: HostMessage) {
        reclaimIfReleased()
        lane.enqueue(message)
    }

    /// Sends an any-lane message (IDENTIFY, PING, STOP) in an UNSEQ frame at the next
    /// ``takeOutgoing()``, ahead of sequenced traffic; it is never retransmitted.
    public func sendImmediately(_ message: HostMessage) {
        precondition(message.isAnyLane, "only IDENTIFY, PING and STOP may travel in UNSEQ frames")
        if message != .release { reclaimIfReleased() }
        immediate.append(message)
    }

    /// Device events (identify replies, onsets, faults) since the last call, in arrival order.
    public func takeDeviceEvents() -> [DeviceEvent] {
        defer { events.removeAll() }
        return events
    }

    /// The preset-library reports received since the last call, in arrival order.
    public func takeLibraryReports() -> [LibraryReport] {
        defer { libraryReports.removeAll() }
        return libraryReports
    }

    /// When ``poll()`` must run next (or now, when ``takeOutgoing()`` has frames to give); nil when
    /// no timer runs.
    public var nextDeadline: HostTime? {
        switch state {
        case .connecting:
            if claimOutgoing || !immediate.isEmpty { return hostClock.now() }
            return claiming?.due ?? identifyDeadline
        case .connected:
            if claimOutgoing || !immediate.isEmpty || lane.retransmitPending
                || lane.canSendNewFrame(window: configuration.maxFramesInFlight)
            {
                return hostClock.now()
            }
            return [retransmitDeadline, pingDeadline, frameTimesRequest?.due].compactMap { $0 }.min()
        case .idle, .failed:
            return nil
        }
    }

    /// Runs the timers that are due: IDENTIFY retries, retransmission timeout, idle ping.
    public func poll() {
        let now = hostClock.now()
        switch state {
        case .connecting:
            if claiming != nil {
                pollClaim(now: now)
            } else if let deadline = identifyDeadline, now >= deadline {
                pollIdentify(now: now)
            }
        case .connected:
            if lane.outstanding.isEmpty { retransmitDeadline = nil }
            if let deadline = retransmitDeadline, now >= deadline, let base = lane.outstanding.first {
                if base.transmissions >= configuration.maxTransmissionsPerFrame {
                    fail(.deliveryFailed(seq: base.seq, transmissions: base.transmissions))
                    return
                }
                if let heard = lastAnswerTime, now - heard < timer.timeout, deliveredThroughOrder < base.lastOrder {
                    // The device answered within the timeout, but only frames sent before the
                    // oldest frame's latest copy: that copy is queued behind them, not lost. Sending
                    // the window again would only lengthen the queue (and count attempts the device
                    // never saw); a loss shows as a negative ACK or as silence.
                    counters.drainWaits += 1
                    retransmitDeadline = now + timer.timeout
                } else {
                    counters.timeouts += 1
                    timer.backOff()
                    lane.retransmitPending = true
                    retransmitDeadline = now + timer.timeout
                }
            }
            if let request = frameTimesRequest, now >= request.due { requestFrameTimes(now: now) }
            if !frameTimesSettled, let until = probingUntil, now >= until, !frameClock.samples.isEmpty {
                frameTimesSettled = true
                immediate.append(.frameTimes(intervalMilliseconds: Self.milliseconds(configuration.settledFrameTimeInterval)))
            }
            pollReclaim(now: now)
            if let deadline = pingDeadline, now >= deadline {
                immediate.append(.ping)
                lastTransmit = now
                wakeLatency.record(deadline: deadline, ranAt: now)
                updateReaderWakeFloor()
            }
        case .idle, .failed:
            break
        }
    }

    /// Hands the clock model the reader's wake-up floor learnt so far, or none when not applied.
    private func updateReaderWakeFloor() { clock.readerWakeFloor = appliesReaderWakeFloor ? wakeLatency.floor : .zero }

    /// When the next PING is due: `pingInterval` after the last frame, or `creditProbeInterval`
    /// while SEGMENTs wait for credits with nothing in flight.
    var pingDeadline: HostTime? {
        // after RELEASE the link stays quiet until it is used again (it then claims again)
        guard case .connected = state, let last = lastTransmit, !releaseSent else { return nil }
        if lane.isWaitingForCredits { return last + configuration.creditProbeInterval }
        let held = pingHeldUntil(now: hostClock.now())
        let due: HostTime
        if let until = probingUntil, last < until {
            let dense = until - configuration.startupProbing + configuration.denseProbing
            due = last + (last < dense ? configuration.densePingInterval : configuration.startupPingInterval)
        } else {
            let usual = relaxesPings ? max(configuration.pingInterval, configuration.relaxedPingInterval) : configuration.pingInterval
            let idle = steadyPingInterval.map { min($0, configuration.pingInterval) } ?? usual
            due = last + idle
        }
        return held.map { max($0, due) } ?? due
    }

    /// Asks the device for FRAME_TIME reports (``LinkConfiguration/frameTimeInterval``), again a
    /// little later up to twice while none has come: a device without native USB never sends any.
    func requestFrameTimes(now: HostTime) {
        guard let interval = configuration.frameTimeInterval, frameClock.samples.isEmpty,
            let left = frameTimesRequest?.left, left > 0
        else {
            frameTimesRequest = nil
            return
        }
        immediate.append(.frameTimes(intervalMilliseconds: Self.milliseconds(interval)))
        frameTimesRequest = (left - 1, now + .milliseconds(500))
    }

    /// A FRAME_TIMES interval in whole ms (1…60 000).
    static func milliseconds(_ interval: HostDuration) -> UInt32 {
        UInt32(min(max(1, interval.microseconds / 1_000), Double(ProtocolConstants.frameTimesMaxIntervalMilliseconds)))
    }

    /// IDENTIFY's retry timer ran out: ask again while attempts are left. After the last, a device
    /// that keeps sending is busy with an earlier exchange — on a slow line the answers to another
    /// host's frames still queued ahead of this host's (docs/timing.md, "Slow lines") — so the link
    /// waits on while bytes keep coming, asks once more when they stop, and fails only when the
    /// device is silent for a whole retry interval or ``LinkConfiguration/identifyPatience`` passed.
    private func pollIdentify(now: HostTime) {
        if identifyAttemptsMade < configuration.identifyAttempts {
            sendIdentify(now: now)
        } else if deviceBusy(now: now) {
            if patienceLeft(now: now) {
                identifyDeadline = now + configuration.identifyRetryInterval
            } else {
                fail(.unansweredWhileBusy(request: "identify", attempts: identifyAttemptsMade, waited: now - (connectStarted ?? now)))
            }
        } else if lastFrameTime != nil, !identifyAskedAfterWait, patienceLeft(now: now) {
            identifyAskedAfterWait = true
            sendIdentify(now: now)
        } else {
            fail(.deviceNotResponding(attempts: identifyAttemptsMade))
        }
    }

    /// Whether well-formed device frames came within the last retry interval.
    func deviceBusy(now: HostTime) -> Bool {
        guard let heard = lastFrameTime else { return false }
        return now - heard < configuration.identifyRetryInterval
    }

    /// Whether connecting may still wait for a device busy with an earlier exchange.
    func patienceLeft(now: HostTime) -> Bool {
        guard let started = connectStarted else { return false }
        return now - started < configuration.identifyPatience
    }

    private func sendIdentify(now: HostTime) {
        immediate.append(.identify)
        identifyAttemptsMade += 1
        identifyDeadline = now + configuration.identifyRetryInterval
    }

    func fail(_ failure: LinkFailure) {
        state = .failed(failure)
        identifyDeadline = nil
        retransmitDeadline = nil
        lastTransmit = nil
        frameTimesRequest = nil
        immediate.removeAll()
        claiming = nil
        claimOutgoing = false
    }
}
