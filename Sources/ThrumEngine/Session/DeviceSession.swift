import Foundation
import ThrumCompiler
import ThrumLink
import ThrumTime
import ThrumWire

/// Tunables of a device session (``ThrumDevice``, ``HapticEngine``'s connection): timeouts, lead,
/// latency learning, the link's own tunables, calibration waits.
public struct DeviceSessionConfiguration: Sendable {
    /// How long to wait for IDENTIFY_REPLY before giving up.
    public var connectTimeout: HostDuration = .seconds(1.5)
    /// The retransmission lead (``LeadTimePolicy/retransmissionLead(for:)``) when `leadPolicy` is nil.
    public var leadTime: HostDuration = .milliseconds(60)
    /// The lead rule, from the link's measured round trip and jitter (nil: the retransmission
    /// lead is always `leadTime`, the rest of the rule holds).
    public var leadPolicy: LeadTimePolicy? = LeadTimePolicy()
    /// Learn the device's fixed latency from onset reports and schedule earlier by it.
    public var compensateLatency = true
    /// The link's tunables (clock model included).
    public var link = LinkConfiguration()
    /// Clock samples gathered (by pings) before the first schedule.
    public var primeSamples: Int = 8
    /// Interval between the priming pings.
    public var primeInterval: HostDuration = .milliseconds(5)
    /// How long to wait for CALIBRATION_RESULT once a calibration started (the device gives up
    /// after 3 s of GO set; the driver takes 250–450 ms with AUTO_CAL_TIME 1).
    public var calibrationTimeout: HostDuration = .seconds(4)
    /// How long to let the actuator ring down after a calibration before anything plays.
    public var calibrationSettle: HostDuration = .milliseconds(300)
    public init() {}
}

/// A connection to one Thrum device: connect and identify, configure the driver, converge the
/// clock, calibrate, and learn the device's fixed latencies. ``HapticEngine`` plays on it; it
/// does not play by itself (one playback path).
///
/// It runs on any ``LinkPump``: real time over a serial port or pseudo-terminal, or virtual time
/// against the simulator. It never reads a clock except through the pump.
package final class DeviceSession {
    /// Tunables of a session.
    package typealias Configuration = DeviceSessionConfiguration

    public let pump: any LinkPump
    /// The link; replaced by a fresh one by ``reconnect()`` (after a device reboot).
    public private(set) var link: LinkSession
    public let configuration: Configuration
    /// What the device said about itself, once connected.
    public private(set) var identity: DeviceIdentity?
    /// Faults the device reported during this connection (after its IDENTIFY_REPLY), oldest first.
    public private(set) var faults: [FaultReport] = []
    /// Faults that happened before this connection: FAULT reports read before the device's
    /// IDENTIFY_REPLY to this host's IDENTIFY (bytes it wrote while no host listened, which a
    /// network bridge such as ser2net buffers and hands to the next client). They are not this
    /// run's, so they do not fail it; they are not passed to ``deviceEventHandler``.
    public private(set) var earlierFaults: [FaultReport] = []
    /// Whether the device has answered this link's IDENTIFY (events after it belong to this run).
    private var identifiedOnLink = false

    /// Called for every device event (identify reply, onset, fault) as the pump delivers it; the
    /// streaming engine listens here.
    public var deviceEventHandler: ((DeviceEvent) -> Void)?
    /// The device's learnt fixed latency of a segment start (see ``LatencyCompensator``).
    /// Before the first report it assumes PROTOCOL.md §4.1's 73 µs (one RTP_INPUT write at 400 kHz).
    public private(set) var latency = LatencyCompensator(prior: .microseconds(73))
    /// The device's learnt fixed latency of a ROM effect start (MODE, WAV_FRM_SEQ and GO writes,
    /// ≈ 241 µs at 400 kHz), learnt the same way from ROM effect onsets. Before the first report it
    /// assumes PROTOCOL.md §4.7's 241 µs (three writes at 400 kHz), so a one-shot effect lands too.
    public private(set) var romLatency = LatencyCompensator(prior: .microseconds(241))
    /// Program store sizes (CAPABILITIES), nil for a device that did not send them.
    public private(set) var programCapabilities: ThrumWire.DeviceCapabilities?
    /// CAPABILITIES reports received so far (one after each IDENTIFY_REPLY).
    public private(set) var capabilitiesCount = 0
    /// The driver's power state as the device last reported it (STATE); nil before any report
    /// (after reset the driver is awake).
    public private(set) var powerState: StateReport.State?
    /// The last CALIBRATION_RESULT this connection, nil before any.
    public private(set) var calibrationResult: CalibrationReport?
    /// Calibration results received so far (counts reruns).
    public private(set) var calibrationCount = 0
    /// The calibration words the driver was last known to hold on this device: those of the last
    /// passed CALIBRATION_RESULT, or the ones last restored (``restoreCalibration(_:)``). Kept
    /// across ``reconnect()``, so a device that rebooted can get them back; nil before any.
    public internal(set) var keptCalibration: CalibrationWords?
    /// Whether the driver is calibrating (STATE calibrating seen, no result since).
    public var isCalibrating: Bool { powerState == .calibrating }
    private let endpointName: String
    /// The device its engines share (``SharedDevice/of(session:profile:configuration:runMode:)``).
    weak var sharedDevice: SharedDevice?
    let sharedDeviceLock = NSLock()

    /// Creates a session over `pump`; `endpointName` names the device in error messages.
    public init(pump: any LinkPump, endpointName: String, configuration: Configuration = Configuration()) {
        self.pump = pump
        self.configuration = configuration
        self.endpointName = endpointName
        var linkConfiguration = configuration.link
        // What the port knows of the line (a UART at the rate it set) bounds the clock's legs.
        if linkConfiguration.clock.lineByteTime == nil { linkConfiguration.clock.lineByteTime = pump.lineByteTime }
        link = LinkSession(clock: pump.clock, configuration: linkConfiguration)
    }

    var now: HostTime { pump.clock.now() }
    /// Segments preloaded per program slot (the store is shared by all slots).
    var slotSizes: [UInt8: Int] = [:]
    /// Which preload each slot holds (``PreloadedProgram`` staleness).
    var loads: [UInt8: Int] = [:]
    var preloadCounter = 0

    /// Connects: sends IDENTIFY until the device answers or the connect timeout passes.
    @discardableResult
    public func open() throws(EngineError) -> DeviceIdentity {
        identifiedOnLink = false
        link.connect()
        // the link waits on past its attempts while the device is busy with an earlier exchange
        // (a slow line's queued answers): the link bounds that wait and fails with its reason
        let patience = link.configuration.identifyPatience + link.configuration.identifyRetryInterval * 2
        let deadline = now + max(configuration.connectTimeout, patience)
        try pumpWhile(until: deadline) { self.connectedIdentity == nil && !self.linkFailed }
        guard let identity = connectedIdentity else {
            if case .failed(.unsupportedProtocol(let version)) = link.state {
                throw .linkFailed(reason: "the device speaks protocol version \(version); this host speaks versions \(ProtocolConstants.oldestProtocolVersion)…\(ProtocolConstants.protocolVersion)")
            }
            throw .deviceDidNotAnswer(endpoint: endpointName, attempts: link.configuration.identifyAttempts)
        }
        self.identity = identity
        watchRoundTrip()
        return identity
    }

    /// Sends the driver configuration derived from an actuator profile: its SAMPLE_TIME first
    /// (CONFIGURE_SAMPLE_TIME, written by the set-up CONFIGURE_DRIVER then makes), then the rest.
    public func configureDriver(_ registers: DriverRegisters) {
        link.send(.configureSampleTime(code: registers.sampleTime))
        link.send(
            .configureDriver(
                DriverConfiguration(
                    ratedVoltage: registers.ratedVoltage, odClamp: registers.overdriveClamp,
                    driveTime: registers.driveTime, olLraPeriod: registers.openLoopPeriod)))
    }

    /// Pings until the clock model has enough samples to schedule in device time.
    public func synchronizeClock() throws(EngineError) {
        let deadline = now + configuration.connectTimeout
        while link.clock.sampleCount < configuration.primeSamples {
            if now >= deadline { throw .clockDidNotConverge(samples: link.clock.sampleCount) }
            link.sendPingIfCarried()
            try pumpFor(configuration.primeInterval)
        }
    }

    /// Synchronizes the clock afresh after the link was left unrun (``HapticEngine/Configuration/idleResynchronization``):
    /// the ACKs of frames sent before the gap give no timing sample (their wait is the gap, not a
    /// round trip), what the device sent meanwhile is read, and pings go out until
    /// ``Configuration/primeSamples`` new samples came back and the clock model has converged and
    /// settled, for at most ``Configuration/connectTimeout``. A device that does not answer in that
    /// time is left to the run (it fails there as it would anyway).
    public func resynchronizeClock() throws(EngineError) {
        link.forgetTimingOfFramesInFlight()
        let first = link.statistics.roundTripSamples
        let deadline = now + configuration.connectTimeout
        while now < deadline {
            let fresh = link.statistics.roundTripSamples - first
            if fresh >= configuration.primeSamples, link.clock.isConverged, !link.clock.isSettling { return }
            link.sendPingIfCarried()
            try pumpFor(configuration.primeInterval)
        }
    }

    /// The widest guaranteed clock bracket a start should be placed on: the host asks for the
    /// middle of it, so a start can land up to half of it from its time on the host's clock, and
    /// an onset more than ``DevicePlacement/mistimedTolerance`` (1 ms) beyond its own bracket is
    /// judged mistimed. Twice that tolerance keeps the placement's own error inside it.
    public static let clockWidthForStarts = HostDuration.milliseconds(2)

    /// How many fresh clock samples in a row may leave the bracket no narrower (by at least a
    /// tenth) before a start's narrowing gives up (``narrowClockForStart()``).
    public static let narrowingPatience = 4

    /// The width of the clock model's guaranteed bracket at host time `time`.
    func clockWidth(at time: HostTime) -> DeviceDuration {
        let bracket = link.clock.bounds(at: time)
        return bracket.upperBound - bracket.lowerBound
    }

    /// Pings until the clock model's guaranteed bracket now (``ClockModel/bounds(at:)``) is at most
    /// `width` wide, for at most `timeout`; returns either way (a wider bracket is left to the
    /// run: its onsets' bounds say how far they may be off). After a bulk transfer whose ACKs
    /// came back behind long replies (a library read), the window holds only slow return legs,
    /// and a start placed on it can land milliseconds from its time (docs/timing.md).
    /// With `patience`, it also stops once that many fresh samples in a row left the bracket no
    /// narrower than a tenth below the narrowest seen so far: the link cannot do better now (an
    /// FTDI bridge's 16 ms latency timer, a lasting asymmetry), and pinging on would only delay.
    public func narrowClock(
        toWidth width: HostDuration = clockWidthForStarts, timeout: HostDuration = .milliseconds(500), patience: Int? = nil
    ) throws(EngineError) {
        let deadline = now + timeout
        let target = DeviceDuration.microseconds(Int64(width.microseconds))
        var narrowest = clockWidth(at: now)
        var counted = link.statistics.roundTripSamples
        var stale = 0
        while now < deadline {
            let current = clockWidth(at: now)
            if link.clock.sampleCount > 0, current <= target { return }
            if let patience {
                let fresh = link.statistics.roundTripSamples - counted
                counted += fresh
                if fresh > 0 {
                    if current.microseconds * 10 < narrowest.microseconds * 9 {
                        narrowest = current
                        stale = 0
                    } else {
                        stale += fresh
                        if stale >= patience { return }
                    }
                }
            }
            link.sendPingIfCarried()
            try pumpFor(configuration.primeInterval)
        }
    }

    /// Narrows the clock before a play's first drive is placed on it: the start goes to the
    /// middle of the bracket, and the schedule then follows the model only by slewing (20 ppm),
    /// so a start placed on a wide bracket — slow return legs while connecting or calibrating —
    /// stays off by up to half its width for the whole play (docs/timing.md, "A whole play
    /// offset"). Pings until the bracket is at most ``clockWidthForStarts`` wide, or
    /// ``narrowingPatience`` fresh samples in a row did not narrow it, for at most 500 ms.
    /// Costs nothing when the bracket is narrow already.
    public func narrowClockForStart() throws(EngineError) {
        try narrowClock(patience: Self.narrowingPatience)
    }

    /// How much earlier to schedule device times for the fixed latency the device has shown so
    /// far; zero when compensation is off.
    public var latencyCorrection: DeviceDuration { configuration.compensateLatency ? latency.correction : .zero }

    /// Learns the device's fixed latency from one on-time onset: its reported time and the
    /// device start the segment was sent with (`intended` is after the correction was applied,
    /// so the difference is the whole latency).
    public func observeLatency(onset: DeviceTime, intended: DeviceTime) {
        latency.observe(onset: onset, scheduled: intended)
    }

    /// The same for a ROM effect's onset (its fixed latency is three register writes).
    public func observeROMLatency(onset: DeviceTime, intended: DeviceTime) {
        romLatency.observe(onset: onset, scheduled: intended)
    }

    /// The correction (earlier) for ROM effect starts; zero when compensation is off.
    public var romLatencyCorrection: DeviceDuration { configuration.compensateLatency ? romLatency.correction : .zero }

    /// The lead rule in force: the configured policy, or one whose retransmission lead is fixed.
    public var leadPolicy: LeadTimePolicy { configuration.leadPolicy ?? .fixed(configuration.leadTime) }

    /// The lead a start on this link is given now by an engine with the default render chunk and
    /// restart margin (``LeadTimePolicy/lead(on:chunk:minimumRestart:)``, the rule the engine uses).
    public var currentLeadTime: HostDuration { leadPolicy.lead(on: link, queueSlots: identity.map { Int($0.queueSlots) }) }

    /// What this link's round trip costs streamed drive on this device, in one line, or nil when
    /// the device's queue covers it in the default render chunk (``roundTripWarningNow(atConnect:)``).
    public var roundTripLimit: String? { roundTripWarningNow(atConnect: true)?.message }

    /// What this link's round trip costs streamed drive on this device now, or nil when the
    /// device's queue covers it in the default render chunk: its queue slots must cover two
    /// round trips of streamed segments (``LeadTimePolicy/renderChunk(on:chunk:queueSlots:)``),
    /// so a held level is streamed in longer chunks and denser drive (many short segments, such
    /// as transients every few tens of milliseconds) can arrive after its time (docs/timing.md,
    /// "A very long round trip").
    func roundTripWarningNow(atConnect: Bool) -> RoundTripWarning? {
        guard let identity, identity.queueSlots > 0, link.statistics.roundTripSamples > 0 else { return nil }
        let chunk = leadPolicy.renderChunk(on: link, queueSlots: Int(identity.queueSlots))
        guard chunk > LeadTimePolicy.defaultChunk else { return nil }
        let roundTrip = link.statistics.smoothedRoundTrip
        let rate = Int((Double(identity.queueSlots) / (2 * roundTrip.seconds)).rounded(.down))
        return RoundTripWarning(
            hostTime: now, roundTrip: roundTrip, queueSlots: Int(identity.queueSlots), segmentsPerSecond: rate, chunk: chunk,
            densestSpacing: .milliseconds(Int64(max(1, 6_000 / max(rate, 1)))), atConnect: atConnect, previousRoundTrip: nil,
            endpointName: endpointName)
    }

    /// The long round trips said on this session so far (``RoundTripWatch``), oldest first: at
    /// connect, and when the smoothed round trip first crossed the limit later or grew half as
    /// long again a second or more after the last.
    public var roundTripWarnings: [RoundTripWarning] { roundTripWatch.warnings }

    /// Called with each ``RoundTripWarning`` as it is found (from the thread that runs the link).
    public var roundTripWarningHandler: ((RoundTripWarning) -> Void)?
    private var roundTripWatch = RoundTripWatch()
    /// The link's round-trip samples when the watch last looked (it looks again only at a new one).
    private var roundTripSamplesWatched = 0

    /// Looks at the smoothed round trip when a new sample came: a warning when it is to be said.
    /// The first look with a measured round trip and a known queue is the connect's.
    private func watchRoundTrip() {
        let samples = link.statistics.roundTripSamples
        guard identity != nil, samples != roundTripSamplesWatched else { return }
        let atConnect = roundTripSamplesWatched == 0 && roundTripWatch.warnings.isEmpty
        roundTripSamplesWatched = samples
        if let warning = roundTripWatch.consider(roundTripWarningNow(atConnect: atConnect)) { roundTripWarningHandler?(warning) }
    }

    /// Stops output at once (any-lane STOP) and lets the frame go out.
    public func stop() throws(EngineError) {
        link.sendImmediately(.stop)
        try pumpFor(.milliseconds(2))
    }

    /// Ends this host's session at a normal close (PROTOCOL.md §3.8): RELEASE, and the frame goes
    /// out, so that the device's watchdog reports no fault when the host falls silent. Nothing for
    /// a device older than version 5, or a link that failed (a device taken by another host).
    public func release() {
        guard case .connected = link.state, link.sessionConfirmed else { return }
        link.release()
        try? pumpFor(.milliseconds(2))
    }

    // MARK: Pumping

    private var connectedIdentity: DeviceIdentity? {
        if case .connected(let identity) = link.state { return identity }
        return nil
    }

    private var linkFailed: Bool {
        if case .failed = link.state { return true }
        return false
    }

    func pumpFor(_ duration: HostDuration) throws(EngineError) {
        let deadline = now + duration
        try pumpWhile(until: deadline) { true }
    }

    /// Runs the pump once: exchanges bytes and runs link timers until `deadline` or until bytes
    /// arrive from the device, then hands device events to ``deviceEventHandler``.
    /// - Throws: `.transport` when the transport fails, `.linkFailed` when the link gave up.
    public func runOnce(until deadline: HostTime) throws(EngineError) {
        do {
            try pump.run(link, until: deadline)
        } catch {
            throw .transport(error)
        }
        drainDeviceEvents()
        if case .failed(let failure) = link.state { throw EngineError(failure) }
    }

    /// The pump when its waits can happen apart from the link (a ``ThrumLink/TransportPump`` over a
    /// ``ThrumLink/WakeableTransport``): then ``exchangeNow()`` and
    /// ``waitForInput(until:orWoken:)`` split ``runOnce(until:)`` around a wait without the lock.
    public var pumpWaitingApart: TransportPump? {
        guard let pump = pump as? TransportPump, pump.waitsApart else { return nil }
        return pump
    }

    /// ``runOnce(until:)`` without the wait: writes what is queued, takes what has arrived, runs
    /// the link's due timers, hands device events on. Needs ``pumpWaitingApart``.
    /// - Throws: as ``runOnce(until:)``.
    public func exchangeNow() throws(EngineError) {
        guard let pump = pumpWaitingApart else { return try runOnce(until: now) }
        do {
            try pump.exchange(link)
        } catch {
            throw .transport(error)
        }
        drainDeviceEvents()
        if case .failed(let failure) = link.state { throw EngineError(failure) }
    }

    /// Writes what the link has queued (frames a caller just queued), without reading.
    /// - Throws: `.transport` when the transport fails.
    public func flushOutgoing() throws(EngineError) {
        guard let pump = pumpWaitingApart else { return }
        do {
            try pump.flush(link)
        } catch {
            throw .transport(error)
        }
    }

    /// Starts over with a fresh link (new sequence numbers and a new clock model), for a device
    /// that rebooted: connects, reconfigures nothing (callers do) and returns the new identity.
    @discardableResult
    public func reconnect() throws(EngineError) -> DeviceIdentity {
        link = link.successor()
        identity = nil
        programCapabilities = nil
        powerState = nil
        calibrationResult = nil
        slotSizes = [:]
        loads = [:]
        roundTripSamplesWatched = 0
        return try open()
    }

    func pumpWhile(until deadline: HostTime, _ pending: () -> Bool) throws(EngineError) {
        while pending() && now < deadline {
            do {
                try pump.run(link, until: deadline)
            } catch {
                throw .transport(error)
            }
            drainDeviceEvents()
            switch link.state {
            case .failed(.deviceNotResponding), .failed(.unsupportedProtocol):
                return  // open() turns these into their own errors
            case .failed(let failure):
                throw EngineError(failure)
            default:
                break
            }
        }
    }

    private func drainDeviceEvents() {
        for event in link.takeDeviceEvents() {
            switch event {
            case .identified: identifiedOnLink = true
            case .fault(let report) where !identifiedOnLink:
                earlierFaults.append(report)
                continue
            case .fault(let report): faults.append(report)
            case .capabilities(let caps):
                programCapabilities = caps
                capabilitiesCount += 1
            case .powerState(let report):
                if let state = report.knownState { powerState = state }
            case .calibrated(let report):
                calibrationResult = report
                calibrationCount += 1
                keptCalibration = report.passed ? report.words : nil
                if powerState == .calibrating { powerState = .ready }
            default: break
            }
            deviceEventHandler?(event)
        }
        watchRoundTrip()
    }
}
