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

    func encodeFields(_ writer: inout PayloadWriter) {
        switch self {
        case .begin(let size, let crc):
            writer.u32(size)
            writer.u32(crc)
        case .write(let offset, let data):
            writer.u32(offset)
            writer.byteString(data)
        case .commit, .query:
            break
        case .read(let offset, let length):
            writer.u32(offset)
            writer.u8(length)
        case .play(let p):
            writer.uv(p.id)
            writer.u32(p.start)
            writer.uv(p.eventBase)
        }
    }

    var encodedLength: Int {
        switch self {
        case .begin: return 9
        case .write(_, let data): return 1 + 4 + 1 + data.count
        case .commit, .query: return 1
        case .read: return 6
        case .play(let p): return 1 + UVarint.encodedLength(p.id) + 4 + UVarint.encodedLength(p.eventBase)
        }
    }

    static func read(id: UInt32, from reader: inout PayloadReader) throws(WireError) -> LibraryCommand? {
        switch id {
        case ProtocolConstants.msgLibraryBegin: return .begin(size: try reader.u32(), crc: try reader.u32())
        case ProtocolConstants.msgLibraryWrite: return .write(offset: try reader.u32(), data: try reader.byteString())
        case ProtocolConstants.msgLibraryCommit: return .commit
        case ProtocolConstants.msgLibraryQuery: return .query
        case ProtocolConstants.msgLibraryRead:
            let offset = try reader.u32()
            let length = try reader.u8()
            guard length >= 1, UInt32(length) <= ProtocolConstants.libraryReadMax else {
                throw .fieldOutOfRange(field: "length", value: UInt32(length))
            }
            return .read(offset: offset, length: length)
        case ProtocolConstants.msgPlayPreset:
            return .play(PlayPresetCommand(id: try reader.uv(), start: try reader.u32(), eventBase: try reader.uv()))
        default: return nil
        }
    }

    var text: String {
        switch self {
        case .begin(let size, let crc): return "LIBRARY_BEGIN size=\(size) crc=\(crc)"
        case .write(let offset, let data): return "LIBRARY_WRITE offset=\(offset) data=\(hexText(data))"
        case .commit: return "LIBRARY_COMMIT"
        case .query: return "LIBRARY_QUERY"
        case .read(let offset, let length): return "LIBRARY_READ offset=\(offset) length=\(length)"
        case .play(let p): return "PLAY_PRESET id=\(p.id) start=\(p.start) event_base=\(p.eventBase)"
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

    func encodeFields(_ writer: inout PayloadWriter) {
        switch self {
        case .status(let s):
            writer.u8(s.status)
            writer.u8(s.slot)
            writer.u32(s.seq)
            writer.u32(s.size)
            writer.u32(s.crc)
            writer.u32(s.capacity)
        case .data(let offset, let bytes):
            writer.u32(offset)
            writer.byteString(bytes)
        case .trigger(let t):
            writer.u8(t.input)
            writer.uv(t.preset)
            writer.u32(t.time)
        }
    }

    static func read(id: UInt32, from reader: inout PayloadReader) throws(WireError) -> LibraryReport? {
        switch id {
        case ProtocolConstants.msgLibrary:
            return .status(
                LibraryStatusReport(
                    status: try reader.u8(), slot: try reader.u8(), seq: try reader.u32(), size: try reader.u32(),
                    crc: try reader.u32(), capacity: try reader.u32()))
        case ProtocolConstants.msgLibraryData: return .data(offset: try reader.u32(), bytes: try reader.byteString())
        case ProtocolConstants.msgTrigger:
            return .trigger(TriggerReport(input: try reader.u8(), preset: try reader.uv(), time: try reader.u32()))
        default: return nil
        }
    }

    var text: String {
        switch self {
        case .status(let s):
            return "LIBRARY status=\(s.status) slot=\(s.slot) seq=\(s.seq) size=\(s.size) crc=\(s.crc) capacity=\(s.capacity)"
        case .data(let offset, let bytes): return "LIBRARY_DATA offset=\(offset) data=\(hexText(bytes))"
        case .trigger(let t): return "TRIGGER input=\(t.input) preset=\(t.preset) time=\(t.time)"
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
