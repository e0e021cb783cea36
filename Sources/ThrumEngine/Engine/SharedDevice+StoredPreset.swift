import ThrumCompiler
import ThrumLibrary
import ThrumPattern
import ThrumTime
import ThrumWire

extension SharedDevice {
    /// The event ids stored presets started by the host report from (PLAY_PRESET `event_base`):
    /// above the engine's own marks (below 2^31) and below a trigger input's (from 0xF000_0000).
    static let storedPresetEventBase: UInt32 = 0xE000_0000
    /// Event numbers one stored preset start may use before the next start's ids.
    static let storedPresetEventSpan: UInt32 = 1 << 12

    /// An event base for the next stored preset start (each start its own, so that a late report
    /// of one play never lands on the next), wide enough for `events` event numbers.
    func nextStoredPresetEventBase(events: UInt32) -> UInt32 {
        let spans = max(1, (events + Self.storedPresetEventSpan) / Self.storedPresetEventSpan)
        let slots = (0xF000_0000 - Self.storedPresetEventBase) / Self.storedPresetEventSpan
        let ledger = placement
        if ledger.storedPresetStarts + spans > slots { ledger.storedPresetStarts = 0 }
        let base = Self.storedPresetEventBase + ledger.storedPresetStarts * Self.storedPresetEventSpan
        ledger.storedPresetStarts += spans
        return base
    }

    /// Records an onset mark for each marked entry of `preset`, played from `base` with its drive
    /// beginning at engine time `driveStart`: the intended time of each is when the stored program's
    /// first drive for it begins (the image keeps the drive, not the pattern's event times, so
    /// the requested time is the drive's and the pre-shift 0). Returns the marks in event order.
    /// `deviceStart` is the device time PLAY_PRESET asks its drive to begin at: each event's onset
    /// is expected that far in, plus the device's fixed latency of its first write, and one
    /// reported more than 50 µs after that is late, by the rule the device applies to streamed
    /// segments (PROTOCOL.md §4.2; a preset read from storage after its start begins later, whole).
    func markStoredPreset(
        _ preset: LibraryImage.Preset, shapes: [LibraryImage.Shape], base: UInt32, driveStart: EngineTime,
        deviceStart: DeviceTime, owner: HapticEngine
    ) -> [UInt32] {
        let expanded = ProgramPacker.expand(preset, shapes: shapes)
        // Pattern time 0 is `lead` after the drive begins; entries are relative to pattern time 0.
        let origin = driveStart + .microseconds(Int64(preset.lead))
        var intended: [UInt32: EngineTime] = [:]
        var romEvents: Set<UInt32> = []
        // The image holds the device form (`ProgramPacker.deviceForm`): a marked ramp up from 0
        // is led so that its crossing, its first drive, is the compiled onset.
        for s in expanded.segments where s.eventID != 0 && intended[s.eventID] == nil {
            let firstDrive = EngineDuration.microseconds(
                Int64(SegmentCommand.firstDriveOffset(duration: s.duration, from: s.from, to: s.to)))
            intended[s.eventID] = s.startOffset.engineTime(origin: origin) + firstDrive
        }
        for r in expanded.rom where r.event != 0 && intended[r.event] == nil {
            intended[r.event] = PatternOffset(microseconds: r.start).engineTime(origin: origin)
            romEvents.insert(r.event)
        }
        var result: [UInt32] = []
        let ledger = placement
        // Where its last entry starts on the device's clock, as asked: a preset held behind it
        // must not start before it (``DevicePlacement/delayHeldPresets(behind:by:)``).
        let lastEntry = max(expanded.segments.map(\.start).max() ?? 0, expanded.rom.map(\.start).max() ?? 0)
        ledger.storedPresetLastEntries[base] = deviceStart + DeviceDuration.microseconds(Int64(preset.lead) + max(0, lastEntry))
        // Its unmarked driving entries, each with the event whose drive it continues (the last
        // marked entry before it): a FAULT 12 naming one is a hole in that event's drive.
        var entries: [DevicePlacement.StoredPresetDrive.Entry] = []
        var current: UInt32?
        for s in expanded.segments.sorted(by: { $0.start < $1.start }) {
            if s.eventID != 0 { current = s.eventID }
            guard s.eventID == 0, s.from != 0 || s.to != 0, let event = current else { continue }
            entries.append(.init(
                device: deviceStart + DeviceDuration.microseconds(Int64(preset.lead) + s.start),
                length: .microseconds(Int64(s.duration)), mark: base &+ event))
        }
        ledger.storedPresetDrive[base] = DevicePlacement.StoredPresetDrive(entries: entries)
        // At most 64 plays kept: the oldest is the base furthest behind this one (bases wrap).
        if ledger.storedPresetDrive.count > 64, let oldest = ledger.storedPresetDrive.keys.max(by: { (base &- $0) < (base &- $1) }) {
            ledger.storedPresetDrive[oldest] = nil
            ledger.storedPresetLateness[oldest] = nil
        }
        for (event, time) in intended.sorted(by: { $0.key < $1.key }) {
            let mark = base &+ event
            ledger.marks[mark] = OnsetRecord(
                playerID: 0, patternIndex: Int(event) - 1, pass: 0, requestedTime: time.seconds, preShift: 0,
                driveOnsetTime: nil, status: .notReported)
            ledger.markOrder.append(mark)
            ledger.markOwners[mark] = ObjectIdentifier(owner)
            ledger.storedPresetBases[mark] = base
            let fixed = romEvents.contains(event) ? session.romLatency.correction : session.latency.correction
            ledger.storedPresetExpectedOnsets[mark] = deviceStart + DeviceDuration.microseconds((time - driveStart).microseconds) + fixed
            result.append(mark)
        }
        return result
    }

    /// The events among `marks` of a stored preset play the device cut (FAULT 11) that never
    /// reported become ``PlaybackReport/OnsetStatus/refusedByDevice``, announced to the onset
    /// observers: once no more reports are to be expected.
    func settleRefusedStoredPresetEvents(_ marks: [UInt32]) {
        announceSettled(placement.settleRefusedStoredPresetEvents(marks))
    }

    /// How long `preset`'s drive lasts from its start (its lead-in included): to the end of its
    /// last segment, or of its last ROM effect's approximate length (``ROMEffect``).
    static func storedPresetLength(_ preset: LibraryImage.Preset, shapes: [LibraryImage.Shape]) -> EngineDuration {
        let expanded = ProgramPacker.expand(preset, shapes: shapes)
        var end = expanded.segments.map(\.end).max() ?? 0
        for r in expanded.rom {
            let length = ROMEffect.effect(id: r.effect).map { EngineDuration.seconds($0.envelope.duration).microseconds } ?? 0
            end = max(end, r.start + length)
        }
        return .microseconds(Int64(preset.lead) + max(end, 0))
    }
}
