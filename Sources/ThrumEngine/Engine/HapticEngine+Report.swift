import ThrumPattern
import ThrumTime

extension HapticEngine {
    /// Link and drive counters, to measure one playback.
    public struct Counters: Sendable {
        public var bytesSent: Int
        public var bytesReceived: Int
        public var segments: Int
        /// Faults the host had noticed so far (``SharedDevice/runFaults``): a report lists those after.
        public var runFaults: Int = 0
    }

    /// Runs the engine until every onset of `player` has been reported, or `grace` s have passed
    /// (a report lost on the way back is not re-sent): what a caller does after a playback ends
    /// and before it reads ``onsets(for:)``. Then it hears from the device once more
    /// (``confirmDeviceAfterDrive(timeout:)``), so that a reset in the run's last moments is a
    /// fault of the run.
    public func waitForOnsetReports(of player: any HapticPatternPlayer, grace: Double = 0.3) {
        let until = currentTime + grace
        while currentTime < until && onsets(for: player).contains(where: { $0.status == .notReported }) {
            run(for: 0.01)
        }
        confirmDeviceAfterDrive()
    }

    /// Runs the engine until a frame sent now has been answered: a PING goes out and a clock
    /// sample of a frame sent after it must come back, or a device reset be noticed, within
    /// `timeout` s. A device that reset while its queue held the last of the drive (the host had
    /// sent it all, 200 ms ahead, and had nothing more to say) answers no frame of this host's
    /// session; after the link's quiet time (300 ms) it is claimed again, and its restarted
    /// clock shows the reset (``SharedDevice/runFaults``). Without this the run ended first,
    /// and a reset 2.8 s into a 3 s event was `on_time`, no fault, exit 0.
    public func confirmDeviceAfterDrive(timeout: Double = 1.5) {
        guard isRunning else { return }
        let (link, faults) = device.locked { (session.link, device.runFaults.count) }
        let sentAt = HostTime(seconds: currentTime)
        device.locked { link.send(.ping) }
        let until = currentTime + timeout
        while currentTime < until && isRunning {
            let heard = device.locked {
                (link.clock.samples.last.map { $0.hostSend >= sentAt } ?? false) || device.runFaults.count > faults
            }
            if heard { return }
            run(for: 0.005)
        }
    }

    /// The counters now.
    public var counters: Counters {
        let stats = session.link.statistics
        return Counters(
            bytesSent: stats.bytesSent, bytesReceived: stats.bytesReceived, segments: segmentsSent,
            runFaults: device.locked { device.runFaults.count })
    }

    /// What `player` (playing `pattern` from engine time `startTime`) did, as a ``PlaybackReport``
    /// in pattern time (seconds after `startTime`): one entry per scheduled onset (per pass when
    /// looping) in time order, then the pattern's audio events as not played.
    public func playbackReport(
        for player: any HapticPatternPlayer, pattern: HapticPattern, startTime: Double, duration: Double, since: Counters
    ) -> PlaybackReport {
        var events: [PlaybackReport.Event] = []
        for (k, o) in onsets(for: player).enumerated() {
            let type = pattern.events.indices.contains(o.patternIndex) ? pattern.events[o.patternIndex].type : .hapticTransient
            events.append(PlaybackReport.Event(id: UInt32(k + 1), type: type, onset: o, relativeTo: startTime))
        }
        let rate = (player as? HapticAdvancedPatternPlayer)?.playbackRate ?? 1
        var faults = device.locked { Array(device.runFaults.dropFirst(since.runFaults)) }.map { $0.relative(to: startTime) }
        // A loop plays the pattern up to its loop end only (Core Haptics' loopEnd, pattern time).
        let advanced = player as? HapticAdvancedPatternPlayer
        let playedUntil = advanced.map { $0.loopEnabled && $0.loopEnd > 0 ? $0.loopEnd : .infinity } ?? .infinity
        RunFaultAccounting.account(for: &faults, in: &events, pattern: pattern, rate: rate, playedUntil: playedUntil)
        // In time order: schedule order is not (an event placed again after a gap or a restart is
        // marked after those already queued, and events never scheduled were appended last).
        // (Events at one time keep their order.)
        events = events.enumerated().sorted {
            ($0.element.pass, $0.element.requestedTime, $0.offset) < ($1.element.pass, $1.element.requestedTime, $1.offset)
        }.enumerated().map { k, e in
            var event = e.element
            event.id = UInt32(k + 1)
            return event
        }
        for (i, e) in pattern.events.enumerated() where !e.type.isHaptic {
            events.append(
                PlaybackReport.Event(
                    id: UInt32(events.count + 1), patternIndex: i, type: e.type, requestedTime: e.relativeTime / rate,
                    onsetTime: nil, driveOnsetTime: nil, status: .notPlayed))
        }
        let now = counters
        var report = PlaybackReport(
            events: events, bytesSent: now.bytesSent - since.bytesSent, bytesReceived: now.bytesReceived - since.bytesReceived,
            segmentCount: now.segments - since.segments,
            startDeviceTime: session.link.clock.deviceTime(at: HostTime(seconds: startTime)),
            duration: duration)
        report.startHostTime = HostTime(seconds: startTime)
        report.faults = faults
        return report
    }
}

extension PlaybackReport.Event {
    /// The report entry of one scheduled onset, its times in seconds after engine time `start`.
    public init(id: UInt32, type: HapticEvent.EventType, onset o: OnsetRecord, relativeTo start: Double) {
        self.init(
            id: id, patternIndex: o.patternIndex, type: type, requestedTime: o.requestedTime - start,
            onsetTime: o.onsetTime.map { $0 - start }, driveOnsetTime: o.driveOnsetTime.map { $0 - start }, status: o.status,
            pass: o.pass)
        onsetBound = o.onsetBound
        boundSuspect = o.boundSuspect
        deviceOnset = o.deviceOnset
        preShift = o.preShift
        scheduleRestart = o.scheduleRestart.map { $0 - start }
    }
}
