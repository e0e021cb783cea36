import ThrumPattern

/// Compiles a Core Haptics pattern into a drive program for one actuator: resolves every
/// event's parameters and the pattern's controls (`docs/semantics.md`), shapes transients and
/// continuous envelopes, pre-shifts onsets so the felt onset lands on time, mixes overlapping
/// events and cuts the result into device segments.
public struct PatternCompiler: Sendable {
    /// The actuator compiled for.
    public let profile: ActuatorProfile
    /// Compiler options.
    public let options: CompileOptions
    /// The actuator response model used for the pre-shift.
    public let response: ActuatorResponse

    /// Creates a compiler for an actuator.
    /// Drive onsets closer than this (µs) begin together (``CompiledEvent/sharesOnsetWith``): the
    /// device needs about 73 µs per register write, so two marks this close could not both start
    /// on time, and Core Haptics mixes events that start together into one.
    public static let coincidence: Int64 = 100

    public init(profile: ActuatorProfile, options: CompileOptions = .init()) {
        self.profile = profile
        self.options = options
        self.response = options.response ?? ActuatorResponse(profile: profile)
    }

    /// The mixer of this compiler's options.
    var mixer: Mixer { Mixer(mode: options.mixing, step: max(1, micros(options.curveStep))) }

    /// Compiles a pattern. Never fails: out-of-range values are clamped, overlong continuous
    /// events are shortened (both reported in `diagnostics`), audio events are listed unplayed.
    public func compile(_ pattern: HapticPattern) -> DriveProgram {
        compileDetailed(pattern, keepEventPieces: false).program
    }

    /// The intermediate results, for the preview renderer and tests.
    struct Compilation {
        var program: DriveProgram
        /// Every played event's envelope pieces (drive time, µs), event after event in onset
        /// order (empty unless `keepEventPieces`).
        var pieces: [Piece]
        /// Per played event, in that order: where its pieces start in `pieces` (one more entry
        /// at the end: `pieces.count`), so event i's are `pieces[pieceStart[i]..<pieceStart[i + 1]]`.
        var pieceStart: [Int]
        /// Per played event, in that order: its own sharpness before the control (`EventShape.baseSharpness`).
        var baseSharpness: [Double]
        /// The mixed envelope before quantisation (empty unless `keepEventPieces` and
        /// `segmenting`; without segmenting, `mixer` mixes `pieces` on demand).
        var mixed: [Piece]
        var controls: HapticControls

        /// The number of played events in `pieceStart`.
        var eventCount: Int { baseSharpness.count }
        /// Event i's pieces.
        func pieces(ofEvent i: Int) -> ArraySlice<Piece> { pieces[pieceStart[i]..<pieceStart[i + 1]] }
    }

    /// Compiles `pattern` keeping the intermediate results (with `keepEventPieces`); without
    /// `segmenting`, the program has no segments and no events and the pieces are not mixed (a
    /// preview that needs only the envelopes, and less memory: it mixes them as it reads).
    ///
    /// With `requestedEnvelope` (and without `keepEventPieces`), `pieces`, `pieceStart` and
    /// `baseSharpness` are instead the requested envelope: the events' pieces at their requested
    /// times, as a compiler without the pre-shift makes them (the same shapes, onsets and
    /// coincidences), so a preview gets both from one compilation.
    func compileDetailed(
        _ pattern: HapticPattern, keepEventPieces: Bool = true, segmenting: Bool = true, requestedEnvelope: Bool = false
    ) -> Compilation {
        var pattern = pattern
        return compileDetailed(
            releasing: &pattern, keepEventPieces: keepEventPieces, segmenting: segmenting, requestedEnvelope: requestedEnvelope)
    }

    /// ``compileDetailed(_:keepEventPieces:segmenting:requestedEnvelope:)``, emptying
    /// `pattern.events` as soon as every event is shaped: when the caller held the only
    /// reference, the parsed events (about 170 bytes each) are freed before the pieces and the
    /// segments are built, so a large pattern and its compiled form are never held together.
    func compileDetailed(
        releasing pattern: inout HapticPattern, keepEventPieces: Bool = true, segmenting: Bool = true,
        requestedEnvelope: Bool = false
    ) -> Compilation {
        let controls = HapticControls(pattern)
        let shaper = EventShaper(resonanceHz: profile.datasheet.resonanceHz, maxContinuousDuration: options.maxContinuousDuration)
        let estimator = FeltOnsetEstimator(response: response)
        var shiftCache: [FeltOnsetEstimator.Key: Double] = [:]
        var knotCache = EventShaper.KnotCache()
        var shiftMemo = FeltOnsetEstimator.Memo()
        var diagnostics: [CompileDiagnostic] = []

        // Ids in time order (ties by pattern order).
        func key(_ i: Int) -> Double {
            let t = pattern.events[i].relativeTime
            return t.isNaN ? .infinity : t
        }
        var order = Array(pattern.events.indices)
        if !isSorted(order, by: { (key($0), $0) < (key($1), $1) }) { order.sort { (key($0), $0) < (key($1), $1) } }
        var events: [CompiledEvent] = []
        events.reserveCapacity(order.count)
        var shapes: [EventShape?] = []
        shapes.reserveCapacity(order.count)
        /// With `requestedEnvelope`: the drive's shapes, where `shapes` keeps the requested ones.
        var driveShapes: [EventShape?] = []
        var patternEnd = 0.0
        /// Beyond `patternEnd`: where the last transient's burst ends (its intrinsic duration).
        var loopEnd = 0.0
        // Events read in place through a pointer (no copy of each HapticEvent and its arrays),
        // each event's type compared once.
        pattern.events.withUnsafeBufferPointer { evs in
            guard let base = evs.baseAddress else { return }
            for (rank, i) in order.enumerated() {
                let e = base + i
                let time = e.pointee.relativeTime, duration = e.pointee.duration
                let transient = e.pointee.type == .hapticTransient
                let haptic = transient || e.pointee.type == .hapticContinuous
                var ce = CompiledEvent(id: UInt32(rank + 1), patternIndex: i, type: e.pointee.type, requestedTime: time,
                                       driveOnset: micros(time), played: haptic)
                if ce.played && !(Self.isPlayableTime(time) && Self.isPlayableDuration(duration)) {
                    ce.played = false
                    diagnostics.append(CompileDiagnostic(kind: .invalidEventNotPlayed, index: i))
                }
                guard ce.played else {
                    let end = time + max(0, duration)
                    if Self.isPlayableEnd(end) { patternEnd = max(patternEnd, end) }
                    events.append(ce)
                    shapes.append(nil)
                    if requestedEnvelope && !keepEventPieces { driveShapes.append(nil) }
                    continue
                }
                let (shape, clampedFrom) = shaper.shape(of: e, transient: transient, controls: controls, cache: &knotCache)
                if let original = clampedFrom {
                    diagnostics.append(CompileDiagnostic(
                        kind: .continuousDurationClamped(original: original, clamped: options.maxContinuousDuration), index: i))
                }
                let nominal = transient ? max(0, duration) : min(max(0, duration), options.maxContinuousDuration)
                patternEnd = max(patternEnd, time + nominal)
                if transient { loopEnd = max(loopEnd, time + shape.length) }
                var drive = shape
                if options.feltOnsetCompensation {
                    // The attack moves by the pre-shift, the end by the fall's felt delay (a held drive).
                    let u = HapticSemantics.amplitude(intensity: shape.intensity * controls.intensity.value(at: time))
                    let held = estimator.heldShift(for: shape, amplitude: u, cache: &shiftCache, memo: &shiftMemo)
                    drive.knots = held.knots
                    ce.driveOnset = micros(time - held.shift)
                }
                events.append(ce)
                shapes.append(requestedEnvelope && !keepEventPieces ? shape : drive)
                if requestedEnvelope && !keepEventPieces { driveShapes.append(drive) }
            }
        }
        // Everything later reads the compiled events and the shapes, not the parsed ones.
        order = []
        pattern.events = []
        for p in pattern.parameters where Self.isPlayableEnd(p.relativeTime) { patternEnd = max(patternEnd, p.relativeTime) }
        for (i, c) in pattern.parameterCurves.enumerated() {
            if c.controlPoints.isEmpty {
                diagnostics.append(CompileDiagnostic(kind: .emptyCurveIgnored, index: i))
            }
            let end = c.relativeTime + (c.controlPoints.map(\.relativeTime).max() ?? 0)
            if Self.isPlayableEnd(end) { patternEnd = max(patternEnd, end) }
        }

        // Distinct onsets: a later event sharing an onset moves 1 µs so each gets its own segment.
        // (Onsets copied out so no closure captures `events`, which would box it for the whole function.)
        var played: [Int] = []
        played.reserveCapacity(events.count)
        for j in events.indices where events[j].played { played.append(j) }
        // Requested order (time, then pattern order): the order of a compiler without the pre-shift.
        let requestedOrder = requestedEnvelope && !keepEventPieces ? played : []
        var inOrder = true
        for k in played.indices.dropFirst() {
            let a = events[played[k - 1]], b = events[played[k]]
            if (b.driveOnset, b.id) < (a.driveOnset, a.id) { inOrder = false; break }
        }
        if !inOrder {
            let onsets = events.map { ($0.driveOnset, $0.id) }
            played.sort { onsets[$0] < onsets[$1] }
        }
        var marks: [Segmenter.Mark] = []
        marks.reserveCapacity(played.count)
        var previous = Int64.min
        var leader: UInt32 = 0
        for j in played {
            // Layered events (onsets closer than one register write can resolve) begin as one:
            // they share the earlier onset, mix into one drive, and its mark reports for both.
            if previous != .min && events[j].driveOnset - previous < Self.coincidence {
                events[j].driveOnset = previous
                events[j].sharesOnsetWith = leader
                continue
            }
            previous = events[j].driveOnset
            leader = events[j].id
            marks.append(Segmenter.Mark(time: previous, id: events[j].id))
        }

        // Envelope pieces per event.
        var all: [Piece] = []
        all.reserveCapacity(played.count * 4)
        var pieceStart: [Int] = [], baseSharpness: [Double] = []
        if keepEventPieces {
            pieceStart.reserveCapacity(played.count + 1)
            baseSharpness.reserveCapacity(played.count)
        }
        for j in played {  // onset order, so the mixer's sort is nearly free
            guard let shape = driveShapes.isEmpty ? shapes[j] : driveShapes[j] else { continue }
            if keepEventPieces {
                pieceStart.append(all.count)
                baseSharpness.append(shape.baseSharpness)
            }
            appendEnvelopePieces(onset: events[j].driveOnset, requestedTime: events[j].requestedTime, shape: shape, controls: controls, to: &all)
        }
        if keepEventPieces { pieceStart.append(all.count) }
        let requestedCapacity = all.count
        if !(requestedEnvelope && !keepEventPieces) { shapes = [] }
        driveShapes = []
        if !segmenting {
            // Only the envelopes are wanted: the events and marks go before the mixer's copy.
            events = []
            marks = []
        }

        let mixer = self.mixer
        let mixed: [Piece]
        let segments: [DriveSegment]
        var movedMarks: [Segmenter.Mark] = []
        if keepEventPieces && !segmenting {
            // The caller mixes `pieces` as it reads them (`Mixer.Sweep`).
            mixed = []
            segments = []
        } else if keepEventPieces {
            mixed = mixer.mix(all)
            (segments, movedMarks) = Segmenter().segmentsAndMovedMarks(mixed, marks: marks)
        } else {
            // Straight from the mixer into the segmenter: the mixed envelope is never stored.
            var stream = Segmenter.Stream(marks: marks, capacity: all.count * 2 + marks.count + 16)
            mixer.mix(all, into: &stream)
            mixed = []
            segments = stream.finish()
            movedMarks = stream.movedMarks
        }
        var requestedPieces: [Piece] = []
        if requestedEnvelope && !keepEventPieces {
            // As a compiler without the pre-shift: onsets at the requested times, in requested
            // order, layered events (closer than `coincidence`) sharing the earlier onset.
            all = []  // the drive's pieces are in the segments now
            marks = []
            requestedPieces.reserveCapacity(requestedCapacity)
            pieceStart.reserveCapacity(requestedOrder.count + 1)
            baseSharpness.reserveCapacity(requestedOrder.count)
            var previous = Int64.min
            var onsets: [Int64] = []
            onsets.reserveCapacity(requestedOrder.count)
            for j in requestedOrder {
                var onset = micros(events[j].requestedTime)
                if previous != .min && onset - previous < Self.coincidence { onset = previous } else { previous = onset }
                onsets.append(onset)
            }
            for (k, j) in requestedOrder.enumerated() {
                guard let shape = shapes[j] else { continue }
                pieceStart.append(requestedPieces.count)
                baseSharpness.append(shape.baseSharpness)
                appendEnvelopePieces(
                    onset: onsets[k], requestedTime: events[j].requestedTime, shape: shape, controls: controls, to: &requestedPieces)
            }
            pieceStart.append(requestedPieces.count)
        }
        shapes = []
        Self.recordDriveDelays(movedMarks, in: &events)
        let end = max(patternEnd, Double(segments.last?.end ?? 0) * 1e-6)
        let program = DriveProgram(
            segments: segments, events: events, duration: end, loopDuration: max(patternEnd, loopEnd), diagnostics: diagnostics)
        return Compilation(
            program: program, pieces: keepEventPieces ? all : requestedPieces, pieceStart: pieceStart, baseSharpness: baseSharpness, mixed: mixed,
            controls: controls)
    }

    /// Sets ``CompiledEvent/driveDelay`` of each event whose mark the segmenter moved to where its
    /// drive begins (and of the events that share its onset). Events are numbered 1, 2, … in order.
    static func recordDriveDelays(_ moved: [Segmenter.Mark], in events: inout [CompiledEvent]) {
        guard !moved.isEmpty else { return }
        for m in moved {
            let k = Int(m.id) - 1
            guard events.indices.contains(k), events[k].id == m.id else { continue }
            events[k].driveDelay = m.time - events[k].driveOnset
        }
        for k in events.indices {
            guard let leader = events[k].sharesOnsetWith else { continue }
            let j = Int(leader) - 1
            if events.indices.contains(j), events[j].id == leader { events[k].driveDelay = events[j].driveDelay }
        }
    }

    /// Whether an event time is one the compiler plays: finite and within ±`HapticPattern.maximumTime`
    /// (the AHAP reader refuses later times; patterns built in code may hold anything).
    static func isPlayableTime(_ t: Double) -> Bool { t.magnitude <= HapticPattern.maximumTime }

    /// Whether an event duration is one the compiler plays: finite and at most `HapticPattern.maximumDuration`.
    static func isPlayableDuration(_ d: Double) -> Bool { d.isFinite && d <= HapticPattern.maximumDuration }

    /// Whether an end time may lengthen the program (later ones are ignored, so the program's
    /// duration stays bounded whatever a pattern built in code holds).
    static func isPlayableEnd(_ t: Double) -> Bool { t.magnitude <= HapticPattern.maximumTime + HapticPattern.maximumDuration }

    /// An event's contribution over drive time: shape × final intensity. Continuous events follow
    /// `HapticIntensityControl` over their life (evaluated at requested time, so the whole event
    /// shifts together); transients take it at their requested time.
    func appendEnvelopePieces(onset: Int64, requestedTime t0: Double, shape: EventShape, controls: HapticControls, to out: inout [Piece]) {
        let track = controls.intensity
        let step = max(1, micros(options.curveStep))
        let knots = shape.knots
        let constantControl = !shape.followsIntensityControl || track.isConstant
            || track.isConstant(from: t0, to: t0 + shape.length)
        let fixed = shape.intensity * (constantControl ? track.value(at: t0) : 1)
        for k in 0..<(knots.count - 1) {
            let a = knots[k], b = knots[k + 1]
            guard b.t > a.t else { continue }
            if constantControl {
                out.append(Piece(t0: onset + a.t, t1: onset + b.t, v0: a.g * fixed, v1: b.g * fixed))
                continue
            }
            // Split at the control's breakpoints; approximate products of two ramps by steps.
            let ra = t0 + Double(a.t) * 1e-6, rb = t0 + Double(b.t) * 1e-6
            var cuts: [Int64] = [a.t]
            for x in track.breakpoints(from: ra, to: rb) {
                let m = micros(x - t0)
                if m > cuts[cuts.count - 1] && m < b.t { cuts.append(m) }
            }
            cuts.append(b.t)
            func g(_ t: Int64) -> Double { a.g + (b.g - a.g) * Double(t - a.t) / Double(b.t - a.t) }
            for c in 0..<(cuts.count - 1) {
                let x0 = cuts[c], x1 = cuts[c + 1]
                // The control is linear on (x0, x1): sample inside, away from jumps at the ends.
                let r0 = t0 + Double(x0) * 1e-6, r1 = t0 + Double(x1) * 1e-6
                let qa = track.value(at: r0 + 0.25 * (r1 - r0)), qb = track.value(at: r0 + 0.75 * (r1 - r0))
                let c0 = qa - (qb - qa) / 2, c1 = qb + (qb - qa) / 2
                func v(_ t: Int64) -> Double {
                    let f = Double(t - x0) / Double(x1 - x0)
                    return HapticSemantics.amplitude(intensity: shape.intensity * (c0 + (c1 - c0) * f)) * g(t)
                }
                let n = (a.g != b.g && qa != qb) ? max(1, (x1 - x0 + step - 1) / step) : 1
                var prev = x0
                for i in 1...n {
                    let x = i == n ? x1 : x0 + (x1 - x0) * i / n
                    out.append(Piece(t0: onset + prev, t1: onset + x, v0: v(prev), v1: v(x)))
                    prev = x
                }
            }
        }
    }
}

/// Whether `a` is already in the order of `less` (a linear check that saves an n·log n sort on
/// the common case: patterns listed in time order, pre-shifts smaller than event spacing).
@inline(__always)
func isSorted<T>(_ a: [T], by less: (T, T) -> Bool) -> Bool {
    var i = 1
    while i < a.count {
        if less(a[i], a[i - 1]) { return false }
        i += 1
    }
    return true
}
