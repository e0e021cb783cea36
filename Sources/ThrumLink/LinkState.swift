import ThrumTime
import ThrumWire

/// Where a ``LinkSession`` stands.
public enum LinkState: Sendable, Equatable {
    /// Not started; call ``LinkSession/connect()``.
    case idle
    /// IDENTIFY sent, waiting for IDENTIFY_REPLY.
    case connecting
    /// The device identified itself; sequenced traffic flows.
    case connected(DeviceIdentity)
    /// The link gave up; ``LinkSession/connect()`` starts over.
    case failed(LinkFailure)
}

/// Why a ``LinkSession`` gave up.
public enum LinkFailure: Error, Sendable, Equatable {
    /// No IDENTIFY_REPLY after this many IDENTIFY frames.
    case deviceNotResponding(attempts: Int)
    /// The device speaks a protocol version this host does not.
    case unsupportedProtocol(version: UInt32)
    /// A sequenced frame went unacknowledged after this many transmissions.
    case deliveryFailed(seq: UInt8, transmissions: Int)
    /// Another host claimed the device (PROTOCOL.md §3.8): the device stopped this session's drive
    /// at device time `deviceTime` (µs, 32-bit) and runs none of its frames since.
    case takenOver(session: UInt32, deviceTime: UInt32)
    /// The device never confirmed this host's CLAIM (no SESSION claimed after this many tries).
    case claimUnanswered(attempts: Int)
    /// The device kept sending other frames (an earlier exchange's, still queued on a slow line)
    /// but never answered this host's `request` (IDENTIFY) in `waited`.
    case unansweredWhileBusy(request: String, attempts: Int, waited: HostDuration)
}

extension LinkFailure: CustomStringConvertible {
    /// The failure as a sentence for people.
    public var description: String {
        switch self {
        case .deviceNotResponding(let attempts):
            "no Thrum device answered (\(attempts) identify requests, no reply)"
        case .unsupportedProtocol(let version):
            "the device speaks protocol version \(version), which this host does not"
        case .deliveryFailed(let seq, let transmissions):
            "the device stopped acknowledging: frame \(seq) was sent \(transmissions) times without an answer (frozen, unplugged, or the link is down)"
        case .takenOver(_, let deviceTime):
            "device taken by another host at device time \(Self.seconds(deviceTime)) s: its CLAIM stopped this host's playback there"
        case .claimUnanswered(let attempts):
            "the device did not confirm this host's session (\(attempts) CLAIM requests, no SESSION reply)"
        case .unansweredWhileBusy(let request, let attempts, let waited):
            "the device kept sending other frames for \(Int((waited.microseconds / 1_000).rounded())) ms (answers to an earlier exchange still queued on a slow line, or another host's traffic) but never answered this host's \(attempts) \(request) requests"
        }
    }

    /// A device time (µs) as seconds with six decimals.
    public static func seconds(_ micros: UInt32) -> String {
        let whole = micros / 1_000_000
        let fraction = String(micros % 1_000_000)
        return "\(whole).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }
}

/// Something the device reported, in arrival order.
public enum DeviceEvent: Sendable, Equatable {
    /// IDENTIFY_REPLY.
    case identified(DeviceIdentity)
    /// ONSET of a marked segment.
    case onset(OnsetReport)
    /// FAULT.
    case fault(FaultReport)
    /// CALIBRATION_RESULT: an auto-calibration run ended.
    case calibrated(CalibrationReport)
    /// STATE: the driver changed power state (standby, ready, calibrating).
    case powerState(StateReport)
    /// CAPABILITIES (follows IDENTIFY_REPLY): program store sizes.
    case capabilities(DeviceCapabilities)
}
