import ThrumPattern
import ThrumTime

/// One linear amplitude ramp of the drive, the host-side form of the protocol's SEGMENT.
///
/// Times are kept as raw microseconds (``start``, ``duration``), the form the mixer's inner loops,
/// the wire codec and the library packer work in. The typed view says which timeline the segment
/// is on: a compiled pattern's (``startOffset``, ``endOffset``: ``ThrumTime/PatternOffset``, which
/// the engine moves onto its schedule with ``ThrumTime/PatternOffset/engineTime(origin:)``), or
/// the engine's schedule (``startTime``, ``endTime``: ``ThrumTime/EngineTime``, the drive the
/// engine mixes and streams); ``length`` on either.
public struct DriveSegment: Equatable, Sendable {
    /// Start in µs relative to the time 0 of the timeline the segment is on (a compiled pattern's:
    /// pattern time 0); negative when an onset is pre-shifted. Typed: ``startOffset``.
    public var start: Int64
    /// Length in µs, 1 … 1 000 000.
    public var duration: UInt32
    /// Amplitude at `start` (0 = no drive, 255 = the rated voltage in closed loop).
    public var from: UInt8
    /// Amplitude at `start + duration`.
    public var to: UInt8
    /// The haptic event whose onset this segment marks, or 0.
    public var eventID: UInt32

    /// Creates a segment.
    public init(start: Int64, duration: UInt32, from: UInt8, to: UInt8, eventID: UInt32 = 0) {
        self.start = start
        self.duration = duration
        self.from = from
        self.to = to
        self.eventID = eventID
    }

    /// Creates a segment starting at `start` on its timeline.
    @inlinable
    public init(startOffset start: PatternOffset, duration: UInt32, from: UInt8, to: UInt8, eventID: UInt32 = 0) {
        self.init(start: start.microseconds, duration: duration, from: from, to: to, eventID: eventID)
    }

    /// End time in µs (exclusive).
    public var end: Int64 { start + Int64(duration) }

    /// µs from the start to the segment's first drive as the device plays it (PROTOCOL.md §4.1):
    /// for a ramp up from 0, the instant its rounded amplitude reaches 1,
    /// `ceil(duration / (2 × to))`, when that falls inside the segment; 0 for every other segment.
    /// (The wire's `SegmentCommand.firstDriveOffset` is the same rule on a command.)
    @inlinable
    public var firstDriveOffset: Int64 {
        guard from == 0, to > 0 else { return 0 }
        let e1 = (Int64(duration) + 2 * Int64(to) - 1) / (2 * Int64(to))
        return e1 < Int64(duration) ? e1 : 0
    }

    /// Where the segment starts on its timeline (``start``, typed).
    @inlinable public var startOffset: PatternOffset {
        get { PatternOffset(microseconds: start) }
        set { start = newValue.microseconds }
    }
    /// Where the segment ends on its timeline, exclusive (``end``, typed).
    @inlinable public var endOffset: PatternOffset { PatternOffset(microseconds: start + Int64(duration)) }
    /// Creates a segment starting at engine time `start` (drive on the engine's schedule).
    @inlinable
    public init(startTime start: EngineTime, duration: UInt32, from: UInt8, to: UInt8, eventID: UInt32 = 0) {
        self.init(start: start.microseconds, duration: duration, from: from, to: to, eventID: eventID)
    }
    /// Where a segment on the engine's schedule starts (``start``, typed).
    @inlinable public var startTime: EngineTime {
        get { EngineTime(microseconds: start) }
        set { start = newValue.microseconds }
    }
    /// Where a segment on the engine's schedule ends, exclusive (``end``, typed).
    @inlinable public var endTime: EngineTime { EngineTime(microseconds: start + Int64(duration)) }
    /// How long the segment lasts (``duration``, typed).
    @inlinable public var length: EngineDuration { EngineDuration(microseconds: Int64(duration)) }

    /// The interpolated amplitude (0…255, unrounded) at time `t` µs, clamped to the segment.
    public func amplitude(at t: Int64) -> Double {
        let x = Double(min(max(t - start, 0), Int64(duration))) / Double(duration)
        return Double(from) + (Double(to) - Double(from)) * x
    }
}

/// One event of the pattern as compiled.
public struct CompiledEvent: Equatable, Sendable {
    /// 1-based id, unique in the program, assigned in time order; carried by the marking segment.
    public var id: UInt32
    /// Index of the event in `pattern.events`.
    public var patternIndex: Int
    /// The event's type.
    public var type: HapticEvent.EventType
    /// The time the pattern asked for, s.
    public var requestedTime: Double
    /// Electrical onset after the felt-onset pre-shift, µs (the start of the marking segment);
    /// for unplayed (audio) events, the requested time in µs. Typed: ``driveOnsetOffset``.
    public var driveOnset: Int64
    /// False for audio events (kept, not played by the actuator).
    public var played: Bool
    /// Set when the event begins together with an earlier one (layered events at the same time,
    /// drive onsets less than ``PatternCompiler/coincidence`` apart): they mix into one drive
    /// whose single marked segment carries that event's id, and this event's onset is that one's.
    public var sharesOnsetWith: UInt32? = nil
    /// µs from ``driveOnset`` to where the event's drive begins when the pattern asks for no
    /// drive at its onset (an event fading in from zero intensity): its mark sits on the first
    /// segment that drives (`Segmenter.Stream`), this much later. 0 for every other event.
    public var driveDelay: Int64 = 0

    /// Creates a compiled event.
    public init(id: UInt32, patternIndex: Int, type: HapticEvent.EventType, requestedTime: Double, driveOnset: Int64, played: Bool) {
        self.id = id
        self.patternIndex = patternIndex
        self.type = type
        self.requestedTime = requestedTime
        self.driveOnset = driveOnset
        self.played = played
    }

    /// The electrical onset as a pattern offset (``driveOnset``, typed).
    @inlinable public var driveOnsetOffset: PatternOffset {
        get { PatternOffset(microseconds: driveOnset) }
        set { driveOnset = newValue.microseconds }
    }

    /// The pre-shift applied, s (requested time minus drive onset; 0 when unplayed).
    public var preShift: Double { played ? requestedTime - Double(driveOnset) * 1e-6 : 0 }

    /// The requested time minus where the event's drive is planned to begin, s: the pre-shift,
    /// less the ``driveDelay`` of an event that fades in from zero (negative then). An onset
    /// reported at its first drive plus this lands on the requested time when played as planned.
    public var plannedLead: Double { preShift - Double(driveDelay) * 1e-6 }
}

/// Something the compiler changed or ignored, for reporting.
public struct CompileDiagnostic: Equatable, Sendable {
    /// What happened.
    public enum Kind: Equatable, Sendable {
        /// A continuous event longer than the limit was clamped (original and clamped duration, s).
        case continuousDurationClamped(original: Double, clamped: Double)
        /// A parameter curve without control points was ignored.
        case emptyCurveIgnored
        /// A haptic event with a non-finite time or duration, or one beyond `HapticPattern.maximumTime`
        /// or `HapticPattern.maximumDuration`, was listed but not played.
        case invalidEventNotPlayed
    }
    /// What happened.
    public var kind: Kind
    /// Index in `pattern.events` (or `pattern.parameterCurves` for curve diagnostics).
    public var index: Int

    /// Creates a diagnostic.
    public init(kind: Kind, index: Int) {
        self.kind = kind
        self.index = index
    }
}

/// A compiled pattern: the timed drive segments for the device plus the event table.
public struct DriveProgram: Equatable, Sendable {
    /// Drive segments, sorted by start and non-overlapping.
    public var segments: [DriveSegment]
    /// Every event of the pattern (audio ones unplayed), in time order.
    public var events: [CompiledEvent]
    /// Length in s from pattern time 0: the later of the pattern's duration (continuous events
    /// clamped) and the end of the last segment.
    public var duration: Double
    /// The pattern's length as Core Haptics counts it, s: each event's time plus its full
    /// duration — a transient's being the longer of its `EventDuration` and its burst (Core
    /// Haptics: "transient events have an intrinsic short duration"), a continuous event's its
    /// `EventDuration` (its release rings on after) — each parameter's time, each curve's end.
    /// A looping player's period. Nil for programs built by hand: their ``duration``.
    public var loopDuration: Double?
    /// Clamps and omissions made while compiling.
    public var diagnostics: [CompileDiagnostic]

    /// Creates a program.
    public init(
        segments: [DriveSegment], events: [CompiledEvent], duration: Double, loopDuration: Double? = nil,
        diagnostics: [CompileDiagnostic] = []
    ) {
        self.segments = segments
        self.events = events
        self.duration = duration
        self.loopDuration = loopDuration
        self.diagnostics = diagnostics
    }

    /// The drive amplitude (0…255, unrounded) at pattern offset `t`; 0 outside every segment.
    public func amplitude(at t: PatternOffset) -> Double { amplitude(atMicroseconds: t.microseconds) }

    /// The drive amplitude (0…255, unrounded) at time `t` µs; 0 outside every segment.
    public func amplitude(atMicroseconds t: Int64) -> Double {
        var lo = 0, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if segments[mid].start <= t { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return 0 }
        let s = segments[lo - 1]
        return t < s.end ? s.amplitude(at: t) : 0
    }

    /// The drive amplitude as a fraction 0…1 at time `t` seconds.
    public func drive(at t: Double) -> Double {
        amplitude(atMicroseconds: Int64((t * 1e6).rounded(.down))) / 255
    }

    /// The compiled event with this id.
    public func event(id: UInt32) -> CompiledEvent? {
        // The compiler numbers events 1, 2, … in order: look there first.
        let k = Int(id) - 1
        if events.indices.contains(k), events[k].id == id { return events[k] }
        return events.first { $0.id == id }
    }
}
