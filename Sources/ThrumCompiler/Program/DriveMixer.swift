import ThrumTime

/// One linear stretch of a drive envelope on some timeline: from `start` to `end` µs (exclusive)
/// the level goes linearly from `from` to `to` (0…1, 1 = the rated voltage).
///
/// Times are raw µs from the timeline's time 0 (the mixer's inner loops work on them). The typed
/// view says which timeline: ``startOffset`` and ``endOffset`` on a pattern's (its time 0), or
/// ``startTime`` and ``endTime`` on the engine's schedule (time 0 the engine's clock origin:
/// the drive the engine mixes its players on).
public struct EnvelopeRamp: Equatable, Sendable {
    /// Start, µs from the timeline's time 0.
    public var start: Int64
    /// End (exclusive), µs from the timeline's time 0.
    public var end: Int64
    /// Level at `start`.
    public var from: Double
    /// Level at `end`.
    public var to: Double

    /// Creates a ramp; `end` must be after `start`.
    public init(start: Int64, end: Int64, from: Double, to: Double) {
        self.start = start
        self.end = end
        self.from = from
        self.to = to
    }

    /// Creates a ramp from `start` to `end` (after `start`) on its timeline.
    @inlinable
    public init(start: PatternOffset, end: PatternOffset, from: Double, to: Double) {
        self.init(start: start.microseconds, end: end.microseconds, from: from, to: to)
    }

    /// Where the ramp starts on its timeline (``start``, typed).
    @inlinable public var startOffset: PatternOffset { PatternOffset(microseconds: start) }
    /// Where the ramp ends on its timeline, exclusive (``end``, typed).
    @inlinable public var endOffset: PatternOffset { PatternOffset(microseconds: end) }

    /// The level at offset `t` (clamped to the ramp).
    @inlinable public func value(at t: PatternOffset) -> Double { value(at: t.microseconds) }

    /// Creates a ramp from engine time `start` to `end` (after `start`): on the engine's schedule.
    @inlinable
    public init(start: EngineTime, end: EngineTime, from: Double, to: Double) {
        self.init(start: start.microseconds, end: end.microseconds, from: from, to: to)
    }

    /// Where a ramp on the engine's schedule starts (``start``, typed).
    @inlinable public var startTime: EngineTime { EngineTime(microseconds: start) }
    /// Where a ramp on the engine's schedule ends, exclusive (``end``, typed).
    @inlinable public var endTime: EngineTime { EngineTime(microseconds: end) }

    /// The level of a ramp on the engine's schedule at engine time `t` (clamped to the ramp).
    @inlinable public func value(at t: EngineTime) -> Double { value(at: t.microseconds) }

    /// The level at `t` (clamped to the ramp).
    public func value(at t: Int64) -> Double {
        if from == to || t <= start { return from }
        if t >= end { return to }
        return from + (to - from) * Double(t - start) / Double(end - start)
    }

    /// The ramp of a drive segment shifted by `offset` µs (amplitude bytes scaled to 0…1).
    public init(_ segment: DriveSegment, offset: Int64 = 0) {
        self.init(
            start: segment.start + offset, end: segment.end + offset, from: Double(segment.from) / 255,
            to: Double(segment.to) / 255)
    }

    /// The ramp of a compiled segment (on its pattern's timeline) on the engine's schedule, when
    /// the pattern's time 0 plays at engine time `origin` (``ThrumTime/PatternOffset/engineTime(origin:)``;
    /// amplitude bytes scaled to 0…1).
    @inlinable public init(_ segment: DriveSegment, origin: EngineTime) {
        self.init(segment, offset: origin.microseconds)
    }
}

/// Mixes several drive envelopes into device segments with the compiler's own mixing rule and
/// segmenter (`docs/semantics.md` §6 and §8): the streaming engine uses it to combine the players
/// that share one actuator exactly as the compiler combines the events of one pattern.
public struct DriveMixer: Sendable {
    /// An onset to mark: the segment starting at `time` carries `id`.
    public struct Mark: Equatable, Sendable {
        /// Where the marked segment starts, µs from the timeline's time 0 (typed: ``offset``).
        public var time: Int64
        /// The onset id the segment carries.
        public var id: UInt32
        /// Creates a mark at `time` µs.
        public init(time: Int64, id: UInt32) {
            self.time = time
            self.id = id
        }
        /// Creates a mark at offset `time`.
        @inlinable public init(time: PatternOffset, id: UInt32) { self.init(time: time.microseconds, id: id) }
        /// Where the marked segment starts (``time``, typed).
        @inlinable public var offset: PatternOffset { PatternOffset(microseconds: time) }
        /// Creates a mark at engine time `time` (drive on the engine's schedule).
        @inlinable public init(time: EngineTime, id: UInt32) { self.init(time: time.microseconds, id: id) }
        /// Where the marked segment starts on the engine's schedule (``time``, typed).
        @inlinable public var engineTime: EngineTime { EngineTime(microseconds: time) }
    }

    /// The mixing rule and the step that approximates non-linear mixes.
    public let options: CompileOptions

    /// Creates a mixer with `options.mixing` and `options.curveStep`.
    public init(options: CompileOptions = CompileOptions()) { self.options = options }

    /// ``segments(mixing:marks:from:to:)-(_,_,Int64,_)`` with the window as offsets.
    @inlinable
    public func segments(mixing ramps: [EnvelopeRamp], marks: [Mark], from: PatternOffset, to: PatternOffset) -> [DriveSegment] {
        segments(mixing: ramps, marks: marks, from: from.microseconds, to: to.microseconds)
    }

    /// ``segments(mixing:marks:from:to:)-(_,_,Int64,_)`` on the engine's schedule: ramps, marks
    /// and the window in engine time, and so are the segments returned (``DriveSegment/startTime``).
    @inlinable
    public func segments(mixing ramps: [EnvelopeRamp], marks: [Mark], from: EngineTime, to: EngineTime) -> [DriveSegment] {
        segments(mixing: ramps, marks: marks, from: from.microseconds, to: to.microseconds)
    }

    /// The segments of the mix of `ramps` (any order, any overlap) restricted to `[from, to)`:
    /// ramps are clipped to the window, overlapping ones combine by the mixing rule, amplitudes are
    /// quantised, `marks` inside the window start their own segments, and a silence inside the
    /// window opens with an explicit zero. Nothing starts at or after `to`.
    public func segments(mixing ramps: [EnvelopeRamp], marks: [Mark], from: Int64, to: Int64) -> [DriveSegment] {
        var pieces: [Piece] = []
        pieces.reserveCapacity(ramps.count)
        for r in ramps {
            let a = max(r.start, from), b = min(r.end, to)
            guard b > a else { continue }
            pieces.append(Piece(t0: a, t1: b, v0: r.value(at: a), v1: r.value(at: b)))
        }
        // A mark must start a piece: split the pieces that straddle it.
        let cuts = marks.map(\.time).filter { $0 > from && $0 < to }.sorted()
        if !cuts.isEmpty {
            var split: [Piece] = []
            split.reserveCapacity(pieces.count + cuts.count)
            for p in pieces {
                var current = p
                for c in cuts where c > current.t0 && c < current.t1 {
                    split.append(Piece(t0: current.t0, t1: c, v0: current.v0, v1: current.value(at: c)))
                    current = Piece(t0: c, t1: current.t1, v0: current.value(at: c), v1: current.v1)
                }
                split.append(current)
            }
            pieces = split
        }
        pieces.sort { $0.t0 < $1.t0 }
        let mixer = Mixer(mode: options.mixing, step: max(1, Int64((options.curveStep * 1e6).rounded())))
        let mixed = mixer.mix(pieces)
        let sortedMarks = marks.filter { $0.time >= from && $0.time < to }.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
            .map { Segmenter.Mark(time: $0.time, id: $0.id) }
        return Segmenter().segments(mixed, marks: sortedMarks).filter { $0.start < to }
    }
}
