import Foundation
import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

extension SharedDevice {
    // MARK: Streaming

    /// Keeps the drive rendered and sent up to now + lead time.
    func emit(now: EngineTime) {
        // A stored preset's entries are still being queued by the device: nothing streamed yet.
        guard now >= placement.streamHeldUntil else { return }
        // Drive sent now reaches the device one change lead from now at the earliest (two round
        // trips, the restart margin, overstate that where the return leg is the slow one: a
        // serial bridge's latency timer); a CUT placed exactly there is followed without a gap.
        let earliest = now + min(restartMargin, changeLead)
        skipQuietChunks(now: now)
        if emittedUntil < earliest {
            // Fell behind (or idle): nothing can be placed before the device could get it. When a
            // player wanted drive in the span skipped here — whether the drive already sent ran out
            // before now or ends between now and the earliest the device could get more — the
            // device has a hole in its drive: a fault of the run (docs/robustness.md).
            if players.contains(where: { $0.wantsDrive(from: emittedUntil, to: earliest) }) {
                noteDriveGap(from: emittedUntil, length: earliest - emittedUntil, byDevice: false)
            }
            emittedUntil = earliest
            lastLevel = 0
        }
        let horizon = now + queueHorizon
        let chunk = renderChunk
        while emittedUntil < horizon {
            let t0 = emittedUntil
            var t1 = t0 + chunk
            // One player and nothing to mix: its compiled segments go out as compiled (no
            // re-quantisation at chunk edges), and rendering continues from their end.
            if players.count == 1, let verbatim = players[0].verbatimSegments(from: t0, to: t1, horizon: horizon) {
                let end = max(t1, verbatim.map(\.endTime).max() ?? t1)
                let firstStart = verbatim.first?.startTime ?? end
                if lastLevel != 0 && firstStart > t0 {
                    sendSilence(from: t0, before: firstStart)
                }
                for s in verbatim { send(s) }
                lastLevel = verbatim.last.map { $0.endTime >= end ? $0.to : 0 } ?? 0
                emittedUntil = end
                continue
            }
            var ramps: [EnvelopeRamp] = []
            var onsets: [StreamingPatternPlayer.ChunkOnset] = []
            for p in players { p.collect(from: t0, to: t1 + Self.markGuard, ramps: &ramps, onsets: &onsets) }
            if let whole = Self.firstSegmentEnd(from: t0, to: t1, onsets: onsets) {
                t1 = whole
                ramps = []
                onsets = []
                for p in players { p.collect(from: t0, to: t1 + Self.markGuard, ramps: &ramps, onsets: &onsets) }
            }
            t1 = Self.chunkEnd(from: t0, to: t1, onsets: onsets)
            if ramps.isEmpty && lastLevel == 0 {
                emittedUntil = t1
                continue
            }
            let marksHere = leadingMarks(onsets.map(\.mark))
            let segments = mixer.segments(mixing: ramps, marks: marksHere, from: t0, to: t1)
            let firstStart = segments.first?.startTime ?? t1
            if lastLevel != 0 && firstStart > t0 {
                sendSilence(from: t0, before: firstStart)
            }
            for s in segments { send(s) }
            if let last = segments.last, last.endTime >= t1 { lastLevel = last.to } else { lastLevel = 0 }
            emittedUntil = t1
        }
    }

    /// Passes, in one step, the whole render chunks from ``emittedUntil`` up to the queue horizon in
    /// which no player has anything (``quietUntil(from:)``): the chunks the loop below would have
    /// walked one by one, rendering nothing, so what is sent and where chunks start stay the same.
    /// Only with nothing playing at the edge (``lastLevel`` 0: no closing zero is owed).
    private func skipQuietChunks(now: EngineTime) {
        guard lastLevel == 0, !players.isEmpty else { return }
        let horizon = now + queueHorizon, chunk = renderChunk
        guard emittedUntil < horizon else { return }
        let quiet = quietUntil(from: emittedUntil)
        guard quiet > emittedUntil + chunk + Self.markGuard else { return }
        // A chunk [t0, t0 + chunk) is passed when the loop would render it (t0 < horizon) and
        // nothing reaches into it or its mark guard (t0 + chunk + markGuard ≤ quiet).
        let byQuiet = (min(quiet, horizon + chunk + Self.markGuard) - Self.markGuard - emittedUntil).microseconds / chunk.microseconds
        let byHorizon = ((horizon - emittedUntil).microseconds + chunk.microseconds - 1) / chunk.microseconds
        let n = min(byQuiet, byHorizon)
        if n > 0 { emittedUntil += chunk * n }
    }

    /// The earliest engine time at or after `t` at which a player could want anything rendered
    /// (``StreamingPatternPlayer/quietUntil(from:)``); `.distantFuture` with no player playing.
    func quietUntil(from t: EngineTime) -> EngineTime {
        players.lazy.map { $0.quietUntil(from: t) }.min() ?? .distantFuture
    }

    /// Where a mixed chunk from `t0` ends: `t1`, or an onset before it, so that no onset's first
    /// segment is cut. `onsets` are the players' onsets from `t0` up to ``markGuard`` past `t1`.
    /// The device needs one register write (≈ 73 µs) per segment start, and a marked ramp up
    /// from 0 first drives at its crossing (PROTOCOL.md §4.1):
    /// - a mark just after `t1` (within ``markGuard``) ends the chunk there, so no sliver of a
    ///   segment lies between the chunk edge and the onset;
    /// - a mark inside the chunk whose first segment runs on past `t1` ends the chunk at the mark
    ///   too: cut at `t1`, a ramp up from 0 cut before its crossing is quantised 0 → 0, an
    ///   all-zero marked segment whose start write of 0 is its onset, and the ramp that takes
    ///   over at the edge waits for that write (or, cut after it, drives at a crossing moved by
    ///   the re-quantisation). The next chunk starts at the mark and, for a ramp up from 0, runs
    ///   to that segment's end (``firstSegmentEnd(from:to:onsets:)``): it goes out whole.
    static func chunkEnd(from t0: EngineTime, to t1: EngineTime, onsets: [StreamingPatternPlayer.ChunkOnset]) -> EngineTime {
        let reach = t1 + markGuard
        var straddling: EngineTime?, after: EngineTime?
        for onset in onsets {
            let t = onset.mark.engineTime
            if t > t1 && t < reach {
                after = min(after ?? t, t)
            } else if t > t0 && t < t1 && onset.firstSegmentEnd > t1 {
                // The latest: an earlier onset's drive is cut at this one's mark in any case.
                straddling = max(straddling ?? t, t)
            }
        }
        return straddling ?? after ?? t1
    }

    /// Where a mixed chunk from `t0` ends when an onset at `t0` has a first segment that ramps up
    /// from 0 and runs past `t1`: at that segment's end, so it goes out whole, as compiled, and
    /// first drives at its own crossing (cut, it would be re-quantised: 0 → 0 before the
    /// crossing, or a crossing moved by the rounding of its new end; nil when no such onset is at
    /// `t0`). A first segment that starts driving at once is cut like any other. A compiled
    /// segment is at most 1 s long; the placement starts it earlier so that its crossing lands on
    /// the onset, and splits it where that would pass the device's 1 s limit
    /// (``DevicePlacement/place(_:)``, `SegmentCommand.led`).
    static func firstSegmentEnd(from t0: EngineTime, to t1: EngineTime, onsets: [StreamingPatternPlayer.ChunkOnset]) -> EngineTime? {
        var end: EngineTime?
        for onset in onsets where onset.mark.engineTime == t0 && onset.firstSegmentEnd > t1 && onset.firstDrive > .zero {
            end = max(end ?? onset.firstSegmentEnd, onset.firstSegmentEnd)
        }
        return end
    }

    /// A hole in the drive from `start` lasting `length`: a fault of the run (docs/robustness.md),
    /// accounted one way whoever opened it. One that meets or overlaps a hole already noted (within
    /// 1 ms) makes that one longer: the device reports each segment it dropped (FAULT 12), and a
    /// host that fell behind leaves drive that reaches the device late on either side of its own
    /// hole. The hole is the device's only when nothing of it is the host's.
    func noteDriveGap(from start: EngineTime, length: EngineDuration, byDevice: Bool) {
        if byDevice, runFaults.contains(where: { if case .deviceReset(let after, _) = $0.kind { after - 1e-3 <= start.seconds } else { false } }) {
            return  // drive queued before a reset or a clock step, skipped by it: the reset's to account
        }
        runFaults.append(RunFault(.driveGap(start: start.seconds, length: length.seconds), byDevice: byDevice))
        // Holes that meet or overlap (within 1 ms) are one: merged into the earliest noted.
        var k = 0
        while k < runFaults.count {
            guard case .driveGap(let s, let l) = runFaults[k].kind,
                let m = runFaults.indices.first(where: { m in
                    guard m > k, case .driveGap(let s2, let l2) = runFaults[m].kind else { return false }
                    return s2 <= s + l + 1e-3 && s2 + l2 >= s - 1e-3
                }),
                case .driveGap(let s2, let l2) = runFaults[m].kind
            else {
                k += 1
                continue
            }
            let lower = min(s, s2)
            runFaults[k].kind = .driveGap(start: lower, length: max(s + l, s2 + l2) - lower)
            runFaults[k].byDevice = runFaults[k].byDevice && runFaults[m].byDevice
            if let hit = runFaults[m].eventsHit { runFaults[k].eventsHit = (runFaults[k].eventsHit ?? 0) + hit }
            runFaults.remove(at: m)
        }
    }

    /// The device dropped the unmarked segment it was sent to start at device time `deviceStart`
    /// (FAULT 12): the hole is that segment's span, as sent. An entry of a stored preset (no
    /// segment the host sent) is a hole of its length in its event's drive: an event whose onset
    /// was felt, hit after it, is `drive_gap` (the rule for a hole in a continuous event's drive).
    func deviceDroppedDrive(startingAt deviceStart: UInt32) {
        let dropped = placement.droppedDrive(deviceStart: deviceStart)
        noteDriveGap(from: dropped.start, length: dropped.length, byDevice: true)
        // Its onset report may come after the FAULT: the status is set when it does.
        guard let mark = dropped.mark, placement.storedPresetHoleMarks.insert(mark).inserted else { return }
        if var record = placement.marks[mark], DevicePlacement.felt(record.status) {
            record.status = .driveGap
            placement.marks[mark] = record
        }
        if let k = runFaults.lastIndex(where: { f in
            if case .driveGap(let s, let l) = f.kind { s - 1e-3 <= dropped.start.seconds && dropped.start.seconds <= s + l + 1e-3 } else { false }
        }) {
            runFaults[k].eventsHit = (runFaults[k].eventsHit ?? 0) + 1
        }
    }

    /// Sends the zero that ends the drive left playing before a gap from `t0` to `next` (at most 1 ms long).
    private func sendSilence(from t0: EngineTime, before next: EngineTime) {
        let length = min(next - t0, .milliseconds(1))
        send(DriveSegment(startTime: t0, duration: UInt32(length.microseconds), from: 0, to: 0))
    }


    /// Sends drive segment `s` of the engine's schedule (``DriveSegment/startTime``), mapped to the device's
    /// clock (``DevicePlacement/place(_:)``).
    func send(_ s: DriveSegment) {
        placement.place(.segment(s))
    }

    /// Throws away drive already sent from now on: any-lane STOP (the device empties its queue and
    /// goes silent at once), queued segments dropped; rendering restarts a restart margin ahead.
    func rewind() {
        session.link.discardQueuedSegments()
        session.link.sendImmediately(.stop)
        let now = timeNow
        emittedUntil = now + restartMargin
        placement.emptied(at: now, fresh: false)
        lastLevel = 0
        // Drive a GO put on the device is gone too: it is rendered (streamed) from here on.
        for p in players { p.unpreload(from: emittedUntil) }
        pendingGo = nil
    }

    /// Makes engine time `t` renderable again: no-op when not yet rendered, a cheap rewind when
    /// only silence was sent since, a CUT at `t` when a change sent now reaches the device in time
    /// (``changeLead``), and an any-lane STOP otherwise. Never before the end of drive the host
    /// cannot render again (``DevicePlacement/streamFloor``: a ROM effect, a stored preset).
    @discardableResult
    func invalidate(from requested: EngineTime) -> Invalidation {
        let t = max(requested, placement.streamFloor)
        guard t < emittedUntil else { return .nothingSent }
        let lastSentEnd = placement.sentEnd
        if lastSentEnd <= t {
            // The floor is the one emit keeps (a change reaches the device one change lead from now): on
            // real time the clock moves between a start computing `t` and this, and a floor of the
            // restart margin could pass `t` and drop the first event of an immediate start.
            emittedUntil = max(t, lastSentEnd, timeNow + min(restartMargin, changeLead))
            lastLevel = 0
            return .nothingSent
        } else if t >= timeNow + changeLead {
            return .cut(resume: t, device: cut(at: t))
        } else {
            rewind()
            return .stopped(resume: emittedUntil)
        }
    }

    /// What ``invalidate(from:)`` did to the drive already on the device.
    enum Invalidation {
        /// No drive from the time asked was sent yet: nothing on the device changed.
        case nothingSent
        /// A CUT removed the queued drive from device time `device` on; rendering resumes at
        /// engine time `resume`.
        case cut(resume: EngineTime, device: DeviceTime)
        /// An any-lane STOP emptied the device's queue (when it arrives); rendering resumes at `resume`.
        case stopped(resume: EngineTime)
    }

    /// The device's clock moved under the queued drive (a stall or a step the clock model's window
    /// restarted on: ``DevicePlacement/followClockJump()``): drive from one change lead on is
    /// placed again on the clock as it now is (its onsets on time). The CUT that does so removes
    /// too the drive queued on the old clock for events whose time has passed on the host's clock
    /// but that the moved clock had not reached: they never play and are not placed again, and
    /// say so (``PlaybackReport/OnsetStatus/cutByClockMove``), not `not_reported`, and are
    /// announced to the onset observers as a report is (``OnsetUpdate/Kind/reported``).
    func followMovedClock() {
        let from = timeNow + changeLead
        var cut: [UInt32] = []
        switch invalidate(from: from) {
        case .nothingSent: break
        case .cut(let resume, let device): cut = placement.movedClockCut(before: resume, fromDevice: device)
        case .stopped(let resume):
            // The STOP arrives a change lead from now at the latest: drive due on the device from
            // then on is surely gone (the clock model's own mapping: no group timebase asked).
            cut = placement.movedClockCut(before: resume, fromDevice: session.link.clock.deviceTime(at: from.hostTime))
        }
        announceSettled(cut)
    }

    /// Replaces the drive queued from engine time `t` on: a sequenced CUT at `t`'s device time (the
    /// device drops what starts from there and shortens what spans it), the host's not-yet-sent
    /// segments from there dropped, rendering resumed at `t`. No silent gap: the device plays the
    /// old drive up to `t` and the new from `t`.
    @discardableResult
    func cut(at t: EngineTime) -> DeviceTime {
        let device = placement.cut(at: t)
        cutsSent += 1
        emittedUntil = t
        lastLevel = 0
        for p in players { p.unpreload(from: t) }
        return device
    }


}
