import ThrumLink
import ThrumWire

/// Why a device session failed. Printed to users as is, so each case says what happened and,
/// where it helps, what to try.
public enum EngineError: Error, CustomStringConvertible, Sendable {
    /// The transport failed (port missing, unplugged, I/O error).
    case transport(TransportError)
    /// Nothing answered IDENTIFY at `endpoint` within the connect timeout.
    case deviceDidNotAnswer(endpoint: String, attempts: Int)
    /// The link gave up (for example, retransmissions exhausted).
    case linkFailed(reason: String)
    /// Not enough clock samples arrived to schedule in device time.
    case clockDidNotConverge(samples: Int)
    /// The device reported a fault that stops playback.
    case deviceFault(code: Int, detail: Int)
    /// The driver's auto-calibration failed (CALIBRATION_RESULT status 1).
    case calibrationFailed(CalibrationReport)
    /// A calibration started but no CALIBRATION_RESULT arrived within `seconds`.
    case calibrationTimedOut(seconds: Double)
    /// Another host claimed the device (PROTOCOL.md §3.8): the device stopped this host's drive at
    /// device time `deviceTime` (µs, 32-bit) and runs nothing of this host's since.
    case deviceTaken(deviceTime: UInt32)

    public var description: String {
        switch self {
        case .transport(let error):
            return error.description
        case .deviceDidNotAnswer(let endpoint, let attempts):
            return "no Thrum device answered at \(endpoint) (\(attempts) identify requests, no reply); "
                + "check the port, the baud rate and that the firmware is running"
        case .linkFailed(let reason):
            return "the link to the device failed: \(reason)"
        case .clockDidNotConverge(let samples):
            return "the device clock could not be synchronised (only \(samples) samples arrived)"
        case .deviceFault(let code, let detail):
            return "the device reported fault \(code) (detail \(detail))"
        case .calibrationFailed(let report):
            return "the driver's auto-calibration failed (A_CAL_COMP \(report.aCalComp), A_CAL_BEMF \(report.aCalBemf), "
                + "LRA_PERIOD \(report.lraPeriod)); check the actuator wiring and the profile's rated voltage"
        case .calibrationTimedOut(let seconds):
            return "the driver's auto-calibration did not report a result within \(seconds) s"
        case .deviceTaken(let deviceTime):
            return "device taken by another host at device time \(LinkFailure.seconds(deviceTime)) s: "
                + "its session stopped this host's playback there; nothing this host sent since was played"
        }
    }

    /// The error a failed link ends a session with: a takeover is its own case, the rest say why.
    public init(_ failure: LinkFailure) {
        if case .takenOver(_, let deviceTime) = failure {
            self = .deviceTaken(deviceTime: deviceTime)
        } else {
            self = .linkFailed(reason: "\(failure)")
        }
    }
}
