/// CALIBRATION_RESULT (0x45): the outcome of an auto-calibration run (PROTOCOL.md §3.2).
public struct CalibrationReport: Sendable, Hashable {
    /// 0 = converged, 1 = failed.
    public var status: UInt8
    /// A_CAL_COMP the driver found (coefficient 1 + n/255).
    public var aCalComp: UInt8
    /// A_CAL_BEMF the driver found.
    public var aCalBemf: UInt8
    /// BEMF_GAIN the driver chose (0 ... 3).
    public var bemfGain: UInt8
    /// LRA_PERIOD read while calibrating (period = n × 98.46 µs), 0 when never read.
    public var lraPeriod: UInt8

    /// Creates a calibration report.
    public init(status: UInt8, aCalComp: UInt8, aCalBemf: UInt8, bemfGain: UInt8, lraPeriod: UInt8) {
        self.status = status
        self.aCalComp = aCalComp
        self.aCalBemf = aCalBemf
        self.bemfGain = bemfGain
        self.lraPeriod = lraPeriod
    }

    /// The words a RESTORE_CALIBRATION writes back: what this run found.
    public var words: CalibrationWords { CalibrationWords(aCalComp: aCalComp, aCalBemf: aCalBemf, bemfGain: bemfGain) }

    /// Whether calibration converged.
    public var passed: Bool { status == ProtocolConstants.calibrationPass }

    /// The resonance LRA_PERIOD stands for, Hz (nil when it is 0).
    public var resonanceHz: Double? { lraPeriod == 0 ? nil : 1e6 / (Double(lraPeriod) * 98.46) }
}

/// STATE (0x46): the driver changed power state (PROTOCOL.md §3.2).
public struct StateReport: Sendable, Hashable {
    /// Power states.
    public enum State: UInt8, Sendable {
        /// Software standby.
        case standby = 0
        /// Ready to drive.
        case ready = 1
        /// Auto-calibration running.
        case calibrating = 2
    }

    /// What caused the change.
    public enum Cause: UInt8, Sendable {
        /// A host message.
        case host = 0
        /// WAKE's idle timeout ran out.
        case idleTimeout = 1
        /// The device on its own (a queued entry woke it, an automatic calibration).
        case automatic = 2
    }

    /// The raw state byte.
    public var state: UInt8
    /// The raw cause byte.
    public var cause: UInt8

    /// Creates a state report.
    public init(state: UInt8, cause: UInt8) {
        self.state = state
        self.cause = cause
    }

    /// The state, when known to this protocol version.
    public var knownState: State? { State(rawValue: state) }
    /// The cause, when known to this protocol version.
    public var knownCause: Cause? { Cause(rawValue: cause) }
}

/// CAPABILITIES (0x47): follows IDENTIFY_REPLY; sizes of the program store (PROTOCOL.md §3.2).
public struct DeviceCapabilities: Sendable, Hashable {
    /// Program slots (PRELOAD_BEGIN / GO).
    public var programSlots: UInt32
    /// Segments the program store holds, shared by all slots.
    public var programSegments: UInt32
    /// The `calibrated` byte as sent: 0 none since reset, 1 measured (an auto-calibration passed),
    /// 2 restored (RESTORE_CALIBRATION, protocol version 2); other values are kept as sent.
    public var calibrationCode: UInt8

    /// Whether the driver holds calibration words since the device reset, measured or restored
    /// (`calibrated` ≠ 0; the DRV2605L's calibration is volatile).
    public var calibrated: Bool { calibrationCode != ProtocolConstants.calibratedNone }

    /// How the driver's calibration words came to be, when the code is one this version knows.
    public var calibration: DriverCalibration? { DriverCalibration(rawValue: calibrationCode) }

    /// Creates a capabilities report.
    public init(programSlots: UInt32, programSegments: UInt32, calibrated: Bool = false) {
        self.init(
            programSlots: programSlots, programSegments: programSegments,
            calibrationCode: calibrated ? ProtocolConstants.calibratedMeasured : ProtocolConstants.calibratedNone)
    }

    /// Creates a capabilities report with the `calibrated` byte as sent.
    public init(programSlots: UInt32, programSegments: UInt32, calibrationCode: UInt8) {
        self.programSlots = programSlots
        self.programSegments = programSegments
        self.calibrationCode = calibrationCode
    }
}

/// CAPABILITIES `calibrated` (PROTOCOL.md §3.2): what the driver's calibration words are since
/// the device reset.
public enum DriverCalibration: UInt8, Sendable, Hashable {
    /// None: the driver holds its reset words (or a run failed).
    case none = 0
    /// An auto-calibration passed on this device since reset.
    case measured = 1
    /// The host restored a kept result (RESTORE_CALIBRATION) since reset.
    case restored = 2
}

/// FRAME_TIME (0x4B, protocol version 3): one USB start-of-frame as the device saw it
/// (PROTOCOL.md §3.6). Devices on one host controller see the same 1 ms frame grid, so the pairs
/// tie each device's clock to it.
public struct FrameTimeReport: Sendable, Hashable {
    /// The 11-bit USB frame number the SOF carried, 0 ... 2047 (it wraps every 2.048 s).
    public var frame: UInt16
    /// Device time (µs, 32-bit) at which the device took that SOF's interrupt.
    public var time: UInt32

    /// Creates a frame-time report. `frame` is sent as given: the codec encodes any value, and a
    /// decoder refuses one above ``ProtocolConstants/usbFrameMask``.
    public init(frame: UInt16, time: UInt32) {
        self.frame = frame
        self.time = time
    }
}

/// DEPARTURE (0x4C, protocol version 4): when a fresh ACK left the device (PROTOCOL.md §3.7).
/// Over native USB an ACK waits in the device until the host's next bulk IN transfer takes it; the
/// device reports when that transfer completed, so the host knows the device clock read at least
/// `rxTime + wait` when the ACK arrived, not only `rxTime`.
public struct DepartureReport: Sendable, Hashable {
    /// The `rx_time` of the ACK that left (device time, µs, 32-bit): names that ACK, the first the
    /// device sent with this `rx_time`.
    public var rxTime: UInt32
    /// µs after `rxTime` at which the USB IN transfer that took the ACK's last byte completed (its
    /// IN-complete interrupt): the ACK left at device time `rxTime &+ wait` (modulo 2^32).
    /// 0 ... ``ProtocolConstants/departureMaxWait``.
    public var wait: UInt32

    /// Creates a departure report. `wait` is sent as given: the codec encodes any value, and a
    /// decoder refuses one above ``ProtocolConstants/departureMaxWait``.
    public init(rxTime: UInt32, wait: UInt32) {
        self.rxTime = rxTime
        self.wait = wait
    }
}

/// RESTORE_CALIBRATION (0x1C, protocol version 2): a kept auto-calibration result to write back
/// into a driver that lost it (PROTOCOL.md §3.4).
public struct CalibrationWords: Sendable, Hashable {
    /// A_CAL_COMP.
    public var aCalComp: UInt8
    /// A_CAL_BEMF.
    public var aCalBemf: UInt8
    /// FEEDBACK_CONTROL BEMF_GAIN, 0…3 (the device clamps larger values to 3).
    public var bemfGain: UInt8

    /// Creates the words.
    public init(aCalComp: UInt8, aCalBemf: UInt8, bemfGain: UInt8) {
        self.aCalComp = aCalComp
        self.aCalBemf = aCalBemf
        self.bemfGain = bemfGain
    }
}

/// SESSION (0x4D, protocol version 5): what became of a session (PROTOCOL.md §3.8).
public struct SessionReport: Sendable, Hashable {
    /// The session it is about.
    public var session: UInt32
    /// ``ProtocolConstants/sessionClaimed``, ``ProtocolConstants/sessionTaken`` or
    /// ``ProtocolConstants/sessionRefused`` (a later version may add others).
    public var status: UInt8
    /// Device time (µs, 32-bit) the claim, the takeover or the refusal happened: when the frame
    /// carrying the CLAIM arrived.
    public var at: UInt32

    /// Creates a session report.
    public init(session: UInt32, status: UInt8, at: UInt32) {
        self.session = session
        self.status = status
        self.at = at
    }
}
