/// Host → device messages of the preset library (PROTOCOL.md §3.3, protocol version 1).
public enum LibraryCommand: Sendable, Hashable {
    /// LIBRARY_BEGIN: start writing an image of `size` bytes whose CRC-32 is `crc` into the slot
    /// the active library is not in. Sequenced.
    case begin(size: UInt32, crc: UInt32)
    /// LIBRARY_WRITE: the image's bytes at `offset` (in order, at most ``maxWriteBytes``). Sequenced.
    case write(offset: UInt32, data: [UInt8])
    /// LIBRARY_COMMIT: read the slot back, check its CRC-32, switch to it. Sequenced.
    case commit
    /// LIBRARY_QUERY: ask for the active library's LIBRARY status. Any lane.
    case query
    /// LIBRARY_READ: ask for `length` (1…32) bytes of the active image at `offset`. Any lane.
    case read(offset: UInt32, length: UInt8)
    /// PLAY_PRESET: play stored preset `id`, its drive beginning at device time `start`. Any lane.
    case play(PlayPresetCommand)

    /// The most data bytes one LIBRARY_WRITE carries (a payload of id, offset, length and data).
    public static let maxWriteBytes = ProtocolConstants.maxPayload - 1 - 4 - 1

    /// The message id.
    public var id: UInt32 {
        switch self {
        case .begin: return ProtocolConstants.msgLibraryBegin
        case .write: return ProtocolConstants.msgLibraryWrite
        case .commit: return ProtocolConstants.msgLibraryCommit
        case .query: return ProtocolConstants.msgLibraryQuery
        case .read: return ProtocolConstants.msgLibraryRead
        case .play: return ProtocolConstants.msgPlayPreset
        }
    }

    /// Whether it may travel in an `UNSEQ` frame.
    public var isAnyLane: Bool {
        switch self {
        case .query, .read, .play: return true
        case .begin, .write, .commit: return false
        }
    }

    /// The message's one description (``HostMessage/visitFields(_:)``).
    @inline(__always) mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws(V.Failure) {
        switch self {
        case .begin(var size, var crc):
            v.message("LIBRARY_BEGIN")
            try v.u32(&size, "size")
            try v.u32(&crc, "crc")
            if V.reads { self = .begin(size: size, crc: crc) }
        case .write(var offset, var data):
            v.message("LIBRARY_WRITE")
            try v.u32(&offset, "offset")
            try v.bytes(&data, "data", .none)
            if V.reads { self = .write(offset: offset, data: data) }
        case .commit: v.message("LIBRARY_COMMIT")
        case .query: v.message("LIBRARY_QUERY")
        case .read(var offset, var length):
            v.message("LIBRARY_READ")
            try v.u32(&offset, "offset")
            try v.u8(&length, "length", .readLength)
            if V.reads { self = .read(offset: offset, length: length) }
        case .play(var p):
            v.message("PLAY_PRESET")
            try v.uv(&p.id, "id")
            try v.u32(&p.start, "start")
            try v.uv(&p.eventBase, "event_base")
            if V.reads { self = .play(p) }
        }
    }

    /// The message of id `id` with every field 0, nil for another id.
    @inline(__always) static func blank(id: UInt32) -> LibraryCommand? {
        switch id {
        case ProtocolConstants.msgLibraryBegin: return .begin(size: 0, crc: 0)
        case ProtocolConstants.msgLibraryWrite: return .write(offset: 0, data: [])
        case ProtocolConstants.msgLibraryCommit: return .commit
        case ProtocolConstants.msgLibraryQuery: return .query
        case ProtocolConstants.msgLibraryRead: return .read(offset: 0, length: 0)
        case ProtocolConstants.msgPlayPreset: return .play(PlayPresetCommand(id: 0, start: 0, eventBase: 0))
        default: return nil
        }
    }
}

/// PLAY_PRESET (0x16): play a stored preset (PROTOCOL.md §3.3). Any lane.
public struct PlayPresetCommand: Sendable, Hashable {
    /// The preset's id in the library index.
    public var id: UInt32
    /// Device time the preset's drive begins (its pattern time 0 is the preset's lead later).
    public var start: UInt32
    /// Added to the preset's event numbers (1, 2, …) in the ONSETs it reports.
    public var eventBase: UInt32

    /// Creates a command.
    public init(id: UInt32, start: UInt32, eventBase: UInt32) {
        self.id = id
        self.start = start
        self.eventBase = eventBase
    }
}

/// Device → host messages of the preset library (PROTOCOL.md §3.3).
public enum LibraryReport: Sendable, Hashable {
    /// LIBRARY: the library's state, answering LIBRARY_QUERY, or the outcome of a flash step.
    case status(LibraryStatusReport)
    /// LIBRARY_DATA: bytes of the active image at `offset` (empty past its end or without one).
    case data(offset: UInt32, bytes: [UInt8])
    /// TRIGGER: trigger input `input` started preset `preset` at device time `time`.
    case trigger(TriggerReport)

    /// The message id.
    public var id: UInt32 {
        switch self {
        case .status: return ProtocolConstants.msgLibrary
        case .data: return ProtocolConstants.msgLibraryData
        case .trigger: return ProtocolConstants.msgTrigger
        }
    }

    /// The message's one description (``DeviceMessage/visitFields(_:)``).
    @inline(__always) mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws(V.Failure) {
        switch self {
        case .status(var s):
            v.message("LIBRARY")
            try v.u8(&s.status, "status")
            try v.u8(&s.slot, "slot")
            try v.u32(&s.seq, "seq")
            try v.u32(&s.size, "size")
            try v.u32(&s.crc, "crc")
            try v.u32(&s.capacity, "capacity")
            if V.reads { self = .status(s) }
        case .data(var offset, var bytes):
            v.message("LIBRARY_DATA")
            try v.u32(&offset, "offset")
            try v.bytes(&bytes, "data", .none)
            if V.reads { self = .data(offset: offset, bytes: bytes) }
        case .trigger(var t):
            v.message("TRIGGER")
            try v.u8(&t.input, "input")
            try v.uv(&t.preset, "preset")
            try v.u32(&t.time, "time")
            if V.reads { self = .trigger(t) }
        }
    }

    /// The message of id `id` with every field 0, nil for another id.
    @inline(__always) static func blank(id: UInt32) -> LibraryReport? {
        switch id {
        case ProtocolConstants.msgLibrary:
            return .status(LibraryStatusReport(status: 0, slot: 0, seq: 0, size: 0, crc: 0, capacity: 0))
        case ProtocolConstants.msgLibraryData: return .data(offset: 0, bytes: [])
        case ProtocolConstants.msgTrigger: return .trigger(TriggerReport(input: 0, preset: 0, time: 0))
        default: return nil
        }
    }
}

/// LIBRARY (0x48): what the device holds, or what a flash step did.
public struct LibraryStatusReport: Sendable, Hashable {
    /// `THRUM_LIBRARY_STATUS_*`: 0 active, 1 empty, 2 switched, 3 too large, 4 verify failed,
    /// 5 write error, 6 no storage, 7 bad image.
    public var status: UInt8
    /// The active library's slot (0 or 1).
    public var slot: UInt8
    /// Its record's sequence number (0 without a library).
    public var seq: UInt32
    /// Its image size in bytes.
    public var size: UInt32
    /// Its image CRC-32.
    public var crc: UInt32
    /// Bytes one slot holds (0: no storage).
    public var capacity: UInt32

    /// Creates a report.
    public init(status: UInt8, slot: UInt8, seq: UInt32, size: UInt32, crc: UInt32, capacity: UInt32) {
        self.status = status
        self.slot = slot
        self.seq = seq
        self.size = size
        self.crc = crc
        self.capacity = capacity
    }
}

/// TRIGGER (0x4A): a trigger input started a stored preset.
public struct TriggerReport: Sendable, Hashable {
    /// The input, 0…7.
    public var input: UInt8
    /// The preset's id.
    public var preset: UInt32
    /// Device time the edge was seen.
    public var time: UInt32

    /// Creates a report.
    public init(input: UInt8, preset: UInt32, time: UInt32) {
        self.input = input
        self.preset = preset
        self.time = time
    }
}

/// Lowercase hex without separators; `.` for no bytes (the vector files' form).
func hexText(_ bytes: [UInt8]) -> String {
    if bytes.isEmpty { return "." }
    let digits = Array("0123456789abcdef")
    var s = ""
    for b in bytes {
        s.append(digits[Int(b >> 4)])
        s.append(digits[Int(b & 15)])
    }
    return s
}
