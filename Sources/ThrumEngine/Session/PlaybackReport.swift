import ThrumCompiler
import ThrumPattern
import ThrumTime

/// What happened when a drive program was played: per event, the requested time and the onset
/// the device reported, plus link figures.
public struct PlaybackReport: Sendable {
    /// One event of the pattern and what the device said about it.
    public struct Event: Sendable {
        /// The compiler's id for the event (1-based, in time order).
        public var id: UInt32
        /// Index of the event in the pattern's event list.
        public var patternIndex: Int
        /// The event's type (audio events are listed but not played).
        public var type: HapticEvent.EventType
        /// When the pattern asks for the event, in seconds of pattern time.
        public var requestedTime: Double
        /// When the event landed, in pattern time: the reported drive onset corrected by the
        /// compiler's planned pre-shift, so it equals `requestedTime` plus the timing error.
        /// Nil when no onset was reported (audio events, or a report that never came).
        public var onsetTime: Double?
        /// The raw reported drive onset (electrical) in pattern time.
        public var driveOnsetTime: Double?
        /// How the device started the event.
        public var status: OnsetStatus
        /// Which pass of a looped playback (0 for the first or only one).
        public var pass: Int = 0
        /// The "±" of ``onsetTime`` (s): half the width of the clock model's guaranteed bracket
        /// around the reported onset (``OnsetRecord/onsetBound``). Nil when not reported.
        public var onsetBound: Double?
        /// Whether ``onsetBound`` may not hold (``OnsetRecord/boundSuspect``): the clock samples
        /// contradicted each other around it.
        public var boundSuspect = false
        /// The device's onset report in its own clock (µs, extended), nil when not reported.
        public var deviceOnset: DeviceTime?
        /// On the virtual device: when the chip really started driving (its first non-zero drive
        /// after the event's intended instant, in the simulation's true time), corrected by the
        /// planned pre-shift like ``onsetTime``, in pattern time. Nil on hardware.
        public var trueOnsetTime: Double?
        /// The same without the pre-shift: the chip's first non-zero drive, pattern time (s).
        public var trueDriveOnsetTime: Double?
        /// The planned pre-shift (felt-onset compensation) of this event, s.
        public var preShift: Double = 0
        /// For a ``OnsetStatus/cutByClockMove`` event: when the schedule restarted on the moved
        /// clock, pattern time (s); what of its drive lay after it played, without its start.
        public var scheduleRestart: Double?

        /// Creates an entry.
        public init(
            id: UInt32, patternIndex: Int, type: HapticEvent.EventType, requestedTime: Double, onsetTime: Double?,
            driveOnsetTime: Double?, status: OnsetStatus, pass: Int = 0
        ) {
            self.id = id
            self.patternIndex = patternIndex
            self.type = type
            self.requestedTime = requestedTime
            self.onsetTime = onsetTime
            self.driveOnsetTime = driveOnsetTime
            self.status = status
            self.pass = pass
        }
    }

    /// How the device started an event.
    public enum OnsetStatus: String, Sendable {
        case onTime = "on_time"
        case lateTrimmed = "late_trimmed"
        case dropped
        case notReported = "not_reported"
        case notPlayed = "not_played"
        /// The device reset at or before the event's time: it never played (or its report was lost with the reset).
        case lostInReset = "lost_in_reset"
        /// The event started, but a device reset cut its drive short.
        case cutByReset = "cut_by_reset"
        /// The host fell behind its queued lead (a stall) and the event's drive reached the
        /// device late or not at all: it did not play (fully) as asked.
        case driveGap = "drive_gap"
        /// The device started it whole at its time on the device's clock, but the onset's
        /// guaranteed bracket on the host's clock lies more than 1 ms from the time asked for: the
        /// device's clock moved after the drive was placed on it (a stall or a step: missed timer
        /// overflows, a starved simulation), or the time it was given was off. Its error says how far.
        case mistimed
        /// The device's clock moved (a stall or a step) under drive already queued on it, and the
        /// host restarted its schedule on the clock as it now is (``Event/scheduleRestart``): the
        /// CUT that replaced the queued drive removed this event's start before the moved clock
        /// reached it, its time already past on the host's clock, so it was not placed again. It
        /// never started; what of its drive lay after the restart played afresh, without an onset.
        case cutByClockMove = "cut_by_clock_move"
        /// A stored preset's event the device refused: it dropped the rest of that preset's play
        /// (FAULT 11 naming the play: an entry would have started before the queue's last one, or
        /// the play was refused while it waited for the one before) before queuing this event, and
        /// no report of it came.
        /// It never played.
        case refusedByDevice = "refused_by_device"
        /// The run was stopped (the user's Ctrl-C or SIGTERM ended `thrum play`) before the
        /// event's drive was to begin: it never played, as the user asked, and no device or link
        /// fault is behind it (``PlaybackReport/markStopped(at:)``). An event that began before
        /// the stop keeps what the device said of it.
        case stopped
    }

    public var events: [Event]
    /// Bytes the host wrote to the link while playing (frames, retransmissions and pings included).
    public var bytesSent: Int
    /// Bytes the device wrote back.
    public var bytesReceived: Int
    /// Segments sent.
    public var segmentCount: Int
    /// Pattern time zero, as a device clock reading (extended to 64 bits).
    public var startDeviceTime: DeviceTime
    /// Pattern length in seconds.
    public var duration: Double
    /// Pattern time zero as the host intended it, in host time (what `startDeviceTime` was
    /// computed from); benchmarks compare the device's true onsets against it.
    public var startHostTime: HostTime = .zero
    /// Faults the host noticed during this run (a device reset, a hole in the drive), times in
    /// pattern seconds. A device's own FAULT reports are in ``DeviceSession/faults``.
    public var faults: [RunFault] = []

    /// Creates a report.
    public init(
        events: [Event], bytesSent: Int, bytesReceived: Int, segmentCount: Int, startDeviceTime: DeviceTime, duration: Double
    ) {
        self.events = events
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.segmentCount = segmentCount
        self.startDeviceTime = startDeviceTime
        self.duration = duration
    }

    /// Marks ``OnsetStatus/stopped`` the haptic events the run stopped before, at `stop` s of
    /// pattern time (`-infinity`: before it started): those with no onset (`not_reported`,
    /// `not_played`) whose drive was to begin (requested time less the pre-shift) at or after
    /// it. One due before the stop with no report stays `not_reported`: its time had come, so a
    /// report lost on the link is as likely as an event never started. Returns how many it marked.
    @discardableResult
    public mutating func markStopped(at stop: Double) -> Int {
        var marked = 0
        for k in events.indices where events[k].type.isHaptic && [.notReported, .notPlayed].contains(events[k].status) {
            guard events[k].onsetTime == nil, events[k].requestedTime - events[k].preShift >= stop else { continue }
            events[k].status = .stopped
            marked += 1
        }
        return marked
    }

    /// Events whose onset was reported.
    public var reportedCount: Int { events.filter { $0.onsetTime != nil }.count }
}
