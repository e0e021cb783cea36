import Foundation
import ThrumPattern
import ThrumTime
import ThrumWire

/// "As soon as possible" for every `atTime:` argument, like `CHHapticTimeImmediate`.
public let HapticTimeImmediate: Double = 0

/// An error from the engine, its players or the feedback generators, carrying the
/// `CHHapticError`-shaped code (`HapticErrorCode`, e.g. −4805 `engineNotRunning`).
public struct HapticError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The Core Haptics error code.
    public var code: HapticErrorCode
    /// What happened, for people.
    public var message: String

    /// Creates an error.
    public init(_ code: HapticErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) [\(code)]" }
}

extension HapticError: LocalizedError {
    /// The message and the code, so that `localizedDescription` says what happened (rather than
    /// "The operation could not be completed").
    public var errorDescription: String? { description }
}

/// What a connected device can do beyond the base protocol (segments, STOP, CONFIGURE_DRIVER).
///
/// The engine asks before using an optional feature (WAKE/STANDBY, CALIBRATE, PRELOAD + GO,
/// ROM_EFFECT): a device that sends CAPABILITIES after IDENTIFY_REPLY has them all; one that does
/// not (an older firmware) gets the base messages only, and `prepare()` then does no more than
/// start the engine.
public struct DeviceCapabilities: Equatable, Sendable {
    /// Segment queue slots (credits).
    public var queueSlots: Int
    /// WAKE/STANDBY: the driver can be put into standby and woken.
    public var standby: Bool
    /// CALIBRATE: the driver's auto-calibration can be run from the host.
    public var calibration: Bool
    /// PRELOAD + GO {slot, start}: a pattern can be stored on the device and started by a short message.
    public var preload: Bool
    /// ROM_EFFECT: the driver's ROM library effects can be played.
    public var romEffects: Bool

    /// Creates capabilities explicitly.
    public init(queueSlots: Int, standby: Bool = false, calibration: Bool = false, preload: Bool = false, romEffects: Bool = false) {
        self.queueSlots = queueSlots
        self.standby = standby
        self.calibration = calibration
        self.preload = preload
        self.romEffects = romEffects
    }

    /// Program slots (PRELOAD/GO), 0 without a program store.
    public var programSlots: Int = 0
    /// Segments the program store holds, shared by the slots.
    public var programSegments: Int = 0

    /// What a device that identified itself this way supports. A device that follows
    /// IDENTIFY_REPLY with CAPABILITIES (`program`) has the whole of protocol 0 as PROTOCOL.md
    /// describes it: WAKE/STANDBY, CALIBRATE, PRELOAD + GO and ROM_EFFECT (the last only on a driver
    /// with the ROM library, `driverId` 3 or 7: the DRV2604/2604L have waveform RAM instead); one
    /// that does not has the base messages only.
    public init(identity: DeviceIdentity, program: ThrumWire.DeviceCapabilities? = nil) {
        let full = program != nil
        let romLibrary = identity.driverId == 3 || identity.driverId == 7
        self.init(
            queueSlots: Int(identity.queueSlots), standby: full, calibration: full, preload: full,
            romEffects: full && romLibrary)
        programSlots = Int(program?.programSlots ?? 0)
        programSegments = Int(program?.programSegments ?? 0)
    }
}

/// One event onset the engine scheduled, and what the device reported about it.
public struct OnsetRecord: Equatable, Sendable {
    /// The player that played it (``HapticPatternPlayer/playerID``).
    public var playerID: Int
    /// Index of the event in its pattern.
    public var patternIndex: Int
    /// Loop iteration (0 for the first pass; resumes and seeks count as new passes).
    public var pass: Int
    /// When the event should be felt, engine time (s).
    public var requestedTime: Double
    /// The planned pre-shift (felt-onset compensation), s: the requested time minus where the
    /// event's first drive is planned (``ThrumCompiler/CompiledEvent/plannedLead``; negative for
    /// an event that fades in from zero, whose drive begins after its onset).
    public var preShift: Double
    /// The reported drive onset, engine time (s); nil until (unless) the device reports it.
    public var driveOnsetTime: Double?
    /// The reported drive onset corrected by the pre-shift: when it was felt, engine time (s).
    public var onsetTime: Double? { driveOnsetTime.map { $0 + preShift } }
    /// The device's own onset report (its clock, extended to 64 bits, µs): the completion of the
    /// event's first non-zero drive write. Nil until reported.
    public var deviceOnset: DeviceTime?
    /// The engine times (s) between which the reported drive onset certainly happened: the clock
    /// model's bracket from the ACK samples alone (``ThrumLink/ClockModel/hostTimeBounds(atDevice:)``),
    /// taken when the report arrived. Contains the truth whatever the link's asymmetry.
    public var driveOnsetRange: ClosedRange<Double>?
    /// The "±" of ``onsetTime`` and ``driveOnsetTime`` (s): the larger distance from the estimate
    /// to either end of ``driveOnsetRange``.
    public var onsetBound: Double? {
        guard let r = driveOnsetRange, let t = driveOnsetTime else { return nil }
        return max(t - r.lowerBound, r.upperBound - t)
    }
    /// When the host meant the first non-zero drive to happen, engine time (s): the requested time
    /// less the felt-onset pre-shift.
    public var intendedDriveTime: Double { requestedTime - preShift }
    /// Whether ``driveOnsetRange`` may not hold: the clock samples it was read from, or a later
    /// sample showing the clock moved after the last sample that agreed, contradicted each other (a stamp later than its ACK's
    /// departure, a device clock that stalled or stepped; ``ThrumLink/ClockModel/contradictions``).
    /// The bracket was widened by the contradiction, but a bound built on a broken fact is not a
    /// guarantee, so a report says so (`bound_suspect`) and an expectation on it fails.
    public var boundSuspect = false
    /// How the device started it (`notReported` until it reports).
    public var status: PlaybackReport.OnsetStatus
    /// A stored preset's event the device reported on time against its own shifted schedule but
    /// that began more than 50 µs after the time asked for (read from storage after its start, it
    /// started whole, later): the host made it `lateTrimmed` (docs/library.md). False otherwise.
    public var startedWholeButLate = false
    /// For an event ``PlaybackReport/OnsetStatus/cutByClockMove``: the engine time (s) the
    /// schedule restarted at on the moved clock. Its start was cut; what of its drive lies after
    /// this played afresh, without an onset. Nil otherwise.
    public var scheduleRestart: Double? = nil
    /// The DRV2605L ROM effect this onset started (``HapticEngine/playROMEffect(_:atTime:)``), nil for pattern events.
    public var romEffect: UInt8? = nil
}
