/// A device → host message (PROTOCOL.md §3.2).
public enum DeviceMessage: Sendable, Hashable {
    /// ACK: starts every device frame.
    case ack(Acknowledgement)
    /// IDENTIFY_REPLY: answers IDENTIFY.
    case identifyReply(DeviceIdentity)
    /// ONSET: a marked segment started (or was trimmed or dropped).
    case onset(OnsetReport)
    /// FAULT: a device fault.
    case fault(FaultReport)
    /// CALIBRATION_RESULT: an auto-calibration run ended.
    case calibrationResult(CalibrationReport)
    /// STATE: the driver changed power state.
    case state(StateReport)
    /// CAPABILITIES: follows IDENTIFY_REPLY.
    case capabilities(DeviceCapabilities)
    /// The preset library's reports (protocol version 1, §3.3).
    case library(LibraryReport)
    /// FRAME_TIME (protocol version 3, §3.6): a USB start-of-frame and the device time the device
    /// took its interrupt, sent while FRAME_TIMES asks for them.
    case frameTime(FrameTimeReport)
    /// DEPARTURE (protocol version 4, §3.7): the device time at which a fresh ACK left the device
    /// (the USB IN transfer that carried its last byte completed), sent while FRAME_TIMES is on.
    case departure(DepartureReport)
    /// SESSION (protocol version 5, §3.8): a session claimed the device, was taken over, or was
    /// refused.
    case session(SessionReport)

    /// The message id.
    public var id: UInt32 {
        switch self {
        case .ack: return ProtocolConstants.msgAck
        case .identifyReply: return ProtocolConstants.msgIdentifyReply
        case .onset: return ProtocolConstants.msgOnset
        case .fault: return ProtocolConstants.msgFault
        case .calibrationResult: return ProtocolConstants.msgCalibrationResult
        case .state: return ProtocolConstants.msgState
        case .capabilities: return ProtocolConstants.msgCapabilities
        case .library(let l): return l.id
        case .frameTime: return ProtocolConstants.msgFrameTime
        case .departure: return ProtocolConstants.msgDeparture
        case .session: return ProtocolConstants.msgSession
        }
    }

    /// Appends the message (id, then fields) to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        var writer = PayloadWriter(bytes: bytes)
        writer.uv(id)
        switch self {
        case .ack(let a):
            writer.u8(a.nextSeq)
            writer.u8(a.rxCtrl)
            writer.u8(a.rxSeq)
            writer.u32(a.rxTime)
            writer.uv(a.credits)
        case .identifyReply(let d):
            writer.uv(d.protocolVersion)
            writer.uv(d.fwMajor)
            writer.uv(d.fwMinor)
            writer.uv(d.fwPatch)
            writer.u32(d.deviceId)
            writer.u32(d.clockHz)
            writer.uv(d.queueSlots)
            writer.uv(d.rxBuffer)
            writer.uv(d.maxPayload)
            writer.uv(d.driverId)
        case .onset(let o):
            writer.uv(o.event)
            writer.u32(o.time)
            writer.u8(o.status)
        case .fault(let f):
            writer.uv(f.code)
            writer.uv(f.detail)
        case .calibrationResult(let c):
            writer.u8(c.status)
            writer.u8(c.aCalComp)
            writer.u8(c.aCalBemf)
            writer.u8(c.bemfGain)
            writer.u8(c.lraPeriod)
        case .state(let s):
            writer.u8(s.state)
            writer.u8(s.cause)
        case .capabilities(let c):
            writer.uv(c.programSlots)
            writer.uv(c.programSegments)
            writer.u8(c.calibrationCode)
        case .library(let l):
            l.encodeFields(&writer)
        case .frameTime(let t):
            writer.uv(UInt32(t.frame))
            writer.u32(t.time)
        case .departure(let d):
            writer.u32(d.rxTime)
            writer.uv(d.wait)
        case .session(let r):
            writer.u32(r.session)
            writer.u8(r.status)
            writer.u32(r.at)
        }
        bytes = writer.bytes
    }

    /// The message's bytes.
    public func encode() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Encodes `messages` back to back as one payload.
    public static func encodePayload(_ messages: [DeviceMessage]) -> [UInt8] {
        var bytes: [UInt8] = []
        for message in messages { message.encode(into: &bytes) }
        return bytes
    }

    /// Parses a whole device payload; fails unless every byte belongs to a valid message (§3).
    ///
    /// This checks message syntax only; that a device frame starts with exactly one ACK (§3.2) is
    /// checked by the link layer.
    public static func parsePayload(_ payload: [UInt8]) throws(WireError) -> [DeviceMessage] {
        var reader = PayloadReader(payload)
        var messages: [DeviceMessage] = []
        while !reader.isAtEnd {
            messages.append(try read(from: &reader))
        }
        return messages
    }

    static func read(from reader: inout PayloadReader) throws(WireError) -> DeviceMessage {
        let id = try reader.uv()
        switch id {
        case ProtocolConstants.msgAck:
            return .ack(
                Acknowledgement(
                    nextSeq: try reader.u8(), rxCtrl: try reader.u8(), rxSeq: try reader.u8(),
                    rxTime: try reader.u32(), credits: try reader.uv()))
        case ProtocolConstants.msgIdentifyReply:
            return .identifyReply(
                DeviceIdentity(
                    protocolVersion: try reader.uv(), fwMajor: try reader.uv(), fwMinor: try reader.uv(),
                    fwPatch: try reader.uv(), deviceId: try reader.u32(), clockHz: try reader.u32(),
                    queueSlots: try reader.uv(), rxBuffer: try reader.uv(), maxPayload: try reader.uv(),
                    driverId: try reader.uv()))
        case ProtocolConstants.msgOnset:
            return .onset(OnsetReport(event: try reader.uv(), time: try reader.u32(), status: try reader.u8()))
        case ProtocolConstants.msgFault:
            return .fault(FaultReport(code: try reader.uv(), detail: try reader.uv()))
        case ProtocolConstants.msgCalibrationResult:
            return .calibrationResult(
                CalibrationReport(
                    status: try reader.u8(), aCalComp: try reader.u8(), aCalBemf: try reader.u8(),
                    bemfGain: try reader.u8(), lraPeriod: try reader.u8()))
        case ProtocolConstants.msgState:
            return .state(StateReport(state: try reader.u8(), cause: try reader.u8()))
        case ProtocolConstants.msgCapabilities:
            return .capabilities(
                DeviceCapabilities(
                    programSlots: try reader.uv(), programSegments: try reader.uv(), calibrationCode: try reader.u8()))
        case ProtocolConstants.msgFrameTime:
            let frame = try reader.uv()
            guard frame <= UInt32(ProtocolConstants.usbFrameMask) else {
                throw .fieldOutOfRange(field: "frame", value: frame)
            }
            return .frameTime(FrameTimeReport(frame: UInt16(frame), time: try reader.u32()))
        case ProtocolConstants.msgDeparture:
            let rxTime = try reader.u32()
            let wait = try reader.uv()
            guard wait <= ProtocolConstants.departureMaxWait else {
                throw .fieldOutOfRange(field: "wait", value: wait)
            }
            return .departure(DepartureReport(rxTime: rxTime, wait: wait))
        case ProtocolConstants.msgSession:
            return .session(SessionReport(session: try reader.u32(), status: try reader.u8(), at: try reader.u32()))
        default:
            if let library = try LibraryReport.read(id: id, from: &reader) { return .library(library) }
            throw .unknownMessage(id: id, direction: .deviceToHost)
        }
    }
}

extension DeviceMessage: CustomStringConvertible {
    /// The message in the vector-file text form, e.g. `ACK next_seq=1 rx_ctrl=162 ...`.
    public var description: String {
        switch self {
        case .ack(let a):
            return "ACK next_seq=\(a.nextSeq) rx_ctrl=\(a.rxCtrl) rx_seq=\(a.rxSeq) rx_time=\(a.rxTime) "
                + "credits=\(a.credits)"
        case .identifyReply(let d):
            return "IDENTIFY_REPLY protocol_version=\(d.protocolVersion) fw_major=\(d.fwMajor) "
                + "fw_minor=\(d.fwMinor) fw_patch=\(d.fwPatch) device_id=\(d.deviceId) clock_hz=\(d.clockHz) "
                + "queue_slots=\(d.queueSlots) rx_buffer=\(d.rxBuffer) max_payload=\(d.maxPayload) "
                + "driver_id=\(d.driverId)"
        case .onset(let o):
            return "ONSET event=\(o.event) time=\(o.time) status=\(o.status)"
        case .fault(let f):
            return "FAULT code=\(f.code) detail=\(f.detail)"
        case .calibrationResult(let c):
            return "CALIBRATION_RESULT status=\(c.status) a_cal_comp=\(c.aCalComp) a_cal_bemf=\(c.aCalBemf) "
                + "bemf_gain=\(c.bemfGain) lra_period=\(c.lraPeriod)"
        case .state(let s):
            return "STATE state=\(s.state) cause=\(s.cause)"
        case .capabilities(let c):
            return "CAPABILITIES program_slots=\(c.programSlots) program_segments=\(c.programSegments) "
                + "calibrated=\(c.calibrationCode)"
        case .library(let l): return l.text
        case .frameTime(let t): return "FRAME_TIME frame=\(t.frame) time=\(t.time)"
        case .departure(let d): return "DEPARTURE rx_time=\(d.rxTime) wait=\(d.wait)"
        case .session(let r): return "SESSION session=\(r.session) status=\(r.status) at=\(r.at)"
        }
    }
}
