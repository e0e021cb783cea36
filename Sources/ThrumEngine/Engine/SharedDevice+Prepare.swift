import Foundation
import ThrumCompiler
import ThrumLibrary
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

extension SharedDevice {
    /// A pattern stored in a device program slot.
    struct Preload {
        var pattern: HapticPattern
        var program: PreloadedProgram
        var lastUse: Int
    }

    /// The GO last sent, so a refusal (FAULT 8) can fall back to streaming.
    struct PendingGo {
        var slot: UInt8
        weak var player: StreamingPatternPlayer?
        var serial: Int
        var emittedUntil: EngineTime
        /// The queue's tail before the GO.
        var tail: DevicePlacement.Tail
    }

    // MARK: Calibration

    /// Runs the driver's auto-calibration now (CALIBRATE; the actuator buzzes for 250–450 ms) and
    /// returns its result. Starts the engine first if needed. Nothing plays meanwhile: drive due
    /// during the calibration is trimmed or dropped by the device.
    /// - Throws: ``HapticError`` `notSupported` (−4809) for a device without CALIBRATE,
    ///   `operationNotPermitted` (−4806) when it failed, `engineStartTimeout` (−4808) when no
    ///   result came within the session's `calibrationTimeout`.
    @discardableResult
    func calibrate() throws -> CalibrationReport {
        guard capabilities?.calibration == true else {
            throw HapticError(.notSupported, "the device has no CALIBRATE")
        }
        do {
            return try session.calibrate()
        } catch {
            throw Self.hapticError(error)
        }
    }

    static func hapticError(_ error: EngineError) -> HapticError {
        switch error {
        case .calibrationFailed: return HapticError(.operationNotPermitted, error.description)
        case .calibrationTimedOut, .deviceDidNotAnswer, .clockDidNotConverge:
            return HapticError(.engineStartTimeout, error.description)
        default: return HapticError(.serverInterrupted, error.description)
        }
    }

    // MARK: Prepare

    /// Makes the device ready for a low-latency start, like `UIFeedbackGenerator.prepare()`:
    /// engine started (link up, driver configured, clock converged — re-synchronised if it drifted
    /// out of convergence), no calibration running (and, with ``Configuration/calibrateOnPrepare``,
    /// the driver calibrated once this connection), and the driver out of standby: WAKE with
    /// ``Configuration/preparedTimeout`` as the device's idle timeout, so the device returns to
    /// standby by itself when nothing plays for that long (STATE standby; ``isPrepared`` becomes
    /// false). Blocks (pumping) until done. See ``prepare(_:)-(HapticPattern)`` to preload a pattern too.
    func prepare() throws {
        do {
            if !session.link.clock.isConverged { try session.synchronizeClock() }
            if capabilities?.calibration == true {
                if session.isCalibrating { try session.waitForDriverReady() }
                if configuration.calibrateOnPrepare && session.calibrationResult == nil && players.isEmpty {
                    try session.calibrate()
                }
            }
            if capabilities?.standby == true { try session.wake(idleTimeout: configuration.preparedTimeout) }
            // A prepared start's GO is placed on the clock's middle too.
            try session.narrowClockForStart()
        } catch {
            throw Self.hapticError(error)
        }
        isPrepared = true
        preparedUntil = timeNow + preparedTimeout
    }

    /// ``HapticEngine/Configuration/preparedTimeout`` on the engine's schedule.
    var preparedTimeout: EngineDuration { EngineDuration(truncating: configuration.preparedTimeout) }

    /// ``prepare()``, and stores `pattern` (compiled for this engine's profile, at rate 1) in a
    /// program slot on the device, so that a player of an equal pattern starting while nothing
    /// else plays sends only a GO {slot, start, event_base} — a few bytes on the any-lane.
    /// A pattern that does not fit the device's program store (CAPABILITIES `program_segments`,
    /// shared by the slots; least recently used programs are evicted first) is streamed as usual.
    func prepare(_ pattern: HapticPattern) throws {
        try prepare()
        guard capabilities?.preload == true, let caps = session.programCapabilities else { return }
        preloadUse += 1
        if let slot = preloads.first(where: { $0.value.pattern == pattern })?.key, let p = preloads[slot],
            session.isLoaded(p.program)
        {
            preloads[slot]?.lastUse = preloadUse
            return
        }
        // Stored as the stream sends it (a marked ramp up from 0 led so that it first drives on
        // its onset), as a library stores it.
        let program = ProgramPacker.deviceForm(compile(pattern, rate: 1))
        let slots = (0..<UInt8(min(Int(caps.programSlots), Int(ProtocolConstants.programSlots))))
        guard !slots.isEmpty else { return }
        let slot = slots.first(where: { preloads[$0] == nil }) ?? slots.min { preloads[$0]!.lastUse < preloads[$1]!.lastUse }!
        preloads[slot] = nil
        // Make room: evict the least recently used other programs until it fits.
        var others = preloads.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key)
        while !session.canPreload(program, slot: slot), let victim = others.first {
            others.removeFirst()
            session.evict(slot: victim)
            preloads[victim] = nil
        }
        do {
            if let loaded = try session.preload(program, slot: slot) {
                preloads[slot] = Preload(pattern: pattern, program: loaded, lastUse: preloadUse)
            }
        } catch {
            throw Self.hapticError(error)
        }
    }

    /// Whether `pattern` is stored on the device, so that its next start can be a GO.
    func isPreloaded(_ pattern: HapticPattern) -> Bool {
        preloads.values.contains { $0.pattern == pattern && session.isLoaded($0.program) }
    }

    /// Starts that were a GO of a preloaded program (the rest were streamed).
    var preparedStarts: Int { goStarts }

    /// When the prepared state lapses on the host's own clock: the device's STATE standby normally
    /// comes first; without WAKE/STANDBY support the host timer alone decides.
    var prepareLapseTime: EngineTime {
        preparedUntil + (capabilities?.standby == true ? .milliseconds(250) : .zero)
    }

    func lapsePreparation() {
        isPrepared = false
    }

    /// Starts `player` (offset 0) with a GO when its pattern is preloaded, nothing else plays and
    /// the start can be honoured; returns false to let it stream.
    func startPrepared(_ player: StreamingPatternPlayer, at requested: EngineTime?) -> Bool {
        guard capabilities?.preload == true, !player.isSilent, !player.loopEnabled,
            players.allSatisfy({ $0 === player }), let compiled = player.currentCompiled,
            compiled.key == StreamingPatternPlayer.CompileKey(rate: 1),
            let (slot, preload) = preloads.first(where: { $0.value.pattern == player.pattern }).map({ ($0.key, $0.value) }),
            session.isLoaded(preload.program)
        else { return false }
        let program = preload.program
        let now = timeNow
        let standby = session.powerState == .standby
        var driveStart = placement.anyLaneStart(now: now, standby: standby, learnt: true)
        // The program's first drive is `firstStart` from pattern time 0 (negative: pre-shifted).
        let firstStart = program.firstStart.sinceStart
        if let requested {
            let asked = requested + firstStart
            if asked > now + .seconds(1) { return false }  // far ahead: streaming binds it later, on a fresher clock
            driveStart = max(driveStart, asked)
        }
        driveStart = max(driveStart, placement.sentEnd)
        let at = driveStart - firstStart  // pattern time 0
        let end = program.driveEnd.engineTime(origin: at)
        guard player.intensity.isConstant(from: driveStart, to: end), player.intensity.value(at: driveStart) == 1 else {
            return false
        }

        // Onset ids: event_base + the compiler's event id, one contiguous block.
        let ledger = placement
        if ledger.nextMarkID > UInt32(Int32.max) - program.maxEventID - 1 { ledger.nextMarkID = 1 }
        let base = ledger.nextMarkID - 1
        ledger.nextMarkID += program.maxEventID
        let serial = player.placePrepared(at: at, preloadedUntil: end)
        pendingGo = PendingGo(slot: slot, player: player, serial: serial, emittedUntil: emittedUntil, tail: ledger.tail)
        let firstDevice = ledger.place(
            .program(
                program, origin: at, driveStart: driveStart, end: end, eventBase: base,
                wakeFor: standby ? configuration.preparedTimeout : nil))
        for s in program.program.segments where s.eventID != 0 {
            guard let event = compiled.eventsByID[s.eventID] else { continue }
            let id = base + s.eventID
            ledger.markIDs[DevicePlacement.MarkKey(player: player.playerID, run: serial, event: s.eventID)] = id
            ledger.marks[id] = OnsetRecord(
                playerID: player.playerID, patternIndex: event.patternIndex, pass: 0,
                requestedTime: at.seconds(plus: event.requestedTime), preShift: event.plannedLead,
                driveOnsetTime: nil, status: .notReported)
            ledger.markOrder.append(id)
            ledger.goMarks.insert(id)
            // The device plays a stored program's offsets on its own clock: a span of it is a device
            // span. A led ramp first drives its lead after its start.
            let sinceFirst = DeviceDuration.microseconds((s.startOffset - program.firstStart).microseconds + s.firstDriveOffset)
            ledger.intendedDeviceStart[id] = firstDevice - session.latencyCorrection + sinceFirst
        }
        goStarts += 1
        preloadUse += 1
        preloads[slot]?.lastUse = preloadUse
        emittedUntil = max(emittedUntil, end)
        lastLevel = 0
        preparedUntil = max(preparedUntil, end + preparedTimeout)
        service()
        return true
    }

    /// FAULT 8: the device refused the GO (slot invalid, queue full, or behind the queue's last
    /// entry): nothing of it is queued. Forget the slot and start the player again, streamed, as
    /// an immediate start (the whole pattern plays, a lead time later than asked).
    func goRefused(slot: UInt8) {
        guard let go = pendingGo, go.slot == slot else { return }
        pendingGo = nil
        preloads[slot] = nil
        emittedUntil = go.emittedUntil
        let ledger = placement
        ledger.restore(go.tail)
        guard let player = go.player else { return }
        let keys = ledger.markIDs.keys.filter { $0.player == player.playerID && $0.run == go.serial }
        let ids = Set(keys.compactMap { ledger.markIDs[$0] })
        for key in keys { ledger.markIDs[key] = nil }
        for id in ids {
            ledger.marks[id] = nil
            ledger.goMarks.remove(id)
            ledger.intendedDeviceStart[id] = nil
            ledger.announcedReports[id] = nil
            ledger.stampedClocks[id] = nil
        }
        ledger.markOrder.removeAll { ids.contains($0) }
        player.restartStreamed(replacing: go.serial)
    }

    // MARK: ROM effects

    /// Plays DRV2605L ROM library effect `id` (1…123) through the driver's own sequencer
    /// (ROM_EFFECT), felt at `time` (engine time; ``HapticTimeImmediate`` = one lead time from now).
    /// It never overlaps streamed drive: it starts at the requested time or right after the drive
    /// already sent, whichever is later, and streamed drive resumes after its (approximate,
    /// ``ROMEffect``) length. The device reports its onset (the GO register write); the fixed
    /// latency of its three register writes is learnt from those reports and scheduled early.
    /// Starts the engine if needed. Returns the onset record's id in ``onsets``.
    /// - Throws: `invalidParameterType` (−4820) for an id outside 1…123, `notSupported` (−4809)
    ///   for a device without ROM_EFFECT, `invalidTime` for a bad time.
    @discardableResult
    func playROMEffect(_ id: Int, atTime time: Double, owner: HapticEngine) throws -> UInt32 {
        guard id >= Int(ProtocolConstants.romEffectMin), id <= Int(ProtocolConstants.romEffectMax),
            let effect = ROMEffect.effect(id: UInt8(id))
        else { throw HapticError(.invalidParameterType, "no DRV2605L ROM effect \(id) (1…123)") }
        guard capabilities?.romEffects == true else {
            throw HapticError(.notSupported, "the device cannot play ROM effect \(id) (no ROM_EFFECT in its protocol)")
        }
        let requested = try engineTime(time)
        let now = timeNow
        var t = time == HapticTimeImmediate || requested < now + restartMargin ? now + engineLead : requested
        let ledger = placement
        t = max(t, ledger.sentEnd)
        let length = EngineDuration.seconds(effect.envelope.duration)
        if ledger.nextMarkID >= UInt32(Int32.max) { ledger.nextMarkID = 1 }
        let mark = ledger.nextMarkID
        ledger.nextMarkID += 1
        ledger.marks[mark] = OnsetRecord(
            playerID: 0, patternIndex: 0, pass: 0, requestedTime: t.seconds, preShift: 0, driveOnsetTime: nil,
            status: .notReported, romEffect: effect.id)
        ledger.markOrder.append(mark)
        ledger.romMarks.insert(mark)
        ledger.markOwners[mark] = ObjectIdentifier(owner)
        ledger.place(.romEffect(effect.id, start: t, length: length, mark: mark))
        emittedUntil = max(emittedUntil, t + length)
        lastLevel = 0
        owner.idleSince = max(owner.idleSince, t + length)
        preparedUntil = max(preparedUntil, t + length + preparedTimeout)
        service()
        return mark
    }

    /// The onset record of a ROM effect started by ``playROMEffect(_:atTime:)``.
    func onset(ofROMEffect mark: UInt32) -> OnsetRecord? { placement.marks[mark] }
}
