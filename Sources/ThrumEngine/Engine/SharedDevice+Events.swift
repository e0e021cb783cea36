import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

extension SharedDevice {
    /// The device id for an event onset of a player's run (stable across re-renders).
    func markID(player: StreamingPatternPlayer, run: Int, event: UInt32, record: () -> OnsetRecord) -> UInt32 {
        let key = MarkKey(player: player.playerID, run: run, event: event)
        if let id = markIDs[key] { return id }
        let id = nextMarkID
        nextMarkID = nextMarkID == UInt32(Int32.max) ? 1 : nextMarkID + 1
        markIDs[key] = id
        marks[id] = record()
        markOrder.append(id)
        return id
    }


    /// Forgets the onsets of run `run` of `player` whose drive was due at engine time `from` or
    /// later and that the device has not reported: the player cut them (a stop, pause, seek or
    /// rate change) before they played, so they were never scheduled. They leave the report.
    func forgetOnsets(player: StreamingPatternPlayer, run: Int, from: EngineTime) {
        let keys = markIDs.keys.filter { key in
            guard key.player == player.playerID, key.run == run, let id = markIDs[key], let record = marks[id] else { return false }
            return record.status == .notReported && EngineTime(seconds: record.intendedDriveTime) >= from
        }
        guard !keys.isEmpty else { return }
        let ids = Set(keys.compactMap { markIDs[$0] })
        for key in keys { markIDs[key] = nil }
        for id in ids {
            marks[id] = nil
            intendedDeviceStart[id] = nil
            followerMarks[id] = nil
        }
        markOrder.removeAll { ids.contains($0) }
    }

    /// Records that mark `follower` begins together with mark `leader`.
    func follow(_ follower: UInt32, _ leader: UInt32) {
        followerMarks[leader, default: []].insert(follower)
    }

    /// Onsets of different players at the same instant start one drive (their ramps mix): the
    /// first mark there leads and carries the onset to the device, the others follow it and take
    /// its report, so no player's event is left without one.
    func leadingMarks(_ marks: [DriveMixer.Mark]) -> [DriveMixer.Mark] {
        guard marks.count > 1 else { return marks }
        var leaders: [PatternOffset: UInt32] = [:]
        return marks.filter { m in
            if let leader = leaders[m.offset] {
                if leader != m.id { follow(m.id, leader) }
                return false
            }
            leaders[m.offset] = m.id
            return true
        }
    }


    // MARK: Device events

    func handle(_ event: DeviceEvent) {
        switch event {
        case .onset(let report):
            guard var record = marks[report.event] else { return }
            let clock = session.link.clock
            let host = clock.hostTime(atDevice: clock.extend(DeviceTime32(rawValue: report.time)))
            if let intended = intendedDeviceStart.removeValue(forKey: report.event) {
                let onset = clock.extend(DeviceTime32(rawValue: report.time))
                if report.knownStatus == .onTime {
                    if romMarks.contains(report.event) {
                        session.observeROMLatency(onset: onset, intended: intended)
                    } else {
                        session.observeLatency(onset: onset, intended: intended)
                    }
                }
                if report.knownStatus == .lateTrimmed, goMarks.contains(report.event) {
                    // The GO reached the device after its start: give the next one more room.
                    preparedLeadExtra = min(preparedLeadExtra + .microseconds(250), .milliseconds(5))
                }
            }
            // A stored preset read from storage after its start begins later, whole, and the
            // device reports it on time against its own shifted schedule: judged here against the
            // time asked for, by the device's rule for streamed segments (PROTOCOL.md §4.2).
            let storedLate = storedPresetExpectedOnsets.removeValue(forKey: report.event).map {
                clock.extend(DeviceTime32(rawValue: report.time)) - $0 > Self.lateTolerance
            } ?? false
            switch report.knownStatus {
            case .onTime, .lateTrimmed:
                record.status = report.knownStatus == .onTime && !storedLate ? .onTime : .lateTrimmed
                record.startedWholeButLate = report.knownStatus == .onTime && storedLate
                let device = clock.extend(DeviceTime32(rawValue: report.time))
                record.deviceOnset = device
                // The reported onset is the middle of the guaranteed bracket, its "±" half the width.
                if let range = clock.hostTimeBounds(atDevice: device) {
                    record.driveOnsetRange = range.lowerBound.seconds...range.upperBound.seconds
                    record.driveOnsetTime = (range.lowerBound.seconds + range.upperBound.seconds) / 2
                    record.boundSuspect = clock.inconsistency > .zero
                } else {
                    record.driveOnsetTime = host.seconds
                }
            case .dropped, .none:
                record.status = .dropped
                record.driveOnsetTime = nil
                record.deviceOnset = nil
                record.driveOnsetRange = nil
            }
            marks[report.event] = record
            for follower in followerMarks[report.event] ?? [] {
                guard var other = marks[follower] else { continue }
                other.status = record.status
                other.driveOnsetTime = record.driveOnsetTime
                other.deviceOnset = record.deviceOnset
                other.driveOnsetRange = record.driveOnsetRange
                other.boundSuspect = record.boundSuspect
                marks[follower] = other
            }
            announceOnset(report.event)
        case .fault(let fault):
            switch fault.knownCode {
            case .watchdogStop:
                // The host fell silent and the device emptied its queue: treat like a rewind.
                rewind()
            case .goRejected:
                goRefused(slot: UInt8(truncatingIfNeeded: fault.detail))
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

    /// A clock sample that contradicted the samples before it casts doubt on the bounds already
    /// reported for onsets after the last sample that agreed (the clock may have moved anywhere
    /// since): those onsets become suspect (``OnsetRecord/boundSuspect``).
    func checkClockContradictions() {
        let clock = session.link.clock
        guard clock.contradictions != contradictionsSeen, let newest = clock.lastContradiction else { return }
        contradictionsSeen = clock.contradictions
        for (id, record) in marks where !record.boundSuspect {
            guard record.driveOnsetRange != nil, let onset = record.deviceOnset, onset >= newest.since else { continue }
            marks[id]?.boundSuspect = true
            announceOnset(id, kind: .boundSuspect)
        }
    }

    /// How far after its due time a segment may start and still be on time (PROTOCOL.md §4.2).
    static let lateTolerance = DeviceDuration.microseconds(50)

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
        defer { lastClockSample = session.link.clock.samples.last }
        guard let previous = lastClockSample, sample != previous else { return }
        if Self.isClockRestart(previous: previous, next: sample, threshold: configuration.rebootClockJump) {
            let window = Self.resetWindow(previous: previous, first: sample)
            runFaults.append(RunFault(.deviceReset(after: window.lowerBound, before: window.upperBound)))
            resetAfterReboot()
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
        lastDeviceStart = nil
        // A rebooted device has a new clock: nothing of the old mapping carries over.
        if let membership = frameTimebase { membership.timebase.withdraw(membership.index) }
        publishedToTimebase = nil
        timeline = freshTimeline()
        lastLevel = 0
        emittedUntil = timeNow
        lastSentEnd = timeNow
        lastClockSample = session.link.clock.samples.last
        for c in engines where c.isRunning { c.resetHandler?() }
    }
}
