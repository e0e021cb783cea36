import Foundation
import ThrumCompiler
import ThrumLink
import ThrumTime
import ThrumWire

/// The one path from "this drive should start at engine time T" to the device's queue: it owns
/// the queue's tail, the mapping to device time (``DeviceTimeline``, the group's frame timebase),
/// the lead policy and the onset ledger. Every door puts its drive on the device through
/// ``place(_:)``, as a different kind of ``Entry``: streamed segments (``SharedDevice`` renders
/// them), a prepared start's GO of a preloaded program, a ROM effect, a stored preset.
///
/// **The tail.** The device refuses an entry that starts before the last one queued (PROTOCOL.md
/// §3.1), so every entry's device start is at or after ``lastDeviceStart`` (a GO is the exception:
/// it is refused whole, FAULT 8, and the prepared start falls back to streaming), and each entry
/// moves the tail past itself. Drive the host cannot render again — a ROM effect, a stored preset
/// the device expands from its own storage — also raises ``streamFloor``: streamed drive is never
/// placed before its end (a change is not cut into it, an immediate start waits for it). A stored
/// preset's device queues its entries a few at a time as it plays (the firmware's feed), and
/// refuses one that starts before streamed drive already queued (FAULT 8, the rest of the preset
/// dropped): so no streamed drive is sent at all until the preset's drive has ended
/// (``streamHeldUntil``), and streamed drive resumes one change lead later (``streamFloor``). The
/// device keeps one PLAY_PRESET waiting behind a play that still feeds and refuses one more, so a
/// stored preset's PLAY_PRESET is held until the play placed before it has begun
/// (``lastStoredPresetBegins``).
///
/// Not thread-safe: used under its ``SharedDevice``'s lock.
final class DevicePlacement {
    let session: DeviceSession
    let configuration: HapticEngine.Configuration

    init(session: DeviceSession, configuration: HapticEngine.Configuration) {
        self.session = session
        self.configuration = configuration
    }

    // MARK: The queue's tail

    /// Where the drive sent so far ends, in engine time (every kind of entry).
    private(set) var sentEnd = EngineTime.zero
    /// The device start of the last entry queued: the next one may not start before it.
    private(set) var lastDeviceStart: DeviceTime?
    /// Where the last entry the host cannot render again (a ROM effect, a stored preset) ends:
    /// streamed drive goes from there on.
    private(set) var streamFloor = EngineTime.zero
    /// Until when no streamed drive may be sent: the end of the last stored preset's drive.
    private(set) var streamHeldUntil = EngineTime.zero
    /// Keeps contiguous streamed drive contiguous on the device clock.
    private(set) var timeline = DeviceTimeline()
    /// SEGMENT messages sent (a led ramp too long for one segment goes out as two).
    private(set) var segmentMessages = 0
    /// The group timeline this device schedules on, when it is in a ``HapticEngineGroup`` whose
    /// devices see one USB frame grid (``FrameTimebase``).
    var frameTimebase: FrameTimebase.Membership? {
        didSet { timeline.timebase = frameTimebase }
    }

    /// The tail as it is, to put back when the device refuses what follows (a GO's FAULT 8).
    struct Tail {
        fileprivate var sentEnd: EngineTime
        fileprivate var lastDeviceStart: DeviceTime?
    }

    var tail: Tail { Tail(sentEnd: sentEnd, lastDeviceStart: lastDeviceStart) }

    func restore(_ tail: Tail) {
        sentEnd = tail.sentEnd
        lastDeviceStart = tail.lastDeviceStart
    }

    /// The device's queue is empty from `now` on (a STOP, a connection, a device that halted or
    /// rebooted). `fresh`: the mapping starts over too (a new clock, or a halted device).
    func emptied(at now: EngineTime, fresh: Bool) {
        sentEnd = now
        streamFloor = now
        streamHeldUntil = now
        lastDeviceStart = nil
        lastStoredPreset = nil
        heldPresetSends.removeAll()
        lastStoredPresetBegins = .zero
        lastStoredPresetBase = nil
        begunStoredPresets.removeAll()
        storedPresetLastEntries.removeAll()
        storedPresetDrive.removeAll()
        storedPresetLateness.removeAll()
        if fresh {
            timeline = DeviceTimeline()
            timeline.timebase = frameTimebase
        } else {
            timeline.reset()
        }
    }

    // MARK: Drive the device dropped

    /// An unmarked segment that drives, as sent: its device start (on the wire) and its span in
    /// engine time.
    struct SentDrive {
        var device: UInt32
        var start: EngineTime
        var length: EngineDuration
    }

    /// The newest unmarked driving segments sent (at most ``unmarkedDriveKept``, more than any
    /// device queue holds): what a FAULT 12 names by its start.
    private var unmarkedDrive: [SentDrive] = []
    static let unmarkedDriveKept = 256

    private func keepSent(_ drive: SentDrive) {
        if unmarkedDrive.count >= 2 * Self.unmarkedDriveKept { unmarkedDrive.removeFirst(Self.unmarkedDriveKept) }
        unmarkedDrive.append(drive)
    }

    /// The span, in engine time, of the unmarked segment starting at device time `deviceStart`
    /// that the device dropped (FAULT 12, PROTOCOL.md §4.2): the segment as sent when it is one
    /// of the newest sent; else its start on the clock model and no length.
    /// An entry of a stored preset play is found from the play's entries and the lateness its
    /// onset reports showed (its length known, and `mark`, the event whose drive it was).
    func droppedDrive(deviceStart: UInt32) -> (start: EngineTime, length: EngineDuration, mark: UInt32?) {
        if let sent = unmarkedDrive.last(where: { $0.device == deviceStart }) { return (sent.start, sent.length, nil) }
        let clock = session.link.clock
        let device = clock.extend(DeviceTime32(rawValue: deviceStart))
        let host = clock.hostTime(atDevice: device + session.latencyCorrection)
        // An entry of a stored preset (the host sent no segment): its length and its event.
        if let entry = storedPresetDroppedDrive(deviceStart: device) { return (EngineTime(host), entry.length, entry.mark) }
        return (EngineTime(host), .zero, nil)
    }

    // MARK: Mapping

    /// The device time the clock model maps engine time `t` to: for starts outside the contiguous
    /// stream (a GO, a ROM effect, a stored preset). Streamed drive and CUTs map through
    /// ``timeline``, which keeps contiguous drive contiguous on the device.
    func deviceTime(at t: EngineTime) -> DeviceTime {
        let link = session.link
        if let timebase = frameTimebase, let device = timebase.deviceTime(atHost: t.hostTime, frames: link.frameClock) { return device }
        return link.clock.deviceTime(at: t.hostTime)
    }

    // MARK: Lead policy

    /// How far ahead of now the drive is rendered and sent (see ``HapticEngine/leadTime``): the
    /// session's ``LeadTimePolicy`` with this engine's render chunk and restart margin (two
    /// chunks beyond what a start waits for, so a start asked for one lead from now is never
    /// moved later, however long the round trip), or the configured fixed lead.
    var leadTime: HostDuration {
        if let fixed = configuration.leadTime { return fixed }
        return session.leadPolicy.lead(
            on: session.link, chunk: configuration.chunk, minimumRestart: configuration.restartMargin, queueSlots: queueSlots)
    }

    /// The device's queue slots (IDENTIFY_REPLY); nil before it identified.
    private var queueSlots: Int? { session.identity.map { Int($0.queueSlots) } }

    /// How much drive one render step covers: the configured chunk, longer on a round trip the
    /// device's queue slots would not cover in chunks of it (``LeadTimePolicy/renderChunk(on:chunk:queueSlots:)``).
    var renderChunk: HostDuration {
        session.leadPolicy.renderChunk(on: session.link, chunk: configuration.chunk, queueSlots: queueSlots)
    }

    /// ``leadTime`` on the engine's schedule.
    var engineLead: EngineDuration { EngineDuration(truncating: leadTime) }

    /// How far ahead drive is rendered and queued: the lead, or
    /// ``HapticEngine/Configuration/queueAhead`` beyond the change lead, so that a host that
    /// stops for up to `queueAhead` leaves no hole whatever the link: drive rendered after such
    /// a pause starts one change lead from then (``SharedDevice/emit(now:)``), and on a long
    /// round trip that lead is ~100 ms (a 130 ms pause on an 80 ms round trip left a 32 ms hole
    /// when the queue was `queueAhead` from now).
    var queueHorizon: EngineDuration {
        max(engineLead, EngineDuration(truncating: configuration.queueAhead) + min(restartMargin, changeLead))
    }

    /// The earliest a change sent now (a CUT and new drive, on the sequenced lane) can take
    /// effect (``LeadTimePolicy/changeLead(on:)``: what host → device frames recently took at
    /// most, a quarter more, the host's own bytes in front of it and 2 ms).
    var changeLead: EngineDuration { EngineDuration(truncating: session.leadPolicy.changeLead(on: session.link)) }

    /// The restart margin, at least two smoothed round trips (so re-sent drive arrives in time).
    var restartMargin: EngineDuration {
        EngineDuration(truncating: session.leadPolicy.restartMargin(on: session.link, minimum: configuration.restartMargin))
    }

    /// Learnt extra lead for prepared starts (GOs that arrived late widen it).
    var preparedLeadExtra = EngineDuration.zero

    /// The earliest a start sent on the any-lane now (a GO, a stored preset) begins: the
    /// prepared-start lead, or the next USB frame boundary plus a margin when the grid is known,
    /// plus the standby exit when the driver sleeps. `learnt`: with the extra lead GOs that
    /// arrived late taught (``preparedLeadExtra``).
    func anyLaneStart(now: EngineTime, standby: Bool, learnt: Bool) -> EngineTime {
        let exit = standby ? EngineDuration(truncating: configuration.standbyExitLead) : .zero
        let extra = learnt ? preparedLeadExtra : .zero
        var start = now + EngineDuration(truncating: configuration.preparedStartLead) + extra + exit
        if let boundary = nextFrameBoundary(after: now) {
            // The start leaves with the next frame: begin a margin after that frame reaches the device.
            start = min(start, boundary + EngineDuration(truncating: configuration.framedStartMargin) + extra + exit)
        }
        return start
    }

    /// The engine time at which the device receives a frame written at `now`, when host frames
    /// arrive on a 1 ms frame grid (USB full speed): the phase of that grid is learnt from the
    /// clock samples — each ACK's `rx_time`, mapped to host time, is a frame arrival. Only used
    /// when the link's outbound delay floor is configured (the model then maps arrivals without the
    /// symmetric-legs bias) and at least 80 % of the recent arrivals lie within ±50 µs of one phase;
    /// nil otherwise (the fixed ``HapticEngine/Configuration/preparedStartLead`` applies).
    func nextFrameBoundary(after now: EngineTime) -> EngineTime? {
        let link = session.link
        guard link.configuration.clock.outboundDelayFloor != nil, link.clock.isConverged else { return nil }
        let samples = link.clock.samples.suffix(48)
        guard samples.count >= 16 else { return nil }
        let phases = samples.map { s -> Double in
            let host = EngineTime(link.clock.hostTime(atDevice: s.deviceReceive)).microseconds
            return Double(((host % 1_000) + 1_000) % 1_000)
        }
        var x = 0.0, y = 0.0
        for p in phases {
            x += cos(p / 1_000 * 2 * .pi)
            y += sin(p / 1_000 * 2 * .pi)
        }
        var phase = atan2(y, x) / (2 * .pi) * 1_000
        if phase < 0 { phase += 1_000 }
        let close = phases.filter { p in
            let d = abs(p - phase)
            return min(d, 1_000 - d) <= 50
        }.count
        guard Double(close) >= 0.8 * Double(phases.count) else { return nil }
        // Frames arrive at engine times ph + k ms; the next one after now.
        let ph = Int64(phase.rounded()) % 1_000
        let k = Int64((Double(now.microseconds - ph) / 1_000).rounded(.down)) + 1
        return EngineTime(microseconds: ph + k * 1_000)
    }

    // MARK: Placing

    /// What goes on the device's queue.
    enum Entry {
        /// Streamed drive: a segment on the engine's schedule (``DriveSegment/startTime``), contiguous with
        /// the streamed drive before it where it starts at its end.
        case segment(DriveSegment)
        /// A prepared start: GO of preloaded `program` with pattern time 0 at `origin`; its drive
        /// begins at `driveStart` and ends at `end`; onset ids from `eventBase`.
        case program(PreloadedProgram, origin: EngineTime, driveStart: EngineTime, end: EngineTime, eventBase: UInt32, wakeFor: HostDuration?)
        /// DRV2605L ROM effect `effect`, felt from `start` for about `length`, onset id `mark`.
        case romEffect(UInt8, start: EngineTime, length: EngineDuration, mark: UInt32)
        /// Stored preset `id`: its drive begins at `start` and lasts `length` (zero when the host
        /// does not know the preset: then only its start is ordered); onset ids from `eventBase`.
        /// Its PLAY_PRESET leaves at once, or is held until `sendAt` (``heldPresetSends``).
        case storedPreset(id: UInt32, start: EngineTime, length: EngineDuration, eventBase: UInt32, sendAt: EngineTime?)
    }

    /// Puts `entry` on the device's queue: maps its start to device time (corrected for the
    /// device's learnt fixed latency), keeps it behind the queue's tail, sends it and moves the
    /// tail past it. Returns the device time its drive starts at, before the latency correction
    /// for a GO (its onsets' reference), after it otherwise.
    @discardableResult
    func place(_ entry: Entry) -> DeviceTime {
        let link = session.link
        // Drive placed after a stored preset: its late start no longer moves the tail.
        if case .storedPreset = entry {} else { lastStoredPreset = nil }
        switch entry {
        case .segment(let s):
            let start = s.startTime
            // Start early by the device's learnt fixed latency (the I²C write before the drive begins).
            let mapped = timeline.map(
                hostStart: start.hostTime, duration: s.length.hostDuration, clock: link.clock, frames: link.frameClock,
                shift: session.latencyCorrection)
            // A marked ramp up from 0 first drives at its crossing (PROTOCOL.md §4.1): start it
            // earlier by the lead that puts the lengthened ramp's crossing on the intended instant,
            // keeping its end (split when that is longer than a segment may be).
            let duration = UInt32(clamping: mapped.duration.microseconds)
            let led =
                s.eventID != 0
                ? SegmentCommand.led(duration: duration, from: s.from, to: s.to)
                : SegmentCommand.Led(whole: duration, to: s.to)
            let device = behindTail((mapped.start - .microseconds(Int64(led.lead))).clampedToOrigin)
            lastDeviceStart = device
            // The latency learnt is onset − the first drive as scheduled (the compensator's definition).
            if s.eventID != 0 {
                let first = SegmentCommand.firstDriveOffset(duration: led.markedDuration, from: s.from, to: led.markedTo)
                intendedDeviceStart[s.eventID] = device + .microseconds(Int64(first))
            }
            link.send(
                .segment(
                    SegmentCommand(start: device.wire.rawValue, duration: led.markedDuration, from: s.from, to: led.markedTo, event: s.eventID)))
            segmentMessages += 1
            if s.eventID == 0 && (s.from != 0 || s.to != 0) {
                keepSent(SentDrive(device: device.wire.rawValue, start: start, length: s.length))
            }
            if led.restDuration > 0 {
                let rest = device + .microseconds(Int64(led.markedDuration))
                lastDeviceStart = rest
                link.send(.segment(SegmentCommand(start: rest.wire.rawValue, duration: led.restDuration, from: led.markedTo, to: s.to)))
                segmentMessages += 1
                let restStart = start + .microseconds(Int64(led.markedDuration) - Int64(led.lead))
                keepSent(SentDrive(device: rest.wire.rawValue, start: restStart, length: .microseconds(Int64(led.restDuration))))
            }
            sentEnd = max(sentEnd, start + s.length)
            return device
        case .program(let program, let origin, let driveStart, let end, let eventBase, let wakeFor):
            let firstDevice = deviceTime(at: driveStart)
            session.go(program, startHost: origin.hostTime, eventBase: eventBase, wakeFor: wakeFor)
            let lastStart = program.program.segments.last.map { $0.startOffset - program.firstStart } ?? .zero
            let deviceLast = (firstDevice - session.latencyCorrection + .microseconds(lastStart.microseconds)).clampedToOrigin
            lastDeviceStart = max(lastDeviceStart ?? .zero, deviceLast)
            sentEnd = max(sentEnd, end)
            timeline.reset()
            return firstDevice
        case .romEffect(let effect, let start, let length, let mark):
            let device = behindTail(deviceTime(at: start) - session.romLatencyCorrection)
            intendedDeviceStart[mark] = device
            session.sendROMEffect(effect, deviceStart: device, event: mark)
            lastDeviceStart = device.clampedToOrigin
            outOfStream(until: start + length)
            return device
        case .storedPreset(let id, let start, let length, let eventBase, let sendAt):
            let device = behindTail(deviceTime(at: start) - session.latencyCorrection)
            if let sendAt {
                heldPresetSends.append((sendAt, id, device, eventBase, lastStoredPresetBase))
            } else {
                session.sendPlayPreset(id: id, deviceStart: device, eventBase: eventBase)
            }
            if let previous = lastStoredPresetBase, !heldPresetSends.contains(where: { $0.after == previous }) {
                begunStoredPresets.remove(previous)
            }
            // Only the plays a held PLAY_PRESET may still wait for keep their last entry.
            let waitedFor = Set(heldPresetSends.compactMap(\.after) + [lastStoredPresetBase].compactMap { $0 })
            storedPresetLastEntries = storedPresetLastEntries.filter { waitedFor.contains($0.key) }
            lastStoredPresetBegins = start
            // A preset the host does not know (length zero) has no onsets to wait for.
            lastStoredPresetBase = length > .zero ? eventBase : nil
            // Its entries follow on the device's own clock: the last starts before its end.
            lastDeviceStart = (device + .microseconds(length.microseconds)).clampedToOrigin
            // Its last entries reach the device's queue only as it plays: streamed drive leaves
            // once the preset's drive is over, starting a change lead after that.
            let end = start + length
            holdStream(until: end)
            lastStoredPreset = (eventBase, lastDeviceStart!, end)
            return device
        }
    }

    /// Where the last stored preset placed begins its drive. The device keeps one PLAY_PRESET
    /// waiting behind a play that still feeds its entries and refuses one more (FAULT 11), so the
    /// next stored preset's PLAY_PRESET is held until then: the play before it has begun, the one
    /// before that has queued its last entry, and nothing waits on the device.
    private(set) var lastStoredPresetBegins = EngineTime.zero

    /// The onset ids' base of the last stored preset placed (what the next one's hold waits for).
    private var lastStoredPresetBase: UInt32?

    /// PLAY_PRESETs held until the play before theirs has begun, in order: `sendAt` is its
    /// planned start, `after` its onset ids' base. A preset read from storage after its start
    /// begins later than planned (docs/library.md, "Late starts"), and a PLAY_PRESET sent at the
    /// planned start would then wait on the device behind one still waiting, and be refused
    /// (FAULT 11): so the hold lasts until that play's first onset report says it began
    /// (``begunStoredPresets``), or ``beginReportWait`` past its planned start when none comes.
    private var heldPresetSends: [(sendAt: EngineTime, id: UInt32, device: DeviceTime, eventBase: UInt32, after: UInt32?)] = []

    /// Onset ids' bases of stored presets that held PLAY_PRESETs wait for and that reported their
    /// first onset.
    private var begunStoredPresets: Set<UInt32> = []

    /// How long past its planned start a held PLAY_PRESET waits for the play before it to report
    /// its first onset (a lost report, a play the device refused): past the latest storage read
    /// seen (0.41 s, the first play after writing 700 presets) with room to spare, as
    /// ``HapticEngine/waitForStoredPresetReports(of:duration:)`` waits for reports.
    static let beginReportWait = EngineDuration.milliseconds(1_500)

    /// When the next held PLAY_PRESET is due to leave: its planned time once the play before it
    /// began, else when the wait for that play's report is over (a report wakes the engine).
    var nextHeldPresetSend: EngineTime? {
        guard let held = heldPresetSends.first else { return nil }
        return hasBegun(held.after) ? held.sendAt : held.sendAt + Self.beginReportWait
    }

    private func hasBegun(_ base: UInt32?) -> Bool { base.map { begunStoredPresets.contains($0) } ?? true }

    /// Sends the held PLAY_PRESETs whose time has come: the play before each has begun (its first
    /// onset report came), or the wait for that report is over.
    func sendHeldPresets(now: EngineTime) {
        while let held = heldPresetSends.first, held.sendAt <= now,
            hasBegun(held.after) || now >= held.sendAt + Self.beginReportWait
        {
            heldPresetSends.removeFirst()
            if let after = held.after {
                begunStoredPresets.remove(after)
                storedPresetLastEntries[after] = nil
            }
            session.sendPlayPreset(id: held.id, deviceStart: held.device, eventBase: held.eventBase)
        }
    }

    /// The stored preset with onset ids from `base` reported an onset: a PLAY_PRESET held behind
    /// it may leave (``sendHeldPresets(now:)``).
    private func storedPresetBegan(base: UInt32) {
        guard base == lastStoredPresetBase || heldPresetSends.contains(where: { $0.after == base }) else { return }
        begunStoredPresets.insert(base)
    }

    /// When the PLAY_PRESET of a stored preset placed now may leave: nil for at once (nothing
    /// placed before it, or that play has begun), else the planned start of the play before it,
    /// held further until that play reports its first onset (``sendHeldPresets(now:)``): a play
    /// read from storage after its planned start has not begun although its time has passed.
    func storedPresetSendTime(now: EngineTime) -> EngineTime? {
        guard let base = lastStoredPresetBase, !begunStoredPresets.contains(base) else { return nil }
        if lastStoredPresetBegins > now { return lastStoredPresetBegins }
        return now < lastStoredPresetBegins + Self.beginReportWait ? lastStoredPresetBegins : nil
    }

    /// No streamed drive until `end`, the end of drive the device expands itself (a stored
    /// preset's), and none before a change lead after it.
    private func holdStream(until end: EngineTime) {
        streamHeldUntil = max(streamHeldUntil, end)
        outOfStream(until: end + max(restartMargin, changeLead) + .milliseconds(2))
    }

    /// The last stored preset placed: its onset ids from `eventBase`, where its drive ends on the
    /// device's clock and on the engine's schedule, as asked (nil once a late start moved them).
    private var lastStoredPreset: (eventBase: UInt32, deviceEnd: DeviceTime, end: EngineTime)?

    /// Mark `mark` of a stored preset began `lateness` after the time asked for (read from storage
    /// after its start, the preset starts later, whole: docs/library.md). When it is the last
    /// entry placed, the queue's tail moves with it: the device refuses an entry that starts
    /// before the shifted preset's last (FAULT 8, the next preset dropped whole), as it did to a
    /// preset played right after a late one.
    private func storedPresetStartedLate(mark: UInt32, by lateness: DeviceDuration) {
        if let base = storedPresetBases[mark], storedPresetLateness[base] == nil { storedPresetLateness[base] = lateness }
        delayHeldPresets(behind: storedPresetBases[mark], by: lateness)
        guard let last = lastStoredPreset, mark >= last.eventBase else { return }
        lastStoredPreset = nil
        let shiftedEnd = last.deviceEnd + lateness
        if lastDeviceStart.map({ $0 < shiftedEnd }) ?? true { lastDeviceStart = shiftedEnd }
        holdStream(until: last.end + EngineDuration.microseconds(lateness.microseconds))
    }

    /// The stored preset with onset ids from `base` began `lateness` late: a PLAY_PRESET held
    /// behind it (placed at its planned end) may not start before its shifted last entry, which
    /// the device requires of a waiting play (FAULT 11 otherwise): it starts that much later when
    /// it would, and the tail moves with it when it is the last entry placed.
    private func delayHeldPresets(behind base: UInt32?, by lateness: DeviceDuration) {
        guard let base, let lastEntry = storedPresetLastEntries[base] else { return }
        let shiftedLast = lastEntry + lateness
        for i in heldPresetSends.indices where heldPresetSends[i].after == base && heldPresetSends[i].device < shiftedLast {
            let delay = shiftedLast - heldPresetSends[i].device
            heldPresetSends[i].device = shiftedLast
            guard let last = lastStoredPreset, last.eventBase == heldPresetSends[i].eventBase else { continue }
            let shiftedEnd = last.deviceEnd + delay
            if lastDeviceStart.map({ $0 < shiftedEnd }) ?? true { lastDeviceStart = shiftedEnd }
            holdStream(until: last.end + EngineDuration.microseconds(delay.microseconds))
        }
    }

    /// Where each stored preset play's last entry starts on the device's clock, as asked, by its
    /// onset ids' base (kept for the plays a held PLAY_PRESET may wait for).
    var storedPresetLastEntries: [UInt32: DeviceTime] = [:]

    /// `device`, or the tail's start when it would lie before it.
    private func behindTail(_ device: DeviceTime) -> DeviceTime {
        if let last = lastDeviceStart, device < last { return last }
        return device
    }

    /// Drive the host cannot render again lasts until `end`: streamed drive resumes after it.
    private func outOfStream(until end: EngineTime) {
        sentEnd = max(sentEnd, end)
        streamFloor = max(streamFloor, end)
        timeline.reset()
    }

    /// A sequenced CUT at engine time `t` (the device drops what starts from there and shortens
    /// what spans it); the streamed chain continues from exactly there. Returns its device time.
    @discardableResult
    func cut(at t: EngineTime) -> DeviceTime {
        let link = session.link
        let host = t.hostTime
        let device = (timeline.deviceTime(atHost: host, clock: link.clock, frames: link.frameClock) - session.latencyCorrection).clampedToOrigin
        link.discardQueuedSegments(startingAtOrAfter: device.wire.rawValue)
        link.send(.cut(at: device.wire.rawValue))
        timeline.restart(hostEnd: host, deviceEnd: device)
        lastDeviceStart = device
        sentEnd = t
        return device
    }

    // MARK: The onset ledger

    /// Onset records by id (the id the device reports an onset with).
    var marks: [UInt32: OnsetRecord] = [:]
    /// Their ids in schedule order.
    var markOrder: [UInt32] = []
    var markIDs: [MarkKey: UInt32] = [:]
    var nextMarkID: UInt32 = 1
    /// Which client made each mark that belongs to no player (a ROM effect, a stored preset's
    /// events): its `onsets` list them.
    var markOwners: [UInt32: ObjectIdentifier] = [:]
    /// The device time each marked segment (or ROM effect) was sent to start at (after latency
    /// correction), until its onset report comes back.
    var intendedDeviceStart: [UInt32: DeviceTime] = [:]
    /// The device time each stored preset event's onset is due at (its asked start plus the
    /// device's fixed latency), until its report comes back: a later one is late (PROTOCOL.md §4.2).
    var storedPresetExpectedOnsets: [UInt32: DeviceTime] = [:]
    /// Onset ids of ROM effects (their latency is learnt apart).
    var romMarks: Set<UInt32> = []
    /// Onset ids of events started by GO.
    var goMarks: Set<UInt32> = []
    /// Marks whose events begin together with another mark's (layered events): they take that
    /// mark's onset report. Never sent to the device.
    var followerMarks: [UInt32: Set<UInt32>] = [:]
    /// The record each onset had when its report was announced (``OnsetUpdate/Kind/reported``):
    /// a later report of it is announced as a revision, or not at all.
    var announcedReports: [UInt32: OnsetRecord] = [:]
    /// Stored presets started so far: each start gets its own event base (docs/library.md).
    var storedPresetStarts: UInt32 = 0
    /// The event base of the play each stored preset event's mark belongs to.
    var storedPresetBases: [UInt32: UInt32] = [:]
    /// The unmarked driving entries of each stored preset play, by event base, for a FAULT 12
    /// that names one (``storedPresetDroppedDrive(deviceStart:)``).
    var storedPresetDrive: [UInt32: StoredPresetDrive] = [:]
    /// Stored preset events a dropped entry (FAULT 12) left a hole in the drive of.
    var storedPresetHoleMarks: Set<UInt32> = []
    /// How late each stored preset play began, by event base (from its first late onset report).
    var storedPresetLateness: [UInt32: DeviceDuration] = [:]
    /// Event bases of the stored preset plays whose rest the device dropped (FAULT 11).
    private(set) var cutStoredPresetPlays: Set<UInt32> = []

    /// FAULT 11: the device dropped the entries of the stored preset play from `eventBase` that
    /// it had not queued yet. Those queued before still play and report; which events were
    /// dropped is known once the rest have reported (``settleRefusedStoredPresetEvents(_:)``).
    func storedPresetCut(eventBase: UInt32) {
        cutStoredPresetPlays.insert(eventBase)
    }

    /// The events among `ids` (stored preset marks) of a play the device cut that have not
    /// reported: the device refused them (``PlaybackReport/OnsetStatus/refusedByDevice``), not
    /// lost reports. Called once no more reports are to be expected. Returns their ids.
    func settleRefusedStoredPresetEvents(_ ids: [UInt32]) -> [UInt32] {
        var refused: [UInt32] = []
        for id in ids where marks[id]?.status == .notReported {
            guard let base = storedPresetBases[id], cutStoredPresetPlays.contains(base) else { continue }
            marks[id]?.status = .refusedByDevice
            storedPresetExpectedOnsets[id] = nil
            refused.append(id)
        }
        return refused
    }
    /// The clock model's ``ThrumLink/ClockModel/contradictions`` already applied to the onsets.
    var contradictionsSeen = 0
    /// The clock model's ``ThrumLink/ClockModel/jumps`` the schedule has followed.
    private var clockJumpsSeen = 0

    /// Whether the clock model's window restarted on a moved device clock (a stall, a step)
    /// since the schedule last looked; if so the mapping starts over from the model's new estimate
    /// (``DeviceTimeline/forgetMapping()``), and drive already placed on the old one is misplaced.
    func followClockJump() -> Bool {
        let jumps = session.link.clock.jumps
        guard jumps != clockJumpsSeen else { return false }
        clockJumpsSeen = jumps
        timeline.forgetMapping()
        return true
    }

    /// A CUT (or STOP) placed the drive again after the device's clock moved
    /// (``SharedDevice/followMovedClock()``): the device drops what was queued to start from its
    /// clock reading `cut` on, and the host renders again from engine time `resume`. Marks sent to
    /// start at or after `cut` (on the clock before the move) whose time lies before `resume` are
    /// not placed again: their start is gone (what of their drive lies after `resume` is rendered
    /// afresh, without an onset), and they become ``PlaybackReport/OnsetStatus/cutByClockMove``
    /// (a report of one, should the CUT have reached the device after it began, still says what it did).
    /// Returns the ids of the marks it labelled so.
    @discardableResult
    func movedClockCut(before resume: EngineTime, fromDevice cut: DeviceTime) -> [UInt32] {
        var labelled: [UInt32] = []
        for (id, start) in intendedDeviceStart where start >= cut && !romMarks.contains(id) {
            guard let record = marks[id], record.status == .notReported, EngineTime(seconds: record.intendedDriveTime) < resume else {
                continue
            }
            intendedDeviceStart[id] = nil
            for mark in [id] + (followerMarks[id] ?? []) where marks[mark]?.status == .notReported {
                marks[mark]?.status = .cutByClockMove
                marks[mark]?.scheduleRestart = resume.seconds
                labelled.append(mark)
            }
        }
        return labelled.sorted()
    }

    struct MarkKey: Hashable {
        var player: Int
        var run: Int
        var event: UInt32
    }

    /// How far after its due time a segment may start and still be on time (PROTOCOL.md §4.2).
    static let lateTolerance = DeviceDuration.microseconds(50)
    /// How far outside its guaranteed bracket an event's intended drive instant may lie, on the
    /// host's clock, and the event still count as on time (``PlaybackReport/OnsetStatus/mistimed``).
    static let mistimedTolerance = 0.001

    /// The clock each mark placed before the device's clock restarted (a detected reset, or a
    /// step taken for one) was stamped on, until its report comes back: such a report is read on
    /// that clock, unless that clock places it after the restart was seen (``KeptClock``).
    var stampedClocks: [UInt32: KeptClock] = [:]

    /// The clock model from before a restart of the device's clock, and the host time the restart
    /// was seen by (the first clock sample after it came back).
    struct KeptClock {
        var clock: ClockModel
        var restartSeen: HostTime

        /// Whether an onset stamped `stamp` cannot lie on this clock: read on it, its whole
        /// bracket falls after the restart was seen, when that clock no longer ran. Then the
        /// device stamped it on its clock as it now is: it did not reset, its clock stepped, and
        /// it went on playing the drive queued before the step (its reports came after the host
        /// claimed it again, in the same session).
        func excludes(_ stamp: DeviceTime32) -> Bool {
            guard let bounds = clock.hostTimeBounds(atDevice: clock.extend(stamp)) else { return false }
            return bounds.lowerBound > restartSeen
        }
    }
    /// Widest "±" (s) an onset read on a clock from before a restart may have and still be reported.
    static let widestPreRestartBound = 1.0

    /// The host time each onset report was recorded at (its arrival), for a clock restart seen
    /// later (``rereadAfterClockRestart()``); pruned to the last few seconds.
    private var reportArrivals: [UInt32: HostTime] = [:]
    /// Onsets reported before a restart of the device's clock was seen, stamped after the last
    /// clock sample before it, so made suspect: which clock they lie on is decided once the
    /// clock as it now is is known (``rereadAfterClockRestart()``).
    private var pendingRereads: [UInt32: PendingReread] = [:]

    struct PendingReread {
        /// When its report arrived: the onset lies before it.
        var arrival: HostTime
        /// When the frame of the last clock sample before the restart left the host: an onset
        /// on the restarted (or stepped) clock lies after it.
        var restartAfter: HostTime
    }

    /// The device's clock restarted (``SharedDevice/checkForReboot()``): the marks not yet
    /// reported keep `previous`, the clock model as it was before, for their reports; and onsets
    /// already reported that the device stamped after `since` (the device time of the last clock
    /// sample before the restart) become suspect: they may lie on the restarted (or stepped) clock,
    /// read on the old one. Returns the ids of those.
    /// `after`: when the frame of that last sample left the host.
    func clockRestarted(previous: ClockModel, since: DeviceTime, after: HostTime, seen: HostTime) -> [UInt32] {
        var suspect: [UInt32] = []
        for (id, record) in marks {
            if [.notReported, .cutByClockMove].contains(record.status), stampedClocks[id] == nil {
                stampedClocks[id] = KeptClock(clock: previous, restartSeen: seen)
            }
            if !record.boundSuspect, let onset = record.deviceOnset, onset >= since {
                marks[id]?.boundSuspect = true
                suspect.append(id)
                if let arrival = reportArrivals[id] { pendingRereads[id] = PendingReread(arrival: arrival, restartAfter: after) }
            }
        }
        return suspect
    }

    /// Once the clock as it now is is known after a restart (the host claimed the device again
    /// and sampled its clock), the onsets made suspect by it (``clockRestarted(previous:since:after:seen:)``)
    /// are read again where only one clock can hold them: an onset lies before its report arrived,
    /// and, on the restarted clock, after the last sample before the restart. One the clock from
    /// before cannot place before its report's arrival was stamped on the clock as it now is (a
    /// step taken for a reset: the device played on): read on that, and judged like any other
    /// (`mistimed` when it played far from its time); one the clock as it now is cannot place after
    /// the last sample before the restart lies on the clock from before. Either way its bound is no
    /// longer in doubt. One both clocks can place stays suspect. Read on the clock from before,
    /// the onsets of a 50 ms step reported before the step was seen were `on_time` and suspect,
    /// 50 ms from the truth. Returns the ids read again.
    func rereadAfterClockRestart() -> [UInt32] {
        defer { pendingRereads.removeAll() }
        let clock = session.link.clock
        var reread: [UInt32] = []
        for (id, pending) in pendingRereads {
            guard var record = marks[id], record.boundSuspect, let old = record.driveOnsetRange, let onset = record.deviceOnset else { continue }
            let stamp = clock.extend(DeviceTime32(rawValue: onset.wire.rawValue))
            guard let now = clock.hostTimeBounds(atDevice: stamp) else { continue }
            let arrival = pending.arrival.seconds
            let onOld = old.lowerBound <= arrival
            let onNew = now.lowerBound.seconds <= arrival && now.upperBound.seconds >= pending.restartAfter.seconds
            guard onOld != onNew else { continue }
            if onNew {
                record.deviceOnset = stamp
                record.driveOnsetRange = now.lowerBound.seconds...now.upperBound.seconds
                record.driveOnsetTime = (now.lowerBound.seconds + now.upperBound.seconds) / 2
                if record.status == .onTime, !romMarks.contains(id),
                    Self.isMistimed(intended: record.intendedDriveTime, bracket: record.driveOnsetRange!)
                {
                    record.status = .mistimed
                }
            }
            record.boundSuspect = clock.inconsistency > .zero
            settle(id, as: record)
            reread.append(id)
        }
        return reread.sorted()
    }

    /// Records an onset report: the record's status and time (the middle of the guaranteed
    /// bracket), the latency learnt from an on-time one, the GO lead widened by a late one; the
    /// marks that follow it take the same report.
    ///
    /// The report of a mark placed before the device's clock restarted is read on the clock it
    /// was placed on (``stampedClocks``) and marked suspect: whether the device really reset
    /// (the report was in flight) or its clock only stepped (it went on playing), the host cannot
    /// tell which clock the onset was stamped on. Its status stays as the device said; an onset
    /// that clock cannot place within ± ``widestPreRestartBound`` is reported without a time.
    /// Unless that clock places the onset after the restart was seen (``KeptClock/excludes(_:)``):
    /// then it was stamped on the clock as it now is (a step taken for a reset, the device went
    /// on playing), and is read on that, judged like any other (`mistimed` when it played far
    /// from its time: drive queued before a step plays the step early or late). Read on the old
    /// clock such onsets were `on_time` at their intended times, 50 ms from the truth.
    /// `windowBefore`: the clock model as it was before its window restarted, when it restarted on
    /// samples not yet looked at (read in the same batch as this report): a stamp that does not
    /// lie after the new window's first sample is read on it the same way.
    func record(_ report: OnsetReport, windowBefore: ClockModel? = nil) {
        guard var record = marks[report.event] else { return }
        let arrival = session.pump.clock.now()
        if reportArrivals.count >= 4_096 { reportArrivals = reportArrivals.filter { arrival - $0.value < .seconds(5) } }
        reportArrivals[report.event] = arrival
        var kept = stampedClocks.removeValue(forKey: report.event)
        if kept == nil, let windowBefore, let first = session.link.clock.samples.first,
            session.link.clock.extend(DeviceTime32(rawValue: report.time)) < first.deviceReceive
        {
            kept = KeptClock(clock: windowBefore, restartSeen: first.hostReceive)
        }
        let onMovedClock = kept?.excludes(DeviceTime32(rawValue: report.time)) ?? false
        let stamped = onMovedClock ? nil : kept?.clock
        let clock = stamped ?? session.link.clock
        let host = clock.hostTime(atDevice: clock.extend(DeviceTime32(rawValue: report.time)))
        if let intended = intendedDeviceStart.removeValue(forKey: report.event), stamped == nil, !onMovedClock {
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
        var storedLate = false
        if let base = storedPresetBases[report.event] { storedPresetBegan(base: base) }
        if let expected = storedPresetExpectedOnsets.removeValue(forKey: report.event) {
            let lateness = clock.extend(DeviceTime32(rawValue: report.time)) - expected
            storedLate = lateness > Self.lateTolerance
            if storedLate, [.onTime, .lateTrimmed].contains(report.knownStatus) {
                storedPresetStartedLate(mark: report.event, by: lateness)
            }
        }
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
                record.boundSuspect = clock.inconsistency > .zero || stamped != nil
                // On time by the device's clock, but that clock moved after the drive was placed
                // on it (a stall or a step the window restarted on): the bracket, on the host's
                // clock, can prove the event played far from its time — when the onset is surely
                // on the window's clock (after its first sample; before it, the clock may have
                // moved before or after the onset, and the onset is suspect instead).
                // A bracket in doubt (suspect) proves nothing: the onset stays as the device
                // said, marked.
                if record.status == .onTime, !record.boundSuspect, !romMarks.contains(report.event),
                    let first = clock.samples.first, device >= first.deviceReceive || onMovedClock,
                    Self.isMistimed(intended: record.intendedDriveTime, bracket: record.driveOnsetRange!)
                {
                    record.status = .mistimed
                }
            } else {
                record.driveOnsetTime = stamped == nil ? host.seconds : nil
            }
            if stamped != nil, let range = record.driveOnsetRange, (range.upperBound - range.lowerBound) / 2 > Self.widestPreRestartBound {
                record.driveOnsetTime = nil
                record.driveOnsetRange = nil
            }
        case .dropped, .none:
            record.status = .dropped
            record.driveOnsetTime = nil
            record.deviceOnset = nil
            record.driveOnsetRange = nil
        }
        // A stored preset entry of its drive the device dropped (FAULT 12) before this report came.
        if storedPresetHoleMarks.contains(report.event), Self.felt(record.status) { record.status = .driveGap }
        settle(report.event, as: record)
    }

    /// Whether an onset of this status was felt (a hole after it is a hole in its drive).
    static func felt(_ status: PlaybackReport.OnsetStatus) -> Bool { [.onTime, .lateTrimmed, .mistimed].contains(status) }

    /// Records `record` as mark `id`'s outcome and gives its followers (events that share its
    /// onset, ``followerMarks``) the same onset: status, times, bracket and doubt.
    private func settle(_ id: UInt32, as record: OnsetRecord) {
        marks[id] = record
        for follower in followerMarks[id] ?? [] {
            guard var other = marks[follower] else { continue }
            other.status = record.status
            other.driveOnsetTime = record.driveOnsetTime
            other.deviceOnset = record.deviceOnset
            other.driveOnsetRange = record.driveOnsetRange
            other.boundSuspect = record.boundSuspect
            marks[follower] = other
        }
    }

    /// Whether a drive meant for host time `intended` (s) certainly began more than
    /// ``mistimedTolerance`` from it: the whole guaranteed `bracket` of its onset lies beyond.
    static func isMistimed(intended: Double, bracket: ClosedRange<Double>) -> Bool {
        bracket.lowerBound - intended > mistimedTolerance || intended - bracket.upperBound > mistimedTolerance
    }

    /// A clock sample that contradicted the samples before it casts doubt on the bounds already
    /// reported for onsets after the last sample that agreed (the clock may have moved anywhere
    /// since): those onsets become suspect (``OnsetRecord/boundSuspect``). Returns their ids.
    func checkClockContradictions() -> [UInt32] {
        let clock = session.link.clock
        guard clock.contradictions != contradictionsSeen, let newest = clock.lastContradiction else { return [] }
        contradictionsSeen = clock.contradictions
        var suspect: [UInt32] = []
        for (id, record) in marks where !record.boundSuspect {
            guard record.driveOnsetRange != nil, let onset = record.deviceOnset, onset >= newest.since else { continue }
            marks[id]?.boundSuspect = true
            suspect.append(id)
        }
        return suspect
    }
}
