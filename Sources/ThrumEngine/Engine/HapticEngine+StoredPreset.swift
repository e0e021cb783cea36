import ThrumLibrary
import ThrumTime
import ThrumWire

/// Playing presets of the library stored on the device (docs/library.md): one short any-lane
/// PLAY_PRESET message, the device expands the stored program itself.
extension HapticEngine {
    /// Plays stored preset `id`: its drive begins at engine time `time`, or, with
    /// `HapticTimeImmediate`, as soon as the device can start it (the prepared-start lead: the next
    /// frame boundary plus a margin). Returns the host time its drive begins at.
    ///
    /// Nothing is checked on the host: a device without the preset reports FAULT 10 (see
    /// ``storedLibrary()`` to list what it holds first; `thrum play id:N` does).
    @discardableResult
    public func playStoredPreset(id: UInt16, atTime time: Double = HapticTimeImmediate) throws -> HostTime {
        try startForStoredPresets()
        return try device.locked {
            let base = device.nextStoredPresetEventBase(events: 0)
            return try playStoredPresetLocked(id: id, atTime: time, length: .zero, eventBase: base) { _, _ in }
        }
    }

    /// Plays `preset` of `image`, the library the device holds (read it with
    /// ``storedLibrary()``), as ``playStoredPreset(id:atTime:)`` does, and follows the onset of
    /// each of its events: ``onsets`` lists them, with the intended time of each being when the
    /// stored program's drive for it begins (a library keeps the drive, not the pattern's event
    /// times). Returns when the drive begins and the events' marks, in event order.
    @discardableResult
    public func playStoredPreset(_ preset: LibraryImage.Preset, in image: LibraryImage, atTime time: Double = HapticTimeImmediate) throws
        -> StoredPresetStart
    {
        try startForStoredPresets()
        return try device.locked {
            var marks: [UInt32] = []
            let events = preset.items.map(\.event).max() ?? 0
            let base = device.nextStoredPresetEventBase(events: events)
            let length = SharedDevice.storedPresetLength(preset, shapes: image.shapes)
            let host = try playStoredPresetLocked(id: preset.id, atTime: time, length: length, eventBase: base) { driveStart, deviceStart in
                marks = device.markStoredPreset(
                    preset, shapes: image.shapes, base: base, driveStart: driveStart, deviceStart: deviceStart, owner: self)
            }
            return StoredPresetStart(driveStart: host, marks: marks)
        }
    }

    /// Runs the engine until every event of `started` (a preset whose drive lasts `duration` s)
    /// has been reported, or no more reports are to be expected: what a caller does once the
    /// preset's planned end has passed, before it reads the onsets. A preset read from storage
    /// after its start begins that much later, whole (docs/library.md), so its reports come later
    /// than planned: the wait runs `grace` s past the planned end plus the lateness of the events
    /// already reported (the rest keep their rhythm), and up to `storageRead` s past it while none
    /// is reported yet (the device may still be reading the preset). A wait of `grace` alone left
    /// both events of a preset that began 0.41 s late `not_reported`, though the chip drove them.
    /// Events still unreported at the end, of a play whose rest the device dropped (FAULT 11),
    /// become ``PlaybackReport/OnsetStatus/refusedByDevice``.
    public func waitForStoredPresetReports(
        of started: StoredPresetStart, duration: Double, grace: Double = 0.3, storageRead: Double = 1.5
    ) {
        let end = started.driveStart.seconds + duration
        // Events of a play the device cut (FAULT 11) that never reported were refused.
        defer { device.locked { device.settleRefusedStoredPresetEvents(started.marks) } }
        while true {
            let records = started.marks.compactMap { onset(ofStoredPresetMark: $0) }
            guard records.contains(where: { $0.status == .notReported }) else { return }
            let lateness = records.compactMap { r in r.onsetTime.map { $0 - r.requestedTime } }.max()
            let deadline = end + (lateness.map { min(max(0, $0), storageRead) + grace } ?? max(grace, storageRead))
            guard currentTime < deadline, isRunning else { return }
            run(for: 0.01)
        }
    }

    /// The onset record of one event of a stored preset started by ``playStoredPreset(_:in:atTime:)``.
    public func onset(ofStoredPresetMark mark: UInt32) -> OnsetRecord? { device.locked { device.placement.marks[mark] } }

    /// Starts the engine when it may start itself, and checks that the device speaks the library.
    private func startForStoredPresets() throws {
        if !isRunning {
            guard isAutoShutdownEnabled else { throw HapticError(.engineNotRunning, "the engine is not running") }
            try start()
        }
        guard let identity = session.identity, identity.protocolVersion >= 1 else {
            throw LibraryClientError.unsupported(protocolVersion: session.identity?.protocolVersion ?? 0)
        }
    }

    /// Sends PLAY_PRESET, an entry of `length` (zero when unknown) on the device's queue
    /// (``DevicePlacement/place(_:)``); `placed` then gets the engine time the drive begins at and
    /// the device time the message asked for.
    private func playStoredPresetLocked(
        id: UInt16, atTime time: Double, length: EngineDuration, eventBase: UInt32, placed: (EngineTime, DeviceTime) -> Void
    ) throws -> HostTime {
        let placement = device.placement
        let now = timeNow
        // A driver in standby (the device's idle timeout) is woken in the same frame and given
        // its standby exit, as a prepared start does.
        let standby = session.powerState == .standby
        var driveStart = placement.anyLaneStart(now: now, standby: standby, learnt: false)
        if standby {
            session.link.sendImmediately(
                .wake(idleTimeoutMilliseconds: UInt32(clamping: configuration.preparedTimeout.nanoseconds / 1_000_000)))
        }
        if time != HapticTimeImmediate { driveStart = max(driveStart, try engineTime(time)) }
        driveStart = max(driveStart, placement.sentEnd)
        // Held while the play before it has not begun (the device keeps one PLAY_PRESET waiting).
        let sendAt = placement.storedPresetSendTime(now: now)
        let deviceStart = placement.place(
            .storedPreset(id: UInt32(id), start: driveStart, length: length, eventBase: eventBase, sendAt: sendAt))
        device.emittedUntil = max(device.emittedUntil, placement.streamFloor)
        if length > .zero { device.lastLevel = 0 }
        placed(driveStart, deviceStart)
        service()
        return driveStart.hostTime
    }

    /// Reads the library the device holds (its image, checked) and its status.
    public func storedLibrary() throws -> (image: LibraryImage, status: LibraryStatusReport) {
        let read = try session.readLibrary()
        return (read.image, read.status)
    }
}

/// A stored preset the engine started (``HapticEngine/playStoredPreset(_:in:atTime:)``).
public struct StoredPresetStart: Sendable, Equatable {
    /// The host time its drive begins at.
    public var driveStart: HostTime
    /// The onset marks of its events, in event order (``HapticEngine/onset(ofStoredPresetMark:)``).
    public var marks: [UInt32]
}
