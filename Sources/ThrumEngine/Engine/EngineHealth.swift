import ThrumLink
import ThrumTime
import ThrumWire

/// How the link to a device stands, read at one instant (``HapticEngine/linkHealth``,
/// ``DeviceSession/linkHealth``): its round trip, the clock model (offset, drift, bound), the
/// device's USB frame count, the queue and the faults. A value: read it again for fresh figures.
public struct LinkHealth: Sendable, Equatable {
    /// When it was read, on the host clock the engine's time reads.
    public var hostTime: HostTime
    /// Whether the link is connected (identified, sequenced traffic flowing).
    public var isConnected: Bool
    /// The smoothed round trip (RFC 6298's SRTT); zero before the first sample. An ACK that waited
    /// in the port while nothing ran the link (a manual engine left idle) is no sample.
    public var roundTrip: HostDuration
    /// Its variation (RFC 6298's RTTVAR).
    public var roundTripVariation: HostDuration
    /// The link's counters (bytes, frames, retransmissions, bad frames, departures…).
    public var statistics: LinkStatistics
    /// The device clock the clock model maps ``hostTime`` to (the device's µs counter, extended
    /// past its 32-bit wrap).
    public var deviceTime: DeviceTime
    /// The clock model's drift of the device crystal against the host clock, ppm.
    public var driftPPM: Double
    /// The drift the clock samples allow at all, ppm; nil before two samples bound it.
    public var driftBoundsPPM: ClosedRange<Double>?
    /// The clock model's error estimate: how far its device time may be from the truth.
    public var clockBound: HostDuration
    /// Clock samples in the model's window.
    public var clockSamples: Int
    /// Whether the clock model has converged (enough samples, a small enough error).
    public var clockConverged: Bool
    /// Clock samples that contradicted the ones before them (a stalled or stepped device clock):
    /// bounds read across one are suspect (``OnsetRecord/boundSuspect``).
    public var clockContradictions: Int
    /// USB start-of-frame reports the device sent (0: no native USB, or protocol < 3).
    public var frameReports: Int
    /// The device crystal against the USB frame grid, ppm, once enough reports span it; nil before.
    public var frameDriftPPM: Double?
    /// The time of one byte on the line (µs) when the port knows it (a UART), nil otherwise.
    public var lineByteTime: Double?
    /// Frames waiting to be sent on the sequenced lane.
    public var framesPending: Int
    /// Sequenced frames sent and not yet acknowledged.
    public var framesInFlight: Int
    /// Device queue slots this host may still fill (``ThrumLink/LinkSession/queueCredits``).
    public var queueCredits: Int
    /// The device's queue size (IDENTIFY_REPLY), nil before it identified.
    public var queueSlots: Int?
    /// How far ahead of now drive is queued for the device (an engine's read only; nil from a
    /// session, or when nothing is queued).
    public var queuedAhead: HostDuration?
    /// The lead the next start is scheduled with.
    public var leadTime: HostDuration
    /// Faults the device reported during this connection, oldest first.
    public var faults: [FaultReport]
    /// Faults it reported from before this connection (not this run's).
    public var earlierFaults: [FaultReport]
    /// The long round trips said so far (``RoundTripWarning``), oldest first.
    public var roundTripWarnings: [RoundTripWarning]

    /// Device clock minus host clock at ``hostTime`` (their origins differ: the offset of the
    /// mapping, not a latency).
    public var clockOffset: HostDuration { .microseconds(deviceTime.microseconds) - (hostTime - .zero) }
    /// Queue entries the device holds, as far as the host knows (``queueSlots`` less ``queueCredits``).
    public var queueDepth: Int? { queueSlots.map { max(0, $0 - queueCredits) } }

    init(session: DeviceSession, leadTime: HostDuration, queuedAhead: HostDuration?) {
        let link = session.link
        let now = session.pump.clock.now()
        let stats = link.statistics
        hostTime = now
        if case .connected = link.state { isConnected = true } else { isConnected = false }
        roundTrip = stats.smoothedRoundTrip
        roundTripVariation = stats.roundTripVariation
        statistics = stats
        deviceTime = link.clock.deviceTime(at: now)
        driftPPM = link.clock.driftPPM
        driftBoundsPPM = link.clock.driftBoundsPPM
        clockBound = link.clock.errorEstimate
        clockSamples = link.clock.sampleCount
        clockConverged = link.clock.isConverged
        clockContradictions = link.clock.contradictions
        frameReports = link.frameClock.samples.count
        frameDriftPPM = link.frameClock.driftPPM
        lineByteTime = link.configuration.clock.lineByteTime
        framesPending = link.pendingCount
        framesInFlight = link.framesInFlight
        queueCredits = link.queueCredits
        queueSlots = session.identity.map { Int($0.queueSlots) }
        self.queuedAhead = queuedAhead
        self.leadTime = leadTime
        faults = session.faults
        earlierFaults = session.earlierFaults
        roundTripWarnings = session.roundTripWarnings
    }
}

/// What a device said about itself and the state it last reported (``HapticEngine/deviceStatus``,
/// ``DeviceSession/status``): identity (driver, firmware, protocol, device id), capabilities, the
/// driver's calibration and power state, faults.
public struct DeviceStatus: Sendable, Equatable {
    /// IDENTIFY_REPLY (driver, firmware version, protocol version, device id, queue, buffers);
    /// nil before the device identified.
    public var identity: DeviceIdentity?
    /// What the device supports (from the identity and CAPABILITIES); nil before it identified.
    public var capabilities: DeviceCapabilities?
    /// The device's last CAPABILITIES report (program store, the driver's calibration since
    /// reset); nil for a device that sends none. The device sends one after IDENTIFY_REPLY and
    /// when asked (``DeviceSession/refreshCapabilities()``): a calibration run since is in
    /// ``calibrationResult``, not here.
    public var programCapabilities: ThrumWire.DeviceCapabilities?
    /// What the driver held since reset at the last CAPABILITIES report: none, measured or
    /// restored; nil for a code this host does not know or no report.
    public var driverCalibration: DriverCalibration?
    /// Whether the device knows RESTORE_CALIBRATION (protocol 2 or later).
    public var canRestoreCalibration: Bool
    /// The last CALIBRATION_RESULT this connection, nil before any.
    public var calibrationResult: CalibrationReport?
    /// The calibration words the driver was last known to hold (kept across a reconnect).
    public var keptCalibration: CalibrationWords?
    /// The driver's power state as last reported (nil: none since connect; awake after reset).
    public var powerState: StateReport.State?
    /// Faults the device reported during this connection, oldest first.
    public var faults: [FaultReport]
    /// Faults it reported from before this connection.
    public var earlierFaults: [FaultReport]

    /// Whether the device reports that its driver holds a passed calibration since reset.
    public var calibratedSinceReset: Bool { programCapabilities?.calibrated ?? false }

    init(session: DeviceSession) {
        identity = session.identity
        capabilities = session.identity.map { DeviceCapabilities(identity: $0, program: session.programCapabilities) }
        programCapabilities = session.programCapabilities
        driverCalibration = session.programCapabilities?.calibration
        canRestoreCalibration = session.canRestoreCalibration
        calibrationResult = session.calibrationResult
        keptCalibration = session.keptCalibration
        powerState = session.powerState
        faults = session.faults
        earlierFaults = session.earlierFaults
    }
}

extension DeviceSession {
    /// The link's figures now (``LinkHealth``), with the lead the session would schedule with.
    /// Read it on the thread that runs the session; for an engine's session read
    /// ``HapticEngine/linkHealth``.
    public var linkHealth: LinkHealth { LinkHealth(session: self, leadTime: currentLeadTime, queuedAhead: nil) }

    /// What the device said about itself and last reported (``DeviceStatus``).
    public var status: DeviceStatus { DeviceStatus(session: self) }

    /// The device time the clock model maps host time `time` to.
    public func deviceTime(at time: HostTime) -> DeviceTime { link.clock.deviceTime(at: time) }

    /// Runs the link until a device that reports USB start-of-frame times has sent enough of them
    /// to count its crystal against the frame grid (they need to span 200 frames), or `timeout`
    /// passed; returns at once for a device that sent none (``LinkHealth/frameDriftPPM``).
    /// - Throws: as ``runOnce(until:)``.
    public func awaitFrameCount(timeout: HostDuration) throws(EngineError) {
        let deadline = now + timeout
        while !link.frameClock.samples.isEmpty, !link.frameClock.isFitted, now < deadline {
            try runOnce(until: min(deadline, now + .milliseconds(10)))
        }
    }
}
