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

    /// The message's one description: its name, then its fields in wire order with their text
    /// names and rules (``FieldVisitor``). Encoding, decoding, ``encodedLength`` and the text form
    /// all walk it; a visitor that reads rebuilds the message from the fields it set. Inlined into
    /// each of them (as ``blank(id:)`` into decoding), so each is one switch over the message, as
    /// fast as a hand-written one.
    @inline(__always) mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws(V.Failure) {
        switch self {
        case .ack(var a):
            v.message("ACK")
            try v.u8(&a.nextSeq, "next_seq")
            try v.u8(&a.rxCtrl, "rx_ctrl")
            try v.u8(&a.rxSeq, "rx_seq")
            try v.u32(&a.rxTime, "rx_time")
            try v.uv(&a.credits, "credits")
            if V.reads { self = .ack(a) }
        case .identifyReply(var d):
            v.message("IDENTIFY_REPLY")
            try v.uv(&d.protocolVersion, "protocol_version")
            try v.uv(&d.fwMajor, "fw_major")
            try v.uv(&d.fwMinor, "fw_minor")
            try v.uv(&d.fwPatch, "fw_patch")
            try v.u32(&d.deviceId, "device_id")
            try v.u32(&d.clockHz, "clock_hz")
            try v.uv(&d.queueSlots, "queue_slots")
            try v.uv(&d.rxBuffer, "rx_buffer")
            try v.uv(&d.maxPayload, "max_payload")
            try v.uv(&d.driverId, "driver_id")
            if V.reads { self = .identifyReply(d) }
        case .onset(var o):
            v.message("ONSET")
            try v.uv(&o.event, "event")
            try v.u32(&o.time, "time")
            try v.u8(&o.status, "status")
            if V.reads { self = .onset(o) }
        case .fault(var f):
            v.message("FAULT")
            try v.uv(&f.code, "code")
            try v.uv(&f.detail, "detail")
            if V.reads { self = .fault(f) }
        case .calibrationResult(var c):
            v.message("CALIBRATION_RESULT")
            try v.u8(&c.status, "status")
            try v.u8(&c.aCalComp, "a_cal_comp")
            try v.u8(&c.aCalBemf, "a_cal_bemf")
            try v.u8(&c.bemfGain, "bemf_gain")
            try v.u8(&c.lraPeriod, "lra_period")
            if V.reads { self = .calibrationResult(c) }
        case .state(var r):
            v.message("STATE")
            try v.u8(&r.state, "state")
            try v.u8(&r.cause, "cause")
            if V.reads { self = .state(r) }
        case .capabilities(var c):
            v.message("CAPABILITIES")
            try v.uv(&c.programSlots, "program_slots")
            try v.uv(&c.programSegments, "program_segments")
            try v.u8(&c.calibrationCode, "calibrated")
            if V.reads { self = .capabilities(c) }
        case .library(var l):
            try l.visitFields(&v)
            if V.reads { self = .library(l) }
        case .frameTime(var t):
            v.message("FRAME_TIME")
            var frame = UInt32(t.frame)
            try v.uv(&frame, "frame", .usbFrame)  // the rule keeps it within 16 bits
            try v.u32(&t.time, "time")
            if V.reads {
                t.frame = UInt16(truncatingIfNeeded: frame)
                self = .frameTime(t)
            }
        case .departure(var d):
            v.message("DEPARTURE")
            try v.u32(&d.rxTime, "rx_time")
            try v.uv(&d.wait, "wait", .departureWait)
            if V.reads { self = .departure(d) }
        case .session(var r):
            v.message("SESSION")
            try v.u32(&r.session, "session")
            try v.u8(&r.status, "status")
            try v.u32(&r.at, "at")
            if V.reads { self = .session(r) }
        }
    }

    /// The message of id `id` with every field 0 (what decoding fills in), nil for an id the codec
    /// does not know.
    @inline(__always) static func blank(id: UInt32) -> DeviceMessage? {
        switch id {
        case ProtocolConstants.msgAck: return .ack(Acknowledgement(nextSeq: 0, rxCtrl: 0, rxSeq: 0, rxTime: 0, credits: 0))
        case ProtocolConstants.msgIdentifyReply:
            return .identifyReply(
                DeviceIdentity(
                    protocolVersion: 0, fwMajor: 0, fwMinor: 0, fwPatch: 0, deviceId: 0, clockHz: 0, queueSlots: 0,
                    rxBuffer: 0, maxPayload: 0, driverId: 0))
        case ProtocolConstants.msgOnset: return .onset(OnsetReport(event: 0, time: 0, status: 0))
        case ProtocolConstants.msgFault: return .fault(FaultReport(code: 0, detail: 0))
        case ProtocolConstants.msgCalibrationResult:
            return .calibrationResult(CalibrationReport(status: 0, aCalComp: 0, aCalBemf: 0, bemfGain: 0, lraPeriod: 0))
        case ProtocolConstants.msgState: return .state(StateReport(state: 0, cause: 0))
        case ProtocolConstants.msgCapabilities:
            return .capabilities(DeviceCapabilities(programSlots: 0, programSegments: 0, calibrationCode: 0))
        case ProtocolConstants.msgFrameTime: return .frameTime(FrameTimeReport(frame: 0, time: 0))
        case ProtocolConstants.msgDeparture: return .departure(DepartureReport(rxTime: 0, wait: 0))
        case ProtocolConstants.msgSession: return .session(SessionReport(session: 0, status: 0, at: 0))
        default:
            if let library = LibraryReport.blank(id: id) { return .library(library) }
            return nil
        }
    }

    /// Appends the message (id, then fields) to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        var writer = PayloadWriter()
        swap(&writer.bytes, &bytes)
        writer.uv(id)
        var message = self
        message.visitFields(&writer)
        swap(&writer.bytes, &bytes)
    }

    /// The message's bytes.
    public func encode() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// The number of bytes ``encode()`` produces.
    public var encodedLength: Int {
        var length = FieldLength(count: UVarint.encodedLength(id))
        var message = self
        message.visitFields(&length)
        return length.count
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
        guard var message = blank(id: id) else { throw .unknownMessage(id: id, direction: .deviceToHost) }
        try message.visitFields(&reader)
        return message
    }
}

extension DeviceMessage: CustomStringConvertible {
    /// The message in the vector-file text form, e.g. `ACK next_seq=1 rx_ctrl=162 ...`.
    public var description: String {
        var text = FieldText()
        var message = self
        message.visitFields(&text)
        return text.text
    }
}
