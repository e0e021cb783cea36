import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

extension SharedDevice {
    /// The device id for an event onset of a player's run (stable across re-renders).
    func markID(player: StreamingPatternPlayer, run: Int, event: UInt32, record: () -> OnsetRecord) -> UInt32 {
        let ledger = placement
        let key = DevicePlacement.MarkKey(player: player.playerID, run: run, event: event)
        if let id = ledger.markIDs[key] { return id }
        let id = ledger.nextMarkID
        ledger.nextMarkID = ledger.nextMarkID == UInt32(Int32.max) ? 1 : ledger.nextMarkID + 1
        ledger.markIDs[key] = id
        ledger.marks[id] = record()
        ledger.markOrder.append(id)
        return id
    }


    /// Forgets the onsets of run `run` of `player` whose drive was due at engine time `from` or
    /// later and that the device has not reported: the player cut them (a stop, pause, seek or
    /// rate change) before they played, so they were never scheduled. They leave the report.
    func forgetOnsets(player: StreamingPatternPlayer, run: Int, from: EngineTime) {
        let ledger = placement
        let keys = ledger.markIDs.keys.filter { key in
            guard key.player == player.playerID, key.run == run, let id = ledger.markIDs[key], let record = ledger.marks[id] else {
                return false
            }
            return record.status == .notReported && EngineTime(seconds: record.intendedDriveTime) >= from
        }
        guard !keys.isEmpty else { return }
        let ids = Set(keys.compactMap { ledger.markIDs[$0] })
        for key in keys { ledger.markIDs[key] = nil }
        for id in ids {
            ledger.marks[id] = nil
            ledger.intendedDeviceStart[id] = nil
            ledger.followerMarks[id] = nil
            ledger.announcedReports[id] = nil
            ledger.stampedClocks[id] = nil
        }
        ledger.markOrder.removeAll { ids.contains($0) }
    }

    /// Records that mark `follower` begins together with mark `leader`.
    func follow(_ follower: UInt32, _ leader: UInt32) {
        placement.followerMarks[leader, default: []].insert(follower)
    }

    /// Onsets of different players at the same instant start one drive (their ramps mix): the
    /// first mark there leads and carries the onset to the device, the others follow it and take
    /// its report, so no player's event is left without one.
    func leadingMarks(_ marks: [DriveMixer.Mark]) -> [DriveMixer.Mark] {
        guard marks.count > 1 else { return marks }
        var leaders: [EngineTime: UInt32] = [:]
        return marks.filter { m in
            if let leader = leaders[m.engineTime] {
                if leader != m.id { follow(m.id, leader) }
                return false
            }
            leaders[m.engineTime] = m.id
            return true
        }
    }


    // MARK: Device events

    func handle(_ event: DeviceEvent) {
        switch event {
        case .onset(let report):
            // The clock model's window may have restarted on samples read with this report,
            // before ``checkForReboot()`` saw them: the window before is the one to read a
            // stamp from before the new window on.
            let clock = session.link.clock
            placement.record(report, windowBefore: clock.jumps != lastClockJumps ? clock.windowBefore : nil)
            announceOnset(report.event)
        case .fault(let fault):
            switch fault.knownCode {
            case .watchdogStop:
                // The host fell silent and the device emptied its queue: treat like a rewind.
                rewind()
            case .goRejected:
                goRefused(slot: UInt8(truncatingIfNeeded: fault.detail))
            case .presetCut:
                placement.storedPresetCut(eventBase: fault.detail)
            case .driveDropped:
                deviceDroppedDrive(startingAt: fault.detail)
            case .noDriver, .overTemperature, .overCurrent:
                stopBySelf(.systemError, error: HapticError(.unknownError, "the device reported fault \(fault.code)"))
            default:
                break
            }
        case .powerState(let report):
            // The device put the driver in standby (idle timeout, or a host STANDBY): not prepared.
            if report.knownState == .standby { isPrepared = false }
        case .identified, .calibrated, .capabilities:
            break
        }
    }

    /// A device that rebooted restarts its clock: a new clock sample far from the fitted clock.
    ///
    /// Far, against what the two samples guarantee: each frame reached the device between its
    /// send and its ACK's return, so the new sample's device time may run ahead of the previous
    /// one's by up to the new round trip (its frame lingered on the way out) and fall behind by up
    /// to the previous round trip (that frame lingered). A stalled outbound leg, as ser2net under
    /// a starved machine gives, makes the second happen by hundreds of ms: a stalled link, not a
    /// reset, so only a jump beyond those bounds by ``HapticEngine/Configuration/rebootClockJump``
    /// counts.
    func checkForReboot() {
        guard let sample = session.link.clock.samples.last else { return }
        defer {
            lastClockSample = session.link.clock.samples.last
            lastClockJumps = session.link.clock.jumps
        }
        guard let previous = lastClockSample, sample != previous else { return }
        if Self.isClockRestart(previous: previous, next: sample, threshold: configuration.rebootClockJump) {
            let window = Self.resetWindow(previous: previous, first: sample)
            // Unmarked drive the device dropped from then on (FAULT 12) was skipped by the step or
            // lost with the queue: the reset accounts for its events.
            runFaults.removeAll { f in
                if f.byDevice, case .driveGap(let s, _) = f.kind { s >= window.lowerBound - 1e-3 } else { false }
            }
            runFaults.append(RunFault(.deviceReset(after: window.lowerBound, before: window.upperBound)))
            // Reports of the marks placed so far may still come (sent before the reset, or a
            // device whose clock only stepped): they are read on the clock they were stamped on.
            // The clock before: the model's window before it restarted on the new sample (or
            // the model itself, when it took the sample for a smaller contradiction).
            let clock = session.link.clock
            let before = clock.jumps != lastClockJumps ? clock.windowBefore ?? clock : clock
            for id in placement.clockRestarted(
                previous: before, since: previous.deviceReceive, after: previous.hostSend, seen: sample.hostReceive)
            {
                announceOnset(id, kind: .boundSuspect)
            }
            resetAfterReboot()
            // Claimed again, its clock sampled: the onsets the restart made suspect are read on
            // the clock that alone can hold them.
            for id in placement.rereadAfterClockRestart() { announceOnset(id, kind: .revised) }
        }
    }

    /// Whether `next`'s device time cannot be the same clock as `previous`'s: it lies more than
    /// `threshold` outside what their round trips allow (see ``checkForReboot()``).
    static func isClockRestart(previous: ClockSample, next: ClockSample, threshold: HostDuration) -> Bool {
        let expected = Double(previous.deviceReceive.microseconds) + (next.hostSend - previous.hostSend).microseconds
        let jump = Double(next.deviceReceive.microseconds) - expected
        return jump > threshold.microseconds + next.roundTrip.microseconds
            || -jump > threshold.microseconds + previous.roundTrip.microseconds
    }

    /// When the device reset (engine seconds), from the last clock sample before it and the first
    /// after: after the earlier frame left the host, before the later one's ACK came back. A
    /// device clock restarts from zero at reset, so the later sample's device reading, taken off
    /// its host times, narrows that when it fits (it does not on a device whose clock starts elsewhere).
    static func resetWindow(previous: ClockSample, first: ClockSample) -> ClosedRange<Double> {
        let lower = previous.hostSend.seconds, upper = max(lower, first.hostReceive.seconds)
        let sinceReset = Double(first.deviceReceive.wire.rawValue) / 1e6
        let a = first.hostSend.seconds - sinceReset, b = first.hostReceive.seconds - sinceReset
        guard b >= lower, a <= upper else { return lower...upper }
        return max(lower, a)...min(upper, b)
    }

    private func resetAfterReboot() {
        let stopping = players + pausedPlayers
        players.removeAll()
        pausedPlayers.removeAll()
        generation += 1
        for p in stopping { p.finish(error: HapticError(.invalidPatternPlayer, "the device rebooted")) }
        let previousID = session.identity?.deviceId
        do {
            try session.reconnect()
            session.configureDriver(DriverRegisters.derive(from: profile))
            try session.waitForDriverReady()
            // The reboot reset the driver (its calibration is volatile): the same device, the same
            // actuator, so the words it held go back in (RESTORE_CALIBRATION, no buzz).
            if let words = session.keptCalibration, session.identity?.deviceId == previousID,
                session.programCapabilities?.calibrated == false
            {
                _ = try session.restoreCalibration(words)
            }
            try session.synchronizeClock()
        } catch {
            stopBySelf(.deviceDisconnected, error: HapticError(.serverInterrupted, error.description))
            return
        }
        session.deviceEventHandler = { [weak self] event in self?.handle(event) }
        preloads.removeAll()
        pendingGo = nil
        isPrepared = false
        // A rebooted device has a new clock: nothing of the old mapping carries over.
        if let membership = placement.frameTimebase { membership.timebase.withdraw(membership.index) }
        publishedToTimebase = nil
        placement.emptied(at: timeNow, fresh: true)
        lastLevel = 0
        emittedUntil = timeNow
        lastClockSample = session.link.clock.samples.last
        lastClockJumps = session.link.clock.jumps
        for c in engines where c.isRunning { c.resetHandler?() }
    }
}
