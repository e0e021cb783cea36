import ThrumPattern

/// Every event of a run accounted for when the run had a fault (docs/robustness.md): events a
/// device reset lost or cut short, events a hole in the drive hit, and events never scheduled
/// at all are listed with a status that says so, never left out and never `on_time`.
enum RunFaultAccounting {
    /// Appends the haptic events of `pattern` the run has no onset for, as `not_played`, and
    /// rewrites the statuses of `events` (pattern time, as in a ``PlaybackReport``) for `faults`
    /// (pattern time too), and counts in each reset the events the device reported playing that
    /// were due after it (``RunFault/playedAfter``: then it was no reset) and in each hole in the
    /// drive the events it hit (``RunFault/eventsHit``).
    /// `playedUntil`: the pattern time the run plays up to (a loop's end), events from it on are not expected.
    static func account(
        for faults: inout [RunFault], in events: inout [PlaybackReport.Event], pattern: HapticPattern, rate: Double,
        playedUntil: Double = .infinity
    ) {
        // Haptic events of the pattern that no onset stands for (never rendered: after a reset,
        // or inside a hole; or lost from the ledger on a run with no fault, which was seen once in
        // a few runs over a bursty link and is not traced yet): listed now, so that the report has
        // every one of them, and a run that lost one is never reported clean.
        let listed = Set(events.filter { $0.pass == 0 }.map(\.patternIndex))
        for (i, e) in pattern.events.enumerated() where e.type.isHaptic && !listed.contains(i) && e.relativeTime < playedUntil {
            events.append(
                PlaybackReport.Event(
                    id: UInt32(events.count + 1), patternIndex: i, type: e.type, requestedTime: e.relativeTime / rate,
                    onsetTime: nil, driveOnsetTime: nil, status: .notPlayed))
        }
        guard !faults.isEmpty else { return }
        for f in faults.indices {
            guard case .deviceReset(_, let before) = faults[f].kind else { continue }
            faults[f].playedAfter = events.filter { e in
                e.type.isHaptic && e.requestedTime - e.preShift >= before
                    && (e.status == .onTime || e.status == .lateTrimmed || e.status == .mistimed)
            }.count
        }
        func duration(_ e: PlaybackReport.Event) -> Double {
            e.patternIndex < pattern.events.count && e.type == .hapticContinuous ? pattern.events[e.patternIndex].duration / rate : 0
        }
        for f in faults.indices {
            guard case .driveGap = faults[f].kind else { continue }
            faults[f].eventsHit = events.filter { e in
                e.type.isHaptic && status(of: e, duration: duration(e), faults: [faults[f]]) == .driveGap
            }.count
        }
        for k in events.indices where events[k].type.isHaptic {
            if let status = status(of: events[k], duration: duration(events[k]), faults: faults) { events[k].status = status }
        }
    }

    /// The status `event` (lasting `duration` s) takes for `faults`, nil when they did not touch it.
    static func status(of event: PlaybackReport.Event, duration: Double, faults: [RunFault]) -> PlaybackReport.OnsetStatus? {
        // Its drive was removed before a fault could touch it.
        if event.status == .cutByClockMove || event.status == .refusedByDevice { return nil }
        let start = event.requestedTime - event.preShift
        let started = event.status == .onTime || event.status == .lateTrimmed || event.status == .mistimed
        for fault in faults {
            switch fault.kind {
            case .deviceReset(let after, _):
                // Its onset after the reset began: nothing of it played (the queue was wiped).
                // One the device reported dropping stays dropped: the device reached it, so
                // that was no reset but a step of its clock, which made it due at once and late.
                if !started && event.status != .dropped && start >= after - 0.001 { return .lostInReset }
                // Started before, still driving when the device reset.
                if started && start < after && start + duration > after { return .cutByReset }
            case .driveGap(let gapStart, let length):
                let gapEnd = gapStart + length
                // Onset in the hole (late or never), or a hole in its drive before its felt onset
                // or, for a continuous event, before its end.
                if start >= gapStart && start < gapEnd { return .driveGap }
                if start < gapStart && max(start + duration, event.requestedTime) > gapStart { return .driveGap }
            }
        }
        return event.status == .notPlayed ? .notPlayed : nil
    }
}
