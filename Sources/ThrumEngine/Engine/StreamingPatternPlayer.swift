import ThrumCompiler
import ThrumPattern
import ThrumTime
import ThrumWire

/// The engine's player: a timeline of runs, each mapping engine time to the compiled (rate-scaled)
/// pattern (``Run/time(of:)``, ``Run/offset(at:)``: the only crossings between the two), rendered
/// lazily by the engine's streaming loop. Every operation edits the runs; the
/// engine re-renders from the first instant that changed (with an any-lane STOP when drive for
/// that instant was already sent).
final class StreamingPatternPlayer: HapticAdvancedPatternPlayer {
    let playerID: Int
    let pattern: HapticPattern
    let generation: Int
    /// The engine it belongs to, through the narrow interface players use. Held strongly: an
    /// engine lives while its players do (a playing pattern is not cut when its owner lets the
    /// engine go, the "new engine per play" habit).
    let host: any PlayerHost
    /// The engine, for code written against an optional (the player never outlives it).
    private var engine: (any PlayerHost)? { host }

    private var muted = false
    private var looping = false
    private var loopEndValue: Double = 0
    /// ``loopPasses``: the passes a loop plays from the start (0: until stopped).
    private var passLimit = 0
    /// Loop passes appended since the start (``extendLoops(to:)``).
    private var passesAppended = 0
    /// Whether the loop has appended its last pass (``loopPasses``): no next pass comes.
    private var loopDone: Bool { passLimit > 0 && passesAppended + 1 >= passLimit }
    private var completion: ((Error?) -> Void)?
    var isMuted: Bool {
        get { host.withLock { muted } }
        set { host.withLock { muted = newValue } }
    }
    /// Muted itself or through its engine (``HapticEngine/isMutedForHaptics``): renders nothing.
    var isSilent: Bool { muted || host.isMutedForHaptics }
    var loopEnabled: Bool {
        get { host.withLock { looping } }
        set { host.withLock { looping = newValue } }
    }
    var loopPasses: Int {
        get { host.withLock { passLimit } }
        set { host.withLock { passLimit = max(0, newValue) } }
    }
    var loopEnd: Double {
        get { host.withLock { loopEndValue } }
        set { host.withLock { loopEndValue = newValue } }
    }
    var completionHandler: ((Error?) -> Void)? {
        get { host.withLock { completion } }
        set { host.withLock { completion = newValue } }
    }
    var playbackRate: Double {
        get { host.withLock { rate } }
        set { host.withLock { setRate(newValue) } }
    }

    enum State: Equatable {
        case idle
        case playing
        case paused(offset: PatternPosition)
    }
    private(set) var state: State = .idle

    /// What a pattern compiles to at one rate and one set of run-time controls.
    struct CompileKey: Hashable {
        var rate: Double
        var sharpness = 0.0
        var attack = 0.0
        var decay = 0.0
        var release = 0.0
        /// A loop's end (unscaled pattern seconds): events at or after it are not in the loop
        /// (Core Haptics' `loopEnd`) and are left out of the compile; nil when not looping to one.
        var loopCut: Double? = nil
    }

    /// A compiled (rate-scaled) pattern.
    struct Compiled {
        var key: CompileKey
        var program: DriveProgram
        var eventsByID: [UInt32: CompiledEvent]
        /// Events that begin together with another (``CompiledEvent/sharesOnsetWith``), by that one's id.
        var followers: [UInt32: [CompiledEvent]] = [:]
        /// How far before pattern time 0 the drive starts (felt-onset pre-shift).
        var preroll: EngineDuration
        /// End of the compiled drive, in scaled pattern time.
        var end: PatternOffset
    }

    /// Engine time `origin` plays pattern time 0 of `compiled`, for (scaled) pattern times in [lo, hi).
    struct Run {
        var serial: Int
        var origin: EngineTime
        var lo: PatternOffset
        var hi: PatternOffset
        var pass: Int
        var compiled: Compiled
        /// Scaled pattern time from this pass's origin to the next pass's: the loop period.
        var period: EngineDuration = .zero
        /// Engine time up to which the device has this run's drive from a GO (nothing to render).
        var preloadedUntil: EngineTime = .distantPast

        /// The engine time at which pattern offset `x` of this run plays.
        @inline(__always) func time(of x: PatternOffset) -> EngineTime { x.engineTime(origin: origin) }
        /// The pattern offset of this run playing at engine time `t`.
        @inline(__always) func offset(at t: EngineTime) -> PatternOffset { PatternOffset(at: t, origin: origin) }
        /// Where the run's drive starts on the engine's schedule.
        var start: EngineTime { time(of: lo) }
        /// Where the run's drive ends on the engine's schedule.
        var end: EngineTime { time(of: hi) }
    }
    private(set) var runs: [Run] = []
    private var nextSerial = 0
    private var pass = 0
    /// Where the timeline ends (stop or pause).
    private var stopAt: EngineTime?
    /// Where in the pattern to pause when `stopAt` is reached; nil means stop.
    private var pauseOffset: PatternPosition?
    /// Where in the pattern the next start begins (a seek before start).
    private var startOffset = PatternPosition.start
    /// `HapticIntensityControl` sent at run time; multiplies the pattern's own control.
    private(set) var intensity = RuntimeControl(defaultValue: 1, range: 0...1)
    /// The other dynamic parameters sent at run time (kept; see docs/engine.md).
    private(set) var otherControls: [HapticDynamicParameter.ID: RuntimeControl] = [:]

    private var rate = 1.0
    /// The compilation a start now would use.
    var currentCompiled: Compiled? { compiled }
    /// The compilation new runs use.
    private var compiled: Compiled?
    /// Engine times at which run-time sharpness/attack/decay/release controls change.
    private var controlChanges: [EngineTime] = []
    private var preroll: EngineDuration { compiled?.preroll ?? .zero }
    private var programEnd: PatternOffset { compiled?.end ?? .zero }

    /// A drive program played as it is (``HapticEngine/makePlayer(program:)``): no compiling, and
    /// run-time shape controls and the rate do not change it.
    let fixedProgram: DriveProgram?

    init(engine: any PlayerHost, id: Int, pattern: HapticPattern, program: DriveProgram? = nil) {
        self.host = engine
        self.playerID = id
        self.pattern = pattern
        self.fixedProgram = program
        self.generation = engine.generation
        compileIfNeeded(at: engine.timeNow)
    }

    /// The compile key at engine time `t`: the rate and the run-time controls then.
    private func key(at t: EngineTime) -> CompileKey {
        func v(_ id: HapticDynamicParameter.ID) -> Double { otherControls[id]?.value(at: t) ?? 0 }
        return CompileKey(
            rate: rate, sharpness: v(.hapticSharpnessControl), attack: v(.hapticAttackTimeControl),
            decay: v(.hapticDecayTimeControl), release: v(.hapticReleaseTimeControl),
            loopCut: looping && loopEndValue > 0 ? loopEndValue : nil)
    }

    /// The pattern compiled for `key`: without the haptic events at or after a loop's end, whose
    /// pre-shifted drive would otherwise begin inside the pass (a transient's lead-in is ≈ 14 ms)
    /// and play them in every pass; the compiled events keep their indices in `pattern`.
    private func compileLoop(key: CompileKey, engine: any PlayerHost) -> DriveProgram {
        let adjusted = pattern.adjusted(by: key)
        guard let cut = key.loopCut, adjusted.events.contains(where: { $0.type.isHaptic && $0.relativeTime >= cut }) else {
            return engine.compile(adjusted, rate: key.rate)
        }
        let kept = adjusted.events.indices.filter { !(adjusted.events[$0].type.isHaptic && adjusted.events[$0].relativeTime >= cut) }
        var source = adjusted
        source.events = kept.map { adjusted.events[$0] }
        var program = engine.compile(source, rate: key.rate)
        for k in program.events.indices where kept.indices.contains(program.events[k].patternIndex) {
            program.events[k].patternIndex = kept[program.events[k].patternIndex]
        }
        return program
    }

    /// Makes `compiled` match the rate and the controls at engine time `t`.
    private func compileIfNeeded(at t: EngineTime) {
        let key = key(at: t)
        guard compiled?.key != key, let engine else { return }
        if fixedProgram != nil, compiled != nil { return }
        let program = fixedProgram ?? compileLoop(key: key, engine: engine)
        compiled = Compiled(
            key: key, program: program,
            eventsByID: Dictionary(uniqueKeysWithValues: program.events.map { ($0.id, $0) }),
            followers: Dictionary(grouping: program.events.filter { $0.sharesOnsetWith != nil }, by: { $0.sharesOnsetWith! }),
            preroll: max(.zero, -(program.segments.first?.startOffset.sinceStart ?? .zero)),
            end: PatternOffset(seconds: program.duration))
    }

    private func liveEngine() throws -> any PlayerHost {
        guard let engine, generation == engine.generation else {
            throw HapticError(.invalidPatternPlayer, "the player's engine is gone or was reset; make a new player")
        }
        return engine
    }

    /// The loop period, in scaled pattern time (0 = no loop possible): `loopEnd`, else the
    /// pattern's duration as Core Haptics counts it (``ThrumCompiler/DriveProgram/loopDuration``:
    /// a transient's burst counts, a continuous event's release does not), not the compiled
    /// drive's end — a continuous event's release rings past its duration, and a loop timed by
    /// the drive would drift by that much each pass. A program with nothing to time a loop by
    /// loops at its drive's end.
    private var loopLength: EngineDuration {
        // At most 2^60 µs (36 000 years): engine times plus a period stay within 64 bits.
        if loopEndValue > 0 { return min(.seconds(loopEndValue / rate), Self.longestLoop) }
        let length = compiled?.program.loopDuration.map { EngineDuration.seconds($0) } ?? .zero
        return length > .zero ? length : programEnd.sinceStart
    }
    /// The longest loop period the schedule holds (a longer `loopEnd` is taken as this).
    static let longestLoop = EngineDuration(microseconds: 1 << 60)
    /// Where a pass's drive stops (scaled pattern time): at `loopEnd` when one is set (the
    /// loop goes back there), else the whole compiled drive, whose tail then overlaps the next pass.
    private var passEnd: PatternOffset { loopEndValue > 0 ? PatternOffset.zero + loopLength : programEnd }

    /// Unscaled pattern length used by `seek` (s).
    private var duration: Double { programEnd.seconds * rate }

    /// When the player's timeline ends, nil while it runs on (looping) or is not playing.
    var endTime: EngineTime? {
        guard state == .playing else { return nil }
        if let stopAt { return stopAt }
        if looping && loopLength > .zero && !loopDone { return nil }
        return runs.last.map(\.end)
    }

    // MARK: HapticPatternPlayer

    func start(atTime time: Double) throws { try host.withLock { try lockedStart(atTime: time) } }

    private func lockedStart(atTime time: Double) throws {
        let engine = try liveEngine()
        try engine.requireRunning(self)
        let t = try engine.engineTime(time)
        compileIfNeeded(at: max(t, engine.timeNow))
        if state == .playing { clip(at: max(t, engine.timeNow)) }
        pass = 0
        passesAppended = 0
        let offset = startOffset
        startOffset = .start
        begin(offset: offset, at: time == HapticTimeImmediate ? nil : t, engine: engine)
    }

    func stop(atTime time: Double) throws { try host.withLock { try lockedStop(atTime: time) } }

    private func lockedStop(atTime time: Double) throws {
        let engine = try liveEngine()
        let t = try engine.engineTime(time)
        switch state {
        case .idle:
            return
        case .paused:
            engine.deactivate(self)
            finish(error: nil)
        case .playing:
            end(at: t, pauseOffset: nil, engine: engine)
        }
    }

    func sendParameters(_ parameters: [HapticDynamicParameter], atTime time: Double) throws { try host.withLock { try lockedSendParameters(parameters, atTime: time) } }

    private func lockedSendParameters(_ parameters: [HapticDynamicParameter], atTime time: Double) throws {
        let engine = try liveEngine()
        let base = try engine.engineTime(time)
        for p in parameters {
            guard p.relativeTime.isFinite, p.relativeTime >= 0 else {
                throw HapticError(.invalidTime, "invalid relative time \(p.relativeTime) for \(p.parameterID)")
            }
            guard HapticDynamicParameter.ID.allKnown.contains(p.parameterID) else {
                throw HapticError(.invalidParameterType, "unknown dynamic parameter \(p.parameterID)")
            }
            // Drive already queued is replaced from the change on (a CUT), which the device can
            // receive one change lead from now at the earliest.
            let at = max(base + .seconds(p.relativeTime), engine.timeNow + engine.changeLead)
            engine.invalidate(from: at)
            if p.parameterID == .hapticIntensityControl {
                intensity.step(at: at, value: Double(p.value))
            } else {
                otherControls[p.parameterID, default: Self.control(for: p.parameterID)].step(at: at, value: Double(p.value))
                noteControlChange(p.parameterID, at: [at])
            }
        }
    }

    func scheduleParameterCurve(_ parameterCurve: HapticParameterCurve, atTime time: Double) throws { try host.withLock { try lockedScheduleParameterCurve(parameterCurve, atTime: time) } }

    private func lockedScheduleParameterCurve(_ parameterCurve: HapticParameterCurve, atTime time: Double) throws {
        let engine = try liveEngine()
        let base = try engine.engineTime(time)
        guard HapticDynamicParameter.ID.allKnown.contains(parameterCurve.parameterID) else {
            throw HapticError(.invalidParameterType, "unknown dynamic parameter \(parameterCurve.parameterID)")
        }
        let points = parameterCurve.controlPoints.filter { $0.relativeTime.isFinite }.map {
            (base + .seconds($0.relativeTime), Double($0.value))
        }
        let earliest = engine.timeNow + engine.changeLead
        engine.invalidate(from: max(base, earliest))
        if parameterCurve.parameterID == .hapticIntensityControl {
            intensity.curve(at: base, points: points)
        } else {
            otherControls[parameterCurve.parameterID, default: Self.control(for: parameterCurve.parameterID)]
                .curve(at: base, points: points)
            // Shape controls are read at event starts: the drive is recompiled at the curve's start
            // and at each of its points (never before what was already sent).
            noteControlChange(parameterCurve.parameterID, at: [base] + points.map(\.0), floor: earliest)
        }
    }

    /// Remembers when a shape control (sharpness, attack, decay, release) changes, so the drive is
    /// recompiled there.
    private func noteControlChange(_ id: HapticDynamicParameter.ID, at times: [EngineTime], floor: EngineTime = .distantPast) {
        let shape: [HapticDynamicParameter.ID] = [
            .hapticSharpnessControl, .hapticAttackTimeControl, .hapticDecayTimeControl, .hapticReleaseTimeControl,
        ]
        guard shape.contains(id) else { return }
        controlChanges = Array(Set(controlChanges + times.map { max($0, floor) })).sorted()
    }

    func cancel() throws { try host.withLock { try lockedCancel() } }

    private func lockedCancel() throws {
        let engine = try liveEngine()
        intensity.removeAll()
        otherControls.removeAll()
        controlChanges.removeAll()
        if state == .playing { end(at: engine.timeNow, pauseOffset: nil, engine: engine) } else if state != .idle {
            engine.deactivate(self)
            finish(error: nil)
        }
    }

    private static func control(for id: HapticDynamicParameter.ID) -> RuntimeControl {
        id == .audioVolumeControl
            ? RuntimeControl(defaultValue: 1, range: 0...1) : RuntimeControl(defaultValue: 0, range: -1...1)
    }

    // MARK: HapticAdvancedPatternPlayer

    func pause(atTime time: Double) throws { try host.withLock { try lockedPause(atTime: time) } }

    private func lockedPause(atTime time: Double) throws {
        let engine = try liveEngine()
        let t = try engine.engineTime(time)
        guard state == .playing else { return }
        end(at: t, pauseOffset: offset(at: t), engine: engine)
    }

    func resume(atTime time: Double) throws { try host.withLock { try lockedResume(atTime: time) } }

    private func lockedResume(atTime time: Double) throws {
        let engine = try liveEngine()
        try engine.requireRunning(self)
        let t = try engine.engineTime(time)
        guard case .paused(let offset) = state else { return }
        compileIfNeeded(at: max(t, engine.timeNow))
        pass += 1
        begin(offset: offset, at: time == HapticTimeImmediate ? nil : t, engine: engine)
    }

    func seek(toOffset offsetTime: Double) throws { try host.withLock { try lockedSeek(toOffset: offsetTime) } }

    private func lockedSeek(toOffset offsetTime: Double) throws {
        let engine = try liveEngine()
        guard offsetTime.isFinite, offsetTime >= 0 else { throw HapticError(.invalidTime, "invalid offset \(offsetTime)") }
        compileIfNeeded(at: engine.timeNow)
        var x = offsetTime
        if x >= duration {
            if looping {
                x = 0
            } else {
                switch state {
                case .idle: startOffset = PatternPosition(seconds: x)
                case .paused:
                    engine.deactivate(self)
                    finish(error: nil)
                case .playing: end(at: engine.timeNow, pauseOffset: nil, engine: engine)
                }
                return
            }
        }
        switch state {
        case .idle:
            startOffset = PatternPosition(seconds: x)
        case .paused:
            state = .paused(offset: PatternPosition(seconds: x))
        case .playing:
            // A CUT at the change lead, as a parameter change: the drive from there is sent now.
            let at = engine.timeNow + engine.changeLead
            engine.invalidate(from: at)
            clip(at: at)
            stopAt = nil
            pauseOffset = nil
            pass += 1
            compileIfNeeded(at: at)
            // Offset 0 starts with its pre-shifted drive at the horizon.
            place(offset: PatternPosition(seconds: x), at: x == 0 ? at + preroll : at, engine: engine)
        }
    }

    private func setRate(_ newValue: Double) {
        guard newValue.isFinite, newValue > 0, newValue != rate else { return }
        guard state == .playing, let engine, generation == engine.generation else {
            rate = newValue
            return
        }
        let at = engine.timeNow + engine.changeLead
        engine.invalidate(from: at)
        let x = offset(at: at)
        let wasStopping = stopAt
        clip(at: at)
        rate = newValue
        compileIfNeeded(at: at)
        pass += 1
        place(offset: x, at: at, engine: engine, continuing: true)
        if let s = wasStopping, s > at { stopAt = s }
    }

    // MARK: Timeline

    /// Starts playing pattern offset `offset` (s) at engine time `at`, or as soon as
    /// possible without disturbing other players when `at` is nil (or too close to now).
    private func begin(offset: PatternPosition, at requestedTime: EngineTime?, engine: any PlayerHost) {
        // With sound to play, an immediate start waits for the sound device's latency.
        let requested = requestedTime ?? engine.audioStartTime(for: self)
        if offset.isStart {
            stopAt = nil
            pauseOffset = nil
            if engine.startPrepared(self, at: requested) { return }
        }
        let lead = offset.isStart ? preroll : .zero
        var at: EngineTime
        // Other players' drive queued from the start on is replaced (CUT) and mixed anew; drive
        // the device plays from its own store (a ROM effect, a stored preset) is waited for.
        let earliest = max(engine.timeNow + max(engine.restartMargin, engine.changeLead), engine.streamFloor)
        if let requested, requested - lead >= earliest {
            at = requested
        } else {
            // Immediate, or too close to honour: the drive begins one start lead from now (as
            // `thrum play`'s does), not at the earliest a frame could arrive — that left a loaded
            // host or device no room, and the first drive reached the device late (docs/timing.md).
            at = max(engine.timeNow + engine.startLead, earliest) + lead
        }
        engine.invalidate(from: at - lead)
        stopAt = nil
        pauseOffset = nil
        place(offset: offset, at: at, engine: engine)
        engine.service()
    }

    /// Adds the run that plays pattern offset `offset` (s) at engine time `at` and marks the
    /// player playing.
    /// `continuing`: the drive carries on from exactly that offset (no pre-shifted lead-in at 0).
    private func place(offset: PatternPosition, at: EngineTime, engine: any PlayerHost, continuing: Bool = false) {
        guard let compiled else { return }
        let x = offset.compiled(atRate: rate)
        let lo = x == .zero && !continuing ? PatternOffset.zero - preroll : x
        let hi = looping && loopLength > .zero ? passEnd : programEnd
        nextSerial += 1
        // Pattern time 0 plays `x` before `at`.
        let origin = at - x.sinceStart
        runs.append(
            Run(serial: nextSerial, origin: origin, lo: lo, hi: max(hi, lo), pass: pass, compiled: compiled, period: loopLength))
        state = .playing
        engine.activate(self)
    }

    /// Adds a run whose drive a GO put on the device (pattern time 0 at engine time `at`, drive
    /// on the device up to `preloadedUntil`); returns its serial.
    func placePrepared(at: EngineTime, preloadedUntil: EngineTime) -> Int {
        place(offset: .start, at: at, engine: engine!)
        runs[runs.count - 1].preloadedUntil = preloadedUntil
        return runs[runs.count - 1].serial
    }

    /// The device dropped GO'd drive from engine time `t` on (a STOP): render it from there.
    func unpreload(from t: EngineTime) {
        for i in runs.indices where runs[i].preloadedUntil > t { runs[i].preloadedUntil = t }
    }

    /// The device refused the GO of run `serial`: drop that run and start again, streamed.
    func restartStreamed(replacing serial: Int) {
        guard state == .playing, let engine, runs.contains(where: { $0.serial == serial }) else { return }
        runs.removeAll { $0.serial == serial }
        begin(offset: .start, at: nil, engine: engine)
    }

    /// Ends the timeline at engine time `t`: stop, or pause when `pauseOffset` is given.
    private func end(at t: EngineTime, pauseOffset: PatternPosition?, engine: any PlayerHost) {
        let dropped = clip(at: t)
        stopAt = t
        self.pauseOffset = pauseOffset
        // A pass dropped whole may have sent its pre-shifted lead-in before `t`: cut from there.
        engine.invalidate(from: min(t, dropped ?? t))
        engine.service()
    }

    /// Cuts every run at engine time `t`: a run whose pattern time 0 is at or after `t` is
    /// dropped whole (a pass due at or after a stop never starts, as ``extendLoops(to:)`` has
    /// it, its pre-shifted lead-in included), the others end at `t`. The onsets marked for drive
    /// that no longer plays are forgotten (they were never scheduled). Returns the earliest drive
    /// start of a dropped run, nil when none was.
    @discardableResult
    private func clip(at t: EngineTime) -> EngineTime? {
        var earliestDropped: EngineTime?
        var kept: [Run] = []
        for run in runs {
            if run.start < t && run.origin < t {
                var r = run
                r.hi = min(r.hi, r.offset(at: t))
                kept.append(r)
                host.forgetOnsets(player: self, run: run.serial, from: max(t, host.timeNow))
            } else {
                earliestDropped = min(earliestDropped ?? run.start, run.start)
                // Its lead-in may already be playing: what was due before now stays reported.
                host.forgetOnsets(player: self, run: run.serial, from: host.timeNow)
            }
        }
        runs = kept
        return earliestDropped
    }

    /// The position in the pattern playing at engine time `t`.
    private func offset(at t: EngineTime) -> PatternPosition {
        guard let run = runs.last(where: { $0.time(of: max($0.lo, .zero)) <= t }) ?? runs.first else { return .start }
        let p = min(max(run.offset(at: t), .zero), max(run.compiled.end, .zero))
        return PatternPosition(compiled: p, rate: run.compiled.key.rate)
    }

    /// Called by the engine when `endTime` has come: pause or finish.
    func timeReached() {
        if let offset = pauseOffset {
            runs.removeAll()
            stopAt = nil
            pauseOffset = nil
            state = .paused(offset: offset)
            engine?.deactivate(self, paused: true)
        } else {
            engine?.deactivate(self)
            finish(error: nil)
        }
    }

    /// Stops for good (for now): back to idle, completion handler called once.
    func finish(error: Error?) {
        guard state != .idle else { return }
        state = .idle
        runs.removeAll()
        stopAt = nil
        pauseOffset = nil
        completion?(error)
    }

    /// Appends loop passes whose drive starts before `t1`.
    func extendLoops(to t1: EngineTime) {
        guard state == .playing, looping, loopLength > .zero else { return }
        var guardCount = 0
        // A period too long for the engine's 64-bit µs schedule (a huge loopEnd) has no next pass.
        while let last = runs.last, last.period.microseconds <= Int64.max - max(0, last.origin.microseconds),
            last.origin + last.period - preroll < t1, guardCount < 1000
        {
            guardCount += 1
            let origin = last.origin + last.period
            if let s = stopAt, origin >= s { break }  // a pass due at or after the stop never starts
            if loopDone { break }  // the passes asked for are there: none beyond them
            passesAppended += 1
            pass += 1
            nextSerial += 1
            guard let compiled else { break }
            runs.append(
                Run(
                    serial: nextSerial, origin: origin, lo: PatternOffset.zero - preroll, hi: passEnd, pass: pass, compiled: compiled,
                    period: loopLength))
        }
        // Forget passes long over (a pause may still ask for the offset of a recent one).
        if let engine, runs.count > 2 {
            let horizon = engine.timeNow - .seconds(1)
            let last = runs.count - 1
            runs = runs.enumerated().filter { $0.offset == last || $0.element.end > horizon }.map(\.element)
        }
    }

    /// An onset a player marks in a chunk (``collect(from:to:ramps:onsets:)``), with where the
    /// event's first segment ends: that segment's ramp is given whole, past the chunk, so that
    /// the engine can keep it whole (``SharedDevice/chunkEnd(from:to:onsets:)``).
    struct ChunkOnset {
        var mark: DriveMixer.Mark
        var firstSegmentEnd: EngineTime
        /// From the mark to the segment's first drive as compiled (a ramp up from 0 drives at its
        /// crossing, PROTOCOL.md §4.1; zero for any other segment).
        var firstDrive: EngineDuration
    }

    /// The drive of this player in engine time [t0, t1): ramps (with the run-time intensity
    /// control applied) and the onsets to mark, on the engine's schedule (engine time). An
    /// onset's first segment is given whole, to its end (or the run's end or stop), even past `t1`.
    func collect(from t0: EngineTime, to t1: EngineTime, ramps: inout [EnvelopeRamp], onsets: inout [ChunkOnset]) {
        guard state == .playing, let engine else { return }
        applyControlChanges(before: t1)
        extendLoops(to: t1)
        if isSilent { return }
        for run in runs {
            let segments = run.compiled.program.segments
            let a = max(run.start, t0, run.preloadedUntil)
            let whole = min(run.end, stopAt ?? .distantFuture)
            let b = min(whole, t1)
            guard b > a else { continue }
            let pa = run.offset(at: a), pb = run.offset(at: b)
            var lo = 0, hi = segments.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if segments[mid].endOffset <= pa { lo = mid + 1 } else { hi = mid }
            }
            var k = lo
            while k < segments.count && segments[k].startOffset < pb {
                let s = segments[k]
                k += 1
                var r = EnvelopeRamp(s, origin: run.origin)
                let onset = run.time(of: s.startOffset)
                let marked = s.eventID != 0 && onset >= a && run.compiled.eventsByID[s.eventID] != nil
                let ca = max(r.startTime, a), cb = min(r.endTime, marked ? whole : b)
                guard cb > ca else { continue }
                r = EnvelopeRamp(start: ca, end: cb, from: r.value(at: ca), to: r.value(at: cb))
                if marked {
                    let mark = DriveMixer.Mark(time: onset, id: mark(event: s.eventID, of: run, engine: engine))
                    let firstDrive = SegmentCommand.firstDriveOffset(duration: s.duration, from: s.from, to: s.to)
                    onsets.append(ChunkOnset(mark: mark, firstSegmentEnd: cb, firstDrive: .microseconds(Int64(firstDrive))))
                }
                appendControlled(r, to: &ramps)
            }
        }
    }

    /// Whether this player asks for non-zero drive anywhere in engine time [t0, t1) (no side
    /// effects: nothing is marked or recompiled). The device uses it to tell a hole in the drive
    /// (a host that fell behind) from idle time.
    func wantsDrive(from t0: EngineTime, to t1: EngineTime) -> Bool {
        guard state == .playing, !isSilent else { return false }
        for run in runs {
            let a = max(run.start, t0, run.preloadedUntil), b = min(run.end, t1, stopAt ?? .distantFuture)
            guard b > a else { continue }
            let pa = run.offset(at: a), pb = run.offset(at: b)
            if run.compiled.program.segments.contains(where: { $0.startOffset < pb && $0.endOffset > pa && ($0.from != 0 || $0.to != 0) }) {
                return true
            }
        }
        return false
    }

    /// The earliest engine time at or after `t0` at which ``collect(from:to:ramps:onsets:)`` could
    /// give anything or change the player (a segment, zero or not, that reaches past it; a
    /// shape-control change; the next loop pass): the engine renders nothing, and need not wake,
    /// before it (``SharedDevice/quietUntil(from:)``). `t0` itself when the player is active
    /// there; `.distantFuture` when it is not playing (a call that changes that re-places drive).
    /// Conservative: a stop or a mute only makes the time later than it could be.
    func quietUntil(from t0: EngineTime) -> EngineTime {
        guard state == .playing else { return .distantFuture }
        var quiet = EngineTime.distantFuture
        if let change = controlChanges.first { quiet = min(quiet, change) }
        // The next loop pass (``extendLoops(to:)`` appends it once a chunk reaches its start).
        if looping, loopLength > .zero, !loopDone, let last = runs.last, last.period.microseconds <= Int64.max - max(0, last.origin.microseconds) {
            quiet = min(quiet, last.origin + last.period - preroll)
        }
        for run in runs where run.end > t0 {
            let a = max(run.start, t0, run.preloadedUntil)
            guard a < run.end else { continue }
            let segments = run.compiled.program.segments
            let pa = run.offset(at: a)
            var lo = 0, hi = segments.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if segments[mid].endOffset <= pa { lo = mid + 1 } else { hi = mid }
            }
            guard lo < segments.count else { continue }
            quiet = min(quiet, max(a, run.time(of: segments[lo].startOffset)))
        }
        return max(t0, quiet)
    }

    /// The compiled segments that start in engine time [t0, t1), exactly as compiled (moved to
    /// the engine's schedule: ``DriveSegment/startTime``; onset ids replaced by the engine's marks), when they can be sent without
    /// mixing: one run, no run-time intensity control, nothing preloaded, no segment straddling
    /// `t0` or a run or stop boundary. Nil otherwise (the engine then mixes). Segments may end
    /// after `t1`; the engine continues from their end.
    /// `horizon`: no segment may end after it (drive beyond the engine's lead is not committed,
    /// so that parameter changes still reach it).
    func verbatimSegments(from t0: EngineTime, to t1: EngineTime, horizon: EngineTime) -> [DriveSegment]? {
        guard state == .playing, let engine, !isSilent, controlChanges.first.map({ $0 >= t1 }) ?? true else { return nil }
        extendLoops(to: t1)
        guard intensity.isConstant(from: t0, to: .distantFuture), intensity.value(at: t0) == 1 else { return nil }
        let live = runs.filter { $0.end > t0 && $0.start < t1 }
        guard live.count == 1, let run = live.first, run.preloadedUntil <= t0 else { return nil }
        let segments = run.compiled.program.segments
        let pa = run.offset(at: t0), pb = run.offset(at: t1)
        let limit = stopAt.map { min(run.hi, run.offset(at: $0)) } ?? run.hi
        let last = max(t1, horizon)
        var lo = 0, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if segments[mid].endOffset <= pa { lo = mid + 1 } else { hi = mid }
        }
        var out: [DriveSegment] = []
        var lastEnd: EngineTime?
        var k = lo
        while k < segments.count && segments[k].startOffset < pb {
            var s = segments[k]
            k += 1
            guard s.startOffset >= pa, s.startOffset >= run.lo, s.endOffset <= limit, run.time(of: s.endOffset) <= last else {
                return nil
            }
            if s.eventID != 0, run.compiled.eventsByID[s.eventID] != nil {
                s.eventID = mark(event: s.eventID, of: run, engine: engine)
            }
            lastEnd = max(lastEnd ?? .distantPast, run.time(of: s.endOffset))
            s.startTime = run.time(of: s.startOffset)
            out.append(s)
        }
        // Another run (the next loop pass) starting before this drive ends must be mixed in.
        let end = lastEnd ?? t1
        extendLoops(to: end)
        if runs.contains(where: { $0.serial != run.serial && $0.start < end && $0.end > t0 }) { return nil }
        return out
    }

    /// The device mark id for compiled event `id` of `run` (stable across re-renders), with the
    /// onset records of the events that begin together with it attached to it.
    private func mark(event id: UInt32, of run: Run, engine: any PlayerHost) -> UInt32 {
        let origin = run.origin, pass = run.pass
        func record(_ event: CompiledEvent) -> OnsetRecord {
            OnsetRecord(
                playerID: playerID, patternIndex: event.patternIndex, pass: pass,
                requestedTime: origin.seconds(plus: event.requestedTime), preShift: event.plannedLead,
                driveOnsetTime: nil, status: .notReported)
        }
        let leader = run.compiled.eventsByID[id]!
        let mark = engine.markID(player: self, run: run.serial, event: id) { record(leader) }
        for follower in run.compiled.followers[id] ?? [] {
            let f = engine.markID(player: self, run: run.serial, event: follower.id) { record(follower) }
            engine.follow(f, mark)
        }
        return mark
    }

    /// Recompiles at each shape-control change due before `t1`, continuing at the same offset.
    private func applyControlChanges(before t1: EngineTime) {
        while let p = controlChanges.first, p < t1 {
            controlChanges.removeFirst()
            guard state == .playing, let engine, compiled?.key != key(at: p) else { continue }
            let x = offset(at: p)
            clip(at: p)
            compileIfNeeded(at: p)
            place(offset: x, at: p, engine: engine, continuing: true)
            if let s = stopAt { clip(at: s) }
        }
    }

    /// Multiplies a ramp by the run-time intensity control (linear pieces at most 2 ms long where
    /// the control varies).
    /// `r` and the control are on the engine's schedule.
    private func appendControlled(_ r: EnvelopeRamp, to ramps: inout [EnvelopeRamp]) {
        let start = r.startTime, end = r.endTime
        if intensity.isConstant(from: start, to: end) {
            let c = intensity.value(at: start)
            ramps.append(EnvelopeRamp(start: start, end: end, from: r.from * c, to: r.to * c))
            return
        }
        var cuts = [start] + intensity.breakpoints(from: start, to: end) + [end]
        var refined: [EngineTime] = [cuts[0]]
        let piece = EngineDuration.milliseconds(2)
        for i in 1..<cuts.count {
            let a = cuts[i - 1], b = cuts[i]
            let n = max(1, ((b - a) + piece - .microseconds(1)).microseconds / piece.microseconds)
            for j in 1...n { refined.append(a + (b - a) * j / n) }
        }
        cuts = refined
        for i in 1..<cuts.count {
            let a = cuts[i - 1], b = cuts[i]
            guard b > a else { continue }
            ramps.append(
                EnvelopeRamp(
                    start: a, end: b, from: r.value(at: a) * intensity.value(at: a),
                    to: r.value(at: b) * intensity.value(at: b - .microseconds(1))))
        }
    }
}
