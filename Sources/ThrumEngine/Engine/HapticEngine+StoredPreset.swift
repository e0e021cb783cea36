import ThrumLibrary
import ThrumTime
import ThrumWire

/// Playing presets of the library stored on the device (docs/library.md): one short any-lane
/// PLAY_PRESET message, the device expands the stored program itself.
extension HapticEngine {
    /// Event ids the device reports for stored presets this engine started (the engine's own
    /// marks stay below 2^31; a trigger input's presets report from 0xF000_0000).
    static let storedPresetEventBase: UInt32 = 0xE000_0000

    /// Plays stored preset `id`: its drive begins at engine time `time`, or, with
    /// `HapticTimeImmediate`, as soon as the device can start it (the prepared-start lead: the next
    /// frame boundary plus a margin). Returns the host time its drive begins at.
    ///
    /// Nothing is checked on the host: a device without the preset reports FAULT 10 (see
    /// ``storedLibrary()`` to list what it holds first; `thrum play id:N` does).
    @discardableResult
    public func playStoredPreset(id: UInt16, atTime time: Double = HapticTimeImmediate) throws -> HostTime {
        if !isRunning {
            guard isAutoShutdownEnabled else { throw HapticError(.engineNotRunning, "the engine is not running") }
            try start()
        }
        guard let identity = session.identity, identity.protocolVersion >= 1 else {
            throw LibraryClientError.unsupported(protocolVersion: session.identity?.protocolVersion ?? 0)
        }
        return try device.locked { try playStoredPresetLocked(id: id, atTime: time) }
    }

    private func playStoredPresetLocked(id: UInt16, atTime time: Double) throws -> HostTime {
        let now = nowMicros
        // A driver in standby (the device's idle timeout) is woken in the same frame and given
        // its standby exit, as a prepared start does.
        let standby = session.powerState == .standby
        let exit = standby ? configuration.standbyExitLead.nanoseconds / 1_000 : 0
        var driveStart = now + configuration.preparedStartLead.nanoseconds / 1_000 + exit
        if let boundary = device.nextFrameBoundary(after: now) {
            driveStart = min(driveStart, boundary + configuration.framedStartMargin.nanoseconds / 1_000 + exit)
        }
        if standby {
            session.link.sendImmediately(
                .wake(idleTimeoutMilliseconds: UInt32(clamping: configuration.preparedTimeout.nanoseconds / 1_000_000)))
        }
        if time != HapticTimeImmediate { driveStart = max(driveStart, try micros(time)) }
        driveStart = max(driveStart, device.lastSentEnd)
        let host = HostTime(nanoseconds: driveStart * 1_000)
        let deviceStart = session.link.clock.deviceTime(at: host) - session.latencyCorrection
        session.sendPlayPreset(id: UInt32(id), deviceStart: deviceStart, eventBase: Self.storedPresetEventBase)
        service()
        return host
    }

    /// Reads the library the device holds (its image, checked) and its status.
    public func storedLibrary() throws -> (image: LibraryImage, status: LibraryStatusReport) {
        let read = try session.readLibrary()
        return (read.image, read.status)
    }
}
