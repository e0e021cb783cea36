import ThrumCompiler
import ThrumLink
import ThrumTime
import ThrumWire

/// A drive program stored in one of the device's program slots (PRELOAD_BEGIN + PRELOAD_SEGMENT),
/// ready to be started by a few-byte any-lane GO.
public struct PreloadedProgram: Sendable {
    /// The device's program slot.
    public let slot: UInt8
    /// The program as compiled (pattern time µs; its events carry the compiler's ids).
    public let program: DriveProgram
    /// Pattern time of the first segment: GO's `start` is this instant (≤ 0 with a felt-onset pre-shift).
    public let firstStart: PatternOffset
    /// Pattern time where the drive ends.
    public let driveEnd: PatternOffset
    /// The largest event id of the program: a GO with `event_base` b reports ids b+1 … b+maxEventID.
    public let maxEventID: UInt32
    /// Queue slots a GO of it takes (its segment count).
    public var segmentCount: Int { program.segments.count }
    /// Which load of the slot this is (a later preload of the same slot makes it stale).
    let load: Int
}

extension DeviceSession {
    // MARK: Calibration

    /// After CONFIGURE_DRIVER: waits until the device has handled it and, if that started the
    /// driver's auto-calibration (STATE calibrating, PROTOCOL.md §4.6), until CALIBRATION_RESULT
    /// arrives, so nothing is scheduled while the driver cannot drive. Returns the result, or nil
    /// when no calibration ran.
    /// - Throws: `.calibrationFailed` (status 1), `.calibrationTimedOut` (no result within
    ///   ``Configuration/calibrationTimeout``), or a link error.
    @discardableResult
    public func waitForDriverReady() throws(EngineError) -> CalibrationReport? {
        try pumpWhile(until: now + configuration.connectTimeout) { self.link.pendingCount > 0 }
        // STATE calibrating travels with the ACK of the frame that started it, or right after.
        try pumpFor(.milliseconds(3))
        guard isCalibrating else { return nil }
        return try awaitCalibration(after: calibrationCount)
    }

    /// Runs the driver's auto-calibration (CALIBRATE) and waits for its result (bounded), then
    /// for the actuator to come to rest (``Configuration/calibrationSettle``), so that the
    /// calibration buzz never overlaps what plays next. The actuator buzzes for 250–450 ms.
    /// - Throws: `.calibrationFailed`, `.calibrationTimedOut`, or a link error.
    @discardableResult
    public func calibrate() throws(EngineError) -> CalibrationReport {
        let before = calibrationCount
        link.send(.calibrate)
        try pumpWhile(until: now + configuration.connectTimeout) { self.link.pendingCount > 0 }
        defer { try? pumpFor(configuration.calibrationSettle) }
        return try awaitCalibration(after: before)
    }

    /// Whether the device knows RESTORE_CALIBRATION (protocol version 2 or later; the AVR build,
    /// version 0, does not).
    public var canRestoreCalibration: Bool { (identity?.protocolVersion ?? 0) >= 2 }

    /// Writes a kept auto-calibration result back into a driver that lost it (RESTORE_CALIBRATION,
    /// PROTOCOL.md §3.4: A_CAL_COMP, A_CAL_BEMF and BEMF_GAIN, three register writes and no buzz),
    /// waits until the device has taken it, then asks the device (IDENTIFY) what its driver holds.
    /// - Returns: the `calibrated` state CAPABILITIES reports afterwards: `.restored` when the words
    ///   went in; `.none` after a bus error (FAULT 2); `.measured` when a calibration was running
    ///   (its result stands, the restore is ignored); nil when the device does not know the message
    ///   (nothing is sent) or did not answer the IDENTIFY.
    /// - Throws: a link error.
    public func restoreCalibration(_ words: CalibrationWords) throws(EngineError) -> DriverCalibration? {
        guard canRestoreCalibration else { return nil }
        link.send(.restoreCalibration(words))
        try pumpWhile(until: now + configuration.connectTimeout) { self.link.pendingCount > 0 }
        guard link.pendingCount == 0 else { return nil }
        let state = try refreshCapabilities()?.calibration
        if state == .restored { keptCalibration = words }
        return state
    }

    /// Asks the device again (any-lane IDENTIFY, up to three tries) and returns the CAPABILITIES
    /// that follow its reply; nil when none came within the connect timeout.
    @discardableResult
    public func refreshCapabilities() throws(EngineError) -> ThrumWire.DeviceCapabilities? {
        let before = capabilitiesCount
        let start = now
        for attempt in 1...3 where capabilitiesCount == before {
            link.sendImmediately(.identify)
            let share = configuration.connectTimeout.nanoseconds * Int64(attempt) / 3
            let tryUntil = start + HostDuration(nanoseconds: share)
            try pumpWhile(until: tryUntil) { self.capabilitiesCount == before }
        }
        return capabilitiesCount > before ? programCapabilities : nil
    }

    /// Waits for the CALIBRATION_RESULT after `count`. The device's messages are not
    /// retransmitted (PROTOCOL.md §2): on a lossy link the result can be lost, so after
    /// ``Configuration/calibrationTimeout`` without one the device is asked once more (CALIBRATE:
    /// the driver calibrates again, a second buzz) and answers again.
    private func awaitCalibration(after count: Int) throws(EngineError) -> CalibrationReport {
        for attempt in 1...2 {
            let deadline = now + configuration.calibrationTimeout
            try pumpWhile(until: deadline) { self.calibrationCount == count || self.isCalibrating }
            if calibrationCount > count, !isCalibrating, let result = calibrationResult {
                guard result.passed else { throw .calibrationFailed(result) }
                return result
            }
            if attempt == 1 {
                link.send(.calibrate)
                try pumpWhile(until: now + configuration.connectTimeout) { self.link.pendingCount > 0 }
            }
        }
        throw .calibrationTimedOut(seconds: configuration.calibrationTimeout.seconds)
    }

    // MARK: Power

    /// Takes the driver out of standby (any-lane WAKE) and sets the device's idle timeout: after
    /// `idleTimeout` with nothing queued the device puts the driver in standby by itself and says
    /// so (STATE standby, cause idle timeout). Waits (bounded) until the driver reports ready
    /// when it was in standby.
    public func wake(idleTimeout: HostDuration) throws(EngineError) {
        link.sendImmediately(.wake(idleTimeoutMilliseconds: Self.milliseconds(idleTimeout)))
        guard powerState == .standby else {
            try pumpFor(.microseconds(100))
            return
        }
        try pumpWhile(until: now + configuration.connectTimeout) { self.powerState == .standby }
    }

    static func milliseconds(_ d: HostDuration) -> UInt32 {
        UInt32(clamping: max(0, (d.nanoseconds + 999_999) / 1_000_000))
    }

    // MARK: Preloading

    /// Whether `program` fits `slot` of this device's program store (CAPABILITIES), counting what
    /// the other slots hold.
    public func canPreload(_ program: DriveProgram, slot: UInt8) -> Bool {
        guard let caps = programCapabilities, UInt32(slot) < caps.programSlots, let identity else { return false }
        let count = program.segments.count
        guard count > 0, count <= Int(identity.queueSlots) else { return false }
        let others = slotSizes.filter { $0.key != slot }.reduce(0) { $0 + $1.value }
        guard count + others <= Int(caps.programSegments) else { return false }
        let segments = program.segments
        for i in segments.indices.dropFirst() where segments[i].start < segments[i - 1].start { return false }
        guard let first = segments.first, (segments.last!.start - first.start) < Int64(UInt32.max) else { return false }
        return true
    }

    /// Stores `program` in `slot` (PRELOAD_BEGIN + PRELOAD_SEGMENTs on the sequenced lane) and
    /// waits until the device has taken it. Returns nil — the caller streams instead — when the
    /// device has no program store, the program does not fit (`program_segments`, queue size), or
    /// the device refused it (FAULT 7).
    public func preload(_ program: DriveProgram, slot: UInt8) throws(EngineError) -> PreloadedProgram? {
        guard canPreload(program, slot: slot), let first = program.segments.first else { return nil }
        let faultsBefore = faults.count
        slotSizes[slot] = program.segments.count
        preloadCounter += 1
        loads[slot] = preloadCounter
        link.send(.preloadBegin(slot: slot))
        for s in program.segments {
            link.send(
                .preloadSegment(
                    PreloadSegmentCommand(
                        offset: UInt32(s.start - first.start), duration: s.duration, from: s.from, to: s.to,
                        event: s.eventID)))
        }
        try pumpWhile(until: now + configuration.connectTimeout) { self.link.pendingCount > 0 }
        try pumpFor(.milliseconds(2))
        if faults[faultsBefore...].contains(where: { $0.code == ProtocolConstants.faultProgramFull }) || link.pendingCount > 0 {
            slotSizes[slot] = 0
            return nil
        }
        let end = program.segments.map(\.endOffset).max() ?? .zero
        return PreloadedProgram(
            slot: slot, program: program, firstStart: first.startOffset, driveEnd: end,
            maxEventID: program.segments.map(\.eventID).max() ?? 0, load: preloadCounter)
    }

    /// Empties `slot` (a PRELOAD_BEGIN with no segments), freeing its share of the program store.
    public func evict(slot: UInt8) {
        guard (slotSizes[slot] ?? 0) > 0 else { return }
        link.send(.preloadBegin(slot: slot))
        slotSizes[slot] = 0
        loads[slot] = nil
    }

    /// Whether `program` is still what its slot holds on this connection.
    public func isLoaded(_ program: PreloadedProgram) -> Bool {
        loads[program.slot] == program.load && (slotSizes[program.slot] ?? 0) == program.segmentCount
    }

    /// Sends GO: the program's pattern time 0 is `startHost`; its first segment starts at the
    /// matching device time minus the learnt fixed latency. With `wakeFor`, a WAKE with that idle
    /// timeout goes in the same any-lane frame, first (for a driver that lapsed into standby).
    /// Returns the device time (before latency correction) of pattern time 0.
    @discardableResult
    public func go(_ program: PreloadedProgram, startHost: HostTime, eventBase: UInt32, wakeFor: HostDuration? = nil) -> DeviceTime {
        let zero = link.clock.deviceTime(at: startHost)
        let first = link.clock.deviceTime(at: startHost + program.firstStart.hostDuration) - latencyCorrection
        if let wakeFor { link.sendImmediately(.wake(idleTimeoutMilliseconds: Self.milliseconds(wakeFor))) }
        link.sendImmediately(.go(GoCommand(slot: program.slot, start: first.wire.rawValue, eventBase: eventBase)))
        // §2.4: the GO takes one queue slot per preloaded segment; the link cannot know that.
        link.reserveCredits(program.segmentCount)
        return zero
    }

    /// Queues a ROM effect (sequenced ROM_EFFECT) at device time `start` (already corrected for
    /// the ROM latency).
    public func sendROMEffect(_ effect: UInt8, deviceStart start: DeviceTime, event: UInt32) {
        link.send(.romEffect(ROMEffectCommand(start: start.wire.rawValue, effect: effect, event: event)))
    }
}
