/// A host → device message (PROTOCOL.md §3.1).
public enum HostMessage: Sendable, Hashable {
    /// IDENTIFY: ask for IDENTIFY_REPLY. Any lane.
    case identify
    /// PING: ask for an ACK alone (clock sample, watchdog). Any lane.
    case ping
    /// STOP: empty the segment queue and silence the actuator. Any lane.
    case stop
    /// SEGMENT: queue an amplitude ramp. Sequenced lane only.
    case segment(SegmentCommand)
    /// CONFIGURE_DRIVER: reinitialise the driver. Sequenced lane only.
    case configureDriver(DriverConfiguration)

    /// The message id.
    public var id: UInt32 {
        switch self {
        case .identify: return ProtocolConstants.msgIdentify
        case .ping: return ProtocolConstants.msgPing
        case .stop: return ProtocolConstants.msgStop
        case .segment: return ProtocolConstants.msgSegment
        case .configureDriver: return ProtocolConstants.msgConfigureDriver
        }
    }

    /// Whether the message may travel in an `UNSEQ` frame (§2.3).
    public var isAnyLane: Bool {
        switch self {
        case .identify, .ping, .stop: return true
        case .segment, .configureDriver: return false
        }
    }

    /// Appends the message (id, then fields) to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        var writer = PayloadWriter(bytes: bytes)
        writer.uv(id)
        switch self {
        case .identify, .ping, .stop:
            break
        case .segment(let s):
            writer.u32(s.start)
            writer.uv(s.duration)
            writer.u8(s.from)
            writer.u8(s.to)
            writer.uv(s.event)
        case .configureDriver(let c):
            writer.u8(c.ratedVoltage)
            writer.u8(c.odClamp)
            writer.u8(c.driveTime)
            writer.u8(c.olLraPeriod)
        }
        bytes = writer.bytes
    }

    /// The message's bytes.
    public func encode() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// The number of bytes ``encode()`` produces.
    public var encodedLength: Int {
        switch self {
        case .identify, .ping, .stop:
            return 1
        case .segment(let s):
            return 1 + 4 + UVarint.encodedLength(s.duration) + 2 + UVarint.encodedLength(s.event)
        case .configureDriver:
            return 5
        }
    }

    /// Encodes `messages` back to back as one payload.
    public static func encodePayload(_ messages: [HostMessage]) -> [UInt8] {
        var bytes: [UInt8] = []
        for message in messages { message.encode(into: &bytes) }
        return bytes
    }

    /// Parses a whole host payload; fails unless every byte belongs to a valid message (§3).
    public static func parsePayload(_ payload: [UInt8]) throws(WireError) -> [HostMessage] {
        var reader = PayloadReader(payload)
        var messages: [HostMessage] = []
        while !reader.isAtEnd {
            messages.append(try read(from: &reader))
        }
        return messages
    }

    static func read(from reader: inout PayloadReader) throws(WireError) -> HostMessage {
        let id = try reader.uv()
        switch id {
        case ProtocolConstants.msgIdentify: return .identify
        case ProtocolConstants.msgPing: return .ping
        case ProtocolConstants.msgStop: return .stop
        case ProtocolConstants.msgSegment:
            let start = try reader.u32()
            let duration = try reader.uv()
            guard duration >= ProtocolConstants.segmentMinDurationMicroseconds,
                duration <= ProtocolConstants.segmentMaxDurationMicroseconds
            else { throw .fieldOutOfRange(field: "duration", value: duration) }
            let from = try reader.u8()
            let to = try reader.u8()
            let event = try reader.uv()
            return .segment(SegmentCommand(start: start, duration: duration, from: from, to: to, event: event))
        case ProtocolConstants.msgConfigureDriver:
            return .configureDriver(
                DriverConfiguration(
                    ratedVoltage: try reader.u8(), odClamp: try reader.u8(), driveTime: try reader.u8(),
                    olLraPeriod: try reader.u8()))
        default:
            throw .unknownMessage(id: id, direction: .hostToDevice)
        }
    }
}

extension HostMessage: CustomStringConvertible {
    /// The message in the vector-file text form, e.g. `SEGMENT start=1000 duration=5000 from=0 to=200 event=3`.
    public var description: String {
        switch self {
        case .identify: return "IDENTIFY"
        case .ping: return "PING"
        case .stop: return "STOP"
        case .segment(let s):
            return "SEGMENT start=\(s.start) duration=\(s.duration) from=\(s.from) to=\(s.to) event=\(s.event)"
        case .configureDriver(let c):
            return "CONFIGURE_DRIVER rated_voltage=\(c.ratedVoltage) od_clamp=\(c.odClamp) "
                + "drive_time=\(c.driveTime) ol_lra_period=\(c.olLraPeriod)"
        }
    }
}
