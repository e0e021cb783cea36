import ThrumTime
import ThrumWire

/// Something that went wrong on the device or the link during a run, that the host noticed
/// itself (a device FAULT report is a ``ThrumWire/FaultReport`` in ``DeviceSession/faults``):
/// a device reset, or a hole in the drive left by a host that fell behind or by drive the device
/// dropped (FAULT 12, placed on the drive the host sent). Times are in engine
/// seconds as recorded, in pattern seconds once in a ``PlaybackReport``.
public struct RunFault: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The device reset (rebooted): its clock restarted and everything queued on it was lost.
        /// It happened between `after` and `before` (s).
        case deviceReset(after: Double, before: Double)
        /// The host fell behind its queued lead (a stall): no drive reached the device from
        /// `start` for `length` seconds, while the pattern asked for some.
        case driveGap(start: Double, length: Double)
    }

    /// What happened, and when.
    public var kind: Kind
    /// For a ``Kind/deviceReset``: how many events of the run the device reported playing that
    /// were due after it. A device that reset lost its queue; one that went on playing it did
    /// not reset — its clock stepped, and the host took the step for a reset and stopped the run.
    public var playedAfter = 0
    /// For a ``Kind/driveGap``: how many events of the run the hole hit (an onset in it, or a
    /// continuous event's drive through it: their status is ``PlaybackReport/OnsetStatus/driveGap``).
    /// 0 when it cut only the end of a drive already under way (a transient's, a continuous
    /// event's ring-down after its duration: the device, its queue run out, writes 0 and the
    /// driver brakes). Counted by the report of a streamed pattern; nil when not counted.
    public var eventsHit: Int?

    /// Whether the fault fails the run: a reset always; a hole in the drive when it hit an event
    /// or was not counted (``eventsHit``). One that hit none is still reported: the host was held
    /// up (on a loaded machine, its thread waited for a CPU longer than the queued lead), but
    /// every event began on time.
    public var failsRun: Bool {
        switch kind {
        case .deviceReset: true
        case .driveGap: eventsHit != 0
        }
    }

    /// For a ``Kind/driveGap``: whether the device opened the hole — it dropped unmarked drive it
    /// reached too late (FAULT 12, PROTOCOL.md §4.2) — rather than the host, which fell behind.
    /// Accounted the same way; said differently.
    public var byDevice = false

    /// Creates a fault record.
    public init(_ kind: Kind, byDevice: Bool = false) {
        self.kind = kind
        self.byDevice = byDevice
    }

    /// The short machine name (`device_reset`, `drive_gap`) used in JSON.
    public var name: String {
        switch kind {
        case .deviceReset: "device_reset"
        case .driveGap: "drive_gap"
        }
    }

    /// The same fault with its times moved by `-origin` (engine time → pattern time).
    public func relative(to origin: Double) -> RunFault {
        var moved = self
        switch kind {
        case .deviceReset(let a, let b): moved.kind = .deviceReset(after: a - origin, before: b - origin)
        case .driveGap(let s, let l): moved.kind = .driveGap(start: s - origin, length: l)
        }
        return moved
    }

    /// One line for a person: what happened and when (in the record's time base).
    public var message: String {
        switch kind {
        case .deviceReset(let a, let b) where playedAfter > 0:
            return String(
                format: "the device clock stepped during the run (between %.3f s and %.3f s) and was taken for a reset: "
                    + "the run stopped there, though the device went on to play %d event%@ queued before it", a, b, playedAfter,
                playedAfter == 1 ? "" : "s")
        case .deviceReset(let a, let b):
            return String(
                format: "the device reset during the run (between %.3f s and %.3f s): the drive queued on it was lost", a, b)
        case .driveGap(let s, let l) where byDevice:
            return String(
                format: "the device dropped drive it reached after its time (FAULT 12): a hole in the drive from %.3f s for %.0f ms", s,
                l * 1e3)
        case .driveGap(let s, let l):
            return String(
                format: "the host fell behind its queued lead: no drive reached the device from %.3f s for %.0f ms", s, l * 1e3)
        }
    }
}
