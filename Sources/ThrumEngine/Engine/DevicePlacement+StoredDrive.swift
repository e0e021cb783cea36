import ThrumTime

/// The drive of stored preset plays the host did not send itself: what a FAULT 12 (PROTOCOL.md
/// §4.2) naming one of their entries is placed on.
extension DevicePlacement {
    /// The unmarked driving entries of one stored preset play, as asked.
    struct StoredPresetDrive {
        /// One entry: its start on the device's clock as PLAY_PRESET asked, its length, and the
        /// onset mark of the event whose drive it is.
        struct Entry {
            var device: DeviceTime
            var length: EngineDuration
            var mark: UInt32
        }
        var entries: [Entry]
    }

    /// How far from a play's known lateness (none known: its asked time) a dropped entry's start
    /// may be and still be that entry.
    static let storedEntryTolerance = DeviceDuration.microseconds(2_000)

    /// The entry of a stored preset play the device dropped at device time `device` (its start,
    /// shifted by the play's lateness when it began late), nil when none is there.
    func storedPresetDroppedDrive(deviceStart device: DeviceTime) -> StoredPresetDrive.Entry? {
        var best: (entry: StoredPresetDrive.Entry, miss: Int64)?
        for (base, play) in storedPresetDrive {
            let lateness = storedPresetLateness[base]?.microseconds ?? 0
            for entry in play.entries {
                let miss = abs((device - entry.device).microseconds - lateness)
                if miss <= Self.storedEntryTolerance.microseconds, miss < best?.miss ?? .max { best = (entry, miss) }
            }
        }
        return best?.entry
    }
}
