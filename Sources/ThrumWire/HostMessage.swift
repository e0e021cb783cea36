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
    /// CALIBRATE: run the driver's auto-calibration. Sequenced lane only.
    case calibrate
    /// WAKE: leave standby; return to it after `idleTimeoutMilliseconds` idle (0 = never). Any lane.
    case wake(idleTimeoutMilliseconds: UInt32)
    /// STANDBY: stop and put the driver in standby. Any lane.
    case standby
    /// PRELOAD_BEGIN: start (re)loading program `slot`. Sequenced lane only.
    case preloadBegin(slot: UInt8)
    /// PRELOAD_SEGMENT: append a segment to the program being loaded. Sequenced lane only.
    case preloadSegment(PreloadSegmentCommand)
    /// GO: queue a preloaded program at a device time. Any lane.
    case go(GoCommand)
    /// ROM_EFFECT: play a DRV2605L ROM effect at a device time. Sequenced lane only.
    case romEffect(ROMEffectCommand)
    /// CUT: remove queued entries starting at or after device time `at` (no ONSET for them) and end
    /// the entry spanning `at` there, so replacement drive can follow (§4.8). Sequenced lane only.
    case cut(at: UInt32)
    /// CONFIGURE_SAMPLE_TIME: the driver's back-EMF SAMPLE_TIME code (0…3 = 150…300 µs), written by
    /// the next CONFIGURE_DRIVER's set-up, so it is sent before it (§3.1). Sequenced lane only.
    case configureSampleTime(code: UInt8)
    /// The preset library's messages (protocol version 1, §3.3).
    case library(LibraryCommand)
    /// RESTORE_CALIBRATION (protocol version 2, §3.5): write a kept calibration result into the
    /// driver, so a device that reset is not calibrated again. Sequenced lane only.
    case restoreCalibration(CalibrationWords)
    /// The compact stream's messages (protocol version 2, §3.4). Sequenced lane only.
    case stream(StreamCommand)
    /// FRAME_TIMES (protocol version 3, §3.6): ask for a FRAME_TIME (a USB start-of-frame and the
    /// device time the device took it) at most every `intervalMilliseconds` of device time, on
    /// device frames sent anyway; 0 turns them off (the state after reset). At most
    /// ``ProtocolConstants/frameTimesMaxIntervalMilliseconds``. Any lane.
    case frameTimes(intervalMilliseconds: UInt32)
    /// CLAIM (protocol version 5, §3.8): hold the device under `session` (not 0, and its key
    /// ``CRC16/sessionKey(_:)`` not ``ProtocolConstants/crcInitial``); a CLAIM of another session
    /// takes the device over from its holder. It travels in a plain frame. Any lane.
    case claim(session: UInt32)
    /// RELEASE (protocol version 5, §3.8): the holder's session is over; the watchdog then stops
    /// silently (no FAULT 5). Any lane, in a frame of the session.
    case release

    /// The message id.
    public var id: UInt32 {
        switch self {
        case .identify: return ProtocolConstants.msgIdentify
        case .ping: return ProtocolConstants.msgPing
        case .stop: return ProtocolConstants.msgStop
        case .segment: return ProtocolConstants.msgSegment
        case .configureDriver: return ProtocolConstants.msgConfigureDriver
        case .calibrate: return ProtocolConstants.msgCalibrate
        case .wake: return ProtocolConstants.msgWake
        case .standby: return ProtocolConstants.msgStandby
        case .preloadBegin: return ProtocolConstants.msgPreloadBegin
        case .preloadSegment: return ProtocolConstants.msgPreloadSegment
        case .go: return ProtocolConstants.msgGo
        case .romEffect: return ProtocolConstants.msgROMEffect
        case .cut: return ProtocolConstants.msgCut
        case .configureSampleTime: return ProtocolConstants.msgConfigureSampleTime
        case .library(let l): return l.id
        case .restoreCalibration: return ProtocolConstants.msgRestoreCalibration
        case .stream(let s): return s.id
        case .frameTimes: return ProtocolConstants.msgFrameTimes
        case .claim: return ProtocolConstants.msgClaim
        case .release: return ProtocolConstants.msgRelease
        }
    }

    /// Whether the message may travel in an `UNSEQ` frame (§2.3).
    public var isAnyLane: Bool {
        switch self {
        case .identify, .ping, .stop, .wake, .standby, .go, .frameTimes, .claim, .release: return true
        case .library(let l): return l.isAnyLane
        case .segment, .configureDriver, .calibrate, .preloadBegin, .preloadSegment, .romEffect, .cut,
            .configureSampleTime, .restoreCalibration, .stream:
            return false
        }
    }

    /// Queue slots the message takes when the device runs it (§2.4): SEGMENT and ROM_EFFECT take
    /// one each; GO takes as many as its program has segments, PLAY_SHAPE and FOLLOW one per ramp,
    /// which only the sender knows (0 here).
    public var queueSlots: Int {
        switch self {
        case .segment, .romEffect: return 1
        default: return 0
        }
    }

    /// The message's one description: its name, then its fields in wire order with their text
    /// names and rules (``FieldVisitor``). Encoding, decoding, ``encodedLength`` and the text form
    /// all walk it; a visitor that reads rebuilds the message from the fields it set. Inlined into
    /// each of them (as ``blank(id:)`` into decoding), so each is one switch over the message, as
    /// fast as a hand-written one.
    @inline(__always) mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws(V.Failure) {
        switch self {
        case .identify: v.message("IDENTIFY")
        case .ping: v.message("PING")
        case .stop: v.message("STOP")
        case .segment(var s):
            v.message("SEGMENT")
            try v.u32(&s.start, "start")
            try v.uv(&s.duration, "duration", .duration)
            try v.u8(&s.from, "from")
            try v.u8(&s.to, "to")
            try v.uv(&s.event, "event")
            if V.reads { self = .segment(s) }
        case .configureDriver(var c):
            v.message("CONFIGURE_DRIVER")
            try v.u8(&c.ratedVoltage, "rated_voltage")
            try v.u8(&c.odClamp, "od_clamp")
            try v.u8(&c.driveTime, "drive_time")
            try v.u8(&c.olLraPeriod, "ol_lra_period")
            if V.reads { self = .configureDriver(c) }
        case .calibrate: v.message("CALIBRATE")
        case .wake(var timeout):
            v.message("WAKE")
            try v.uv(&timeout, "idle_timeout_ms")
            if V.reads { self = .wake(idleTimeoutMilliseconds: timeout) }
        case .standby: v.message("STANDBY")
        case .preloadBegin(var slot):
            v.message("PRELOAD_BEGIN")
            try v.u8(&slot, "slot", .slot)
            if V.reads { self = .preloadBegin(slot: slot) }
        case .preloadSegment(var p):
            v.message("PRELOAD_SEGMENT")
            try v.u32(&p.offset, "offset")
            try v.uv(&p.duration, "duration", .duration)
            try v.u8(&p.from, "from")
            try v.u8(&p.to, "to")
            try v.uv(&p.event, "event")
            if V.reads { self = .preloadSegment(p) }
        case .go(var g):
            v.message("GO")
            try v.u8(&g.slot, "slot", .slot)
            try v.u32(&g.start, "start")
            try v.uv(&g.eventBase, "event_base")
            if V.reads { self = .go(g) }
        case .romEffect(var r):
            v.message("ROM_EFFECT")
            try v.u32(&r.start, "start")
            try v.u8(&r.effect, "effect", .romEffect)
            try v.uv(&r.event, "event")
            if V.reads { self = .romEffect(r) }
        case .cut(var at):
            v.message("CUT")
            try v.u32(&at, "at")
            if V.reads { self = .cut(at: at) }
        case .configureSampleTime(var code):
            v.message("CONFIGURE_SAMPLE_TIME")
            try v.u8(&code, "sample_time")
            if V.reads { self = .configureSampleTime(code: code) }
        case .library(var l):
            try l.visitFields(&v)
            if V.reads { self = .library(l) }
        case .restoreCalibration(var w):
            v.message("RESTORE_CALIBRATION")
            try v.u8(&w.aCalComp, "a_cal_comp")
            try v.u8(&w.aCalBemf, "a_cal_bemf")
            try v.u8(&w.bemfGain, "bemf_gain")
            if V.reads { self = .restoreCalibration(w) }
        case .stream(var s):
            try s.visitFields(&v)
            if V.reads { self = .stream(s) }
        case .frameTimes(var interval):
            v.message("FRAME_TIMES")
            try v.uv(&interval, "interval_ms", .frameTimesInterval)
            if V.reads { self = .frameTimes(intervalMilliseconds: interval) }
        case .claim(var session):
            v.message("CLAIM")
            try v.u32(&session, "session", .session)
            if V.reads { self = .claim(session: session) }
        case .release: v.message("RELEASE")
        }
    }

    /// The message of id `id` with every field 0 (what decoding fills in), nil for an id the codec
    /// does not know.
    @inline(__always) static func blank(id: UInt32) -> HostMessage? {
        switch id {
        case ProtocolConstants.msgIdentify: return .identify
        case ProtocolConstants.msgPing: return .ping
        case ProtocolConstants.msgStop: return .stop
        case ProtocolConstants.msgSegment: return .segment(SegmentCommand(start: 0, duration: 0, from: 0, to: 0))
        case ProtocolConstants.msgConfigureDriver:
            return .configureDriver(DriverConfiguration(ratedVoltage: 0, odClamp: 0, driveTime: 0, olLraPeriod: 0))
        case ProtocolConstants.msgCalibrate: return .calibrate
        case ProtocolConstants.msgWake: return .wake(idleTimeoutMilliseconds: 0)
        case ProtocolConstants.msgStandby: return .standby
        case ProtocolConstants.msgPreloadBegin: return .preloadBegin(slot: 0)
        case ProtocolConstants.msgPreloadSegment:
            return .preloadSegment(PreloadSegmentCommand(offset: 0, duration: 0, from: 0, to: 0))
        case ProtocolConstants.msgGo: return .go(GoCommand(slot: 0, start: 0))
        case ProtocolConstants.msgROMEffect: return .romEffect(ROMEffectCommand(start: 0, effect: 0))
        case ProtocolConstants.msgCut: return .cut(at: 0)
        case ProtocolConstants.msgConfigureSampleTime: return .configureSampleTime(code: 0)
        case ProtocolConstants.msgRestoreCalibration:
            return .restoreCalibration(CalibrationWords(aCalComp: 0, aCalBemf: 0, bemfGain: 0))
        case ProtocolConstants.msgFrameTimes: return .frameTimes(intervalMilliseconds: 0)
        case ProtocolConstants.msgClaim: return .claim(session: 0)
        case ProtocolConstants.msgRelease: return .release
        default:
            if let library = LibraryCommand.blank(id: id) { return .library(library) }
            if let stream = StreamCommand.blank(id: id) { return .stream(stream) }
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
        guard var message = blank(id: id) else { throw .unknownMessage(id: id, direction: .hostToDevice) }
        try message.visitFields(&reader)
        return message
    }
}

extension HostMessage {
    /// Whether a CLAIM may name `session` (§3.8): not 0, and its key is not the plain CRC start
    /// (its frames could not be told from plain ones).
    public static func isClaimable(_ session: UInt32) -> Bool {
        session != 0 && CRC16.sessionKey(session) != ProtocolConstants.crcInitial
    }
}

extension HostMessage: CustomStringConvertible {
    /// The message in the vector-file text form, e.g. `SEGMENT start=1000 duration=5000 from=0 to=200 event=3`.
    public var description: String {
        var text = FieldText()
        var message = self
        message.visitFields(&text)
        return text.text
    }
}
