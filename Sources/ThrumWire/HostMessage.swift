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

    /// Appends the message (id, then fields) to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        var writer = PayloadWriter(bytes: bytes)
        writer.uv(id)
        switch self {
        case .identify, .ping, .stop, .calibrate, .standby, .release:
            break
        case .claim(let session):
            writer.u32(session)
        case .wake(let timeout):
            writer.uv(timeout)
        case .preloadBegin(let slot):
            writer.u8(slot)
        case .preloadSegment(let p):
            writer.u32(p.offset)
            writer.uv(p.duration)
            writer.u8(p.from)
            writer.u8(p.to)
            writer.uv(p.event)
        case .go(let g):
            writer.u8(g.slot)
            writer.u32(g.start)
            writer.uv(g.eventBase)
        case .cut(let at):
            writer.u32(at)
        case .configureSampleTime(let code):
            writer.u8(code)
        case .romEffect(let r):
            writer.u32(r.start)
            writer.u8(r.effect)
            writer.uv(r.event)
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
        case .library(let l):
            l.encodeFields(&writer)
        case .restoreCalibration(let w):
            writer.u8(w.aCalComp)
            writer.u8(w.aCalBemf)
            writer.u8(w.bemfGain)
        case .stream(let s):
            s.encodeFields(&writer)
        case .frameTimes(let interval):
            writer.uv(interval)
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
        case .identify, .ping, .stop, .calibrate, .standby, .release:
            return 1
        case .claim:
            return 5
        case .segment(let s):
            return 1 + 4 + UVarint.encodedLength(s.duration) + 2 + UVarint.encodedLength(s.event)
        case .configureDriver:
            return 5
        case .wake(let timeout):
            return 1 + UVarint.encodedLength(timeout)
        case .preloadBegin:
            return 2
        case .preloadSegment(let p):
            return 1 + 4 + UVarint.encodedLength(p.duration) + 2 + UVarint.encodedLength(p.event)
        case .go(let g):
            return 1 + 1 + 4 + UVarint.encodedLength(g.eventBase)
        case .romEffect(let r):
            return 1 + 4 + 1 + UVarint.encodedLength(r.event)
        case .cut:
            return 5
        case .configureSampleTime:
            return 2
        case .library(let l):
            return l.encodedLength
        case .restoreCalibration:
            return 4
        case .stream(let s):
            return s.encodedLength
        case .frameTimes(let interval):
            return 1 + UVarint.encodedLength(interval)
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
            let duration = try readDuration(from: &reader)
            let from = try reader.u8()
            let to = try reader.u8()
            let event = try reader.uv()
            return .segment(SegmentCommand(start: start, duration: duration, from: from, to: to, event: event))
        case ProtocolConstants.msgConfigureDriver:
            return .configureDriver(
                DriverConfiguration(
                    ratedVoltage: try reader.u8(), odClamp: try reader.u8(), driveTime: try reader.u8(),
                    olLraPeriod: try reader.u8()))
        case ProtocolConstants.msgCalibrate: return .calibrate
        case ProtocolConstants.msgWake: return .wake(idleTimeoutMilliseconds: try reader.uv())
        case ProtocolConstants.msgStandby: return .standby
        case ProtocolConstants.msgPreloadBegin: return .preloadBegin(slot: try readSlot(from: &reader))
        case ProtocolConstants.msgPreloadSegment:
            let offset = try reader.u32()
            let duration = try readDuration(from: &reader)
            return .preloadSegment(
                PreloadSegmentCommand(
                    offset: offset, duration: duration, from: try reader.u8(), to: try reader.u8(),
                    event: try reader.uv()))
        case ProtocolConstants.msgGo:
            return .go(GoCommand(slot: try readSlot(from: &reader), start: try reader.u32(), eventBase: try reader.uv()))
        case ProtocolConstants.msgROMEffect:
            let start = try reader.u32()
            let effect = try reader.u8()
            guard effect >= ProtocolConstants.romEffectMin, effect <= ProtocolConstants.romEffectMax else {
                throw .fieldOutOfRange(field: "effect", value: UInt32(effect))
            }
            return .romEffect(ROMEffectCommand(start: start, effect: effect, event: try reader.uv()))
        case ProtocolConstants.msgCut: return .cut(at: try reader.u32())
        case ProtocolConstants.msgConfigureSampleTime: return .configureSampleTime(code: try reader.u8())
        case ProtocolConstants.msgRestoreCalibration:
            return .restoreCalibration(
                CalibrationWords(aCalComp: try reader.u8(), aCalBemf: try reader.u8(), bemfGain: try reader.u8()))
        case ProtocolConstants.msgFrameTimes:
            let interval = try reader.uv()
            guard interval <= ProtocolConstants.frameTimesMaxIntervalMilliseconds else {
                throw .fieldOutOfRange(field: "interval_ms", value: interval)
            }
            return .frameTimes(intervalMilliseconds: interval)
        case ProtocolConstants.msgClaim:
            let session = try reader.u32()
            guard Self.isClaimable(session) else { throw .fieldOutOfRange(field: "session", value: session) }
            return .claim(session: session)
        case ProtocolConstants.msgRelease: return .release
        default:
            if let library = try LibraryCommand.read(id: id, from: &reader) { return .library(library) }
            if let stream = try StreamCommand.read(id: id, from: &reader) { return .stream(stream) }
            throw .unknownMessage(id: id, direction: .hostToDevice)
        }
    }
}

extension HostMessage {
    /// Whether a CLAIM may name `session` (§3.8): not 0, and its key is not the plain CRC start
    /// (its frames could not be told from plain ones).
    public static func isClaimable(_ session: UInt32) -> Bool {
        session != 0 && CRC16.sessionKey(session) != ProtocolConstants.crcInitial
    }

    static func readDuration(from reader: inout PayloadReader) throws(WireError) -> UInt32 {
        let duration = try reader.uv()
        guard duration >= ProtocolConstants.segmentMinDurationMicroseconds,
            duration <= ProtocolConstants.segmentMaxDurationMicroseconds
        else { throw .fieldOutOfRange(field: "duration", value: duration) }
        return duration
    }

    static func readSlot(from reader: inout PayloadReader) throws(WireError) -> UInt8 {
        let slot = try reader.u8()
        guard slot < ProtocolConstants.programSlots else { throw .fieldOutOfRange(field: "slot", value: UInt32(slot)) }
        return slot
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
        case .calibrate: return "CALIBRATE"
        case .wake(let timeout): return "WAKE idle_timeout_ms=\(timeout)"
        case .standby: return "STANDBY"
        case .preloadBegin(let slot): return "PRELOAD_BEGIN slot=\(slot)"
        case .preloadSegment(let p):
            return "PRELOAD_SEGMENT offset=\(p.offset) duration=\(p.duration) from=\(p.from) to=\(p.to) event=\(p.event)"
        case .go(let g): return "GO slot=\(g.slot) start=\(g.start) event_base=\(g.eventBase)"
        case .romEffect(let r): return "ROM_EFFECT start=\(r.start) effect=\(r.effect) event=\(r.event)"
        case .cut(let at): return "CUT at=\(at)"
        case .configureSampleTime(let code): return "CONFIGURE_SAMPLE_TIME sample_time=\(code)"
        case .library(let l): return l.text
        case .restoreCalibration(let w):
            return "RESTORE_CALIBRATION a_cal_comp=\(w.aCalComp) a_cal_bemf=\(w.aCalBemf) bemf_gain=\(w.bemfGain)"
        case .stream(let s): return s.text
        case .frameTimes(let interval): return "FRAME_TIMES interval_ms=\(interval)"
        case .claim(let session): return "CLAIM session=\(session)"
        case .release: return "RELEASE"
        }
    }
}
