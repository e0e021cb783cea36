/// Host → device messages of the compact stream (PROTOCOL.md §3.4, protocol version 2). All are
/// sequenced: their times count from the stream cursor, which only the sequenced lane moves.
public enum StreamCommand: Sendable, Hashable {
    /// SHAPE: define shape `id` (0 ..< ``ProtocolConstants/streamShapes``) as the ramp list `data`
    /// (``StreamShape/encode(_:)``, at most ``ProtocolConstants/streamShapeBytes`` bytes).
    case shape(id: UInt8, data: [UInt8])
    /// PLAY_SHAPE: queue shape `shape` `after` µs after the cursor's start; its first ramp marks
    /// event cursor + `event` (none when `event` is 0).
    case play(after: UInt32, shape: UInt8, event: UInt32)
    /// FOLLOW: queue the ramps `data` (``StreamShape/encodeFollow(_:)``), the first `gap` µs after
    /// the cursor's end (from its level when `gap` is 0, else from 0), each next one where the
    /// previous one ends; the first marks event cursor + `event` (none when 0), and a ramp whose
    /// flag is set marks the event after the last one marked.
    case follow(gap: UInt32, event: UInt32, data: [UInt8])
    /// NEXT_SHAPE: PLAY_SHAPE whose first ramp marks the next event (cursor + 1), one byte shorter.
    case next(after: UInt32, shape: UInt8)

    /// The message id.
    public var id: UInt32 {
        switch self {
        case .shape: return ProtocolConstants.msgShape
        case .play: return ProtocolConstants.msgPlayShape
        case .follow: return ProtocolConstants.msgFollow
        case .next: return ProtocolConstants.msgNextShape
        }
    }

    /// The message's one description (``HostMessage/visitFields(_:)``).
    @inline(__always) mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws(V.Failure) {
        switch self {
        case .shape(var id, var data):
            v.message("SHAPE")
            try v.u8(&id, "shape", .shapeID)
            try v.bytes(&data, "data", .shapeData)
            if V.reads { self = .shape(id: id, data: data) }
        case .play(var after, var shape, var event):
            v.message("PLAY_SHAPE")
            try v.uv(&after, "after")
            try v.u8(&shape, "shape", .shapeID)
            try v.uv(&event, "event")
            if V.reads { self = .play(after: after, shape: shape, event: event) }
        case .follow(var gap, var event, var data):
            v.message("FOLLOW")
            try v.uv(&gap, "gap")
            try v.uv(&event, "event")
            try v.bytes(&data, "data", .followData(event: event))
            if V.reads { self = .follow(gap: gap, event: event, data: data) }
        case .next(var after, var shape):
            v.message("NEXT_SHAPE")
            try v.uv(&after, "after")
            try v.u8(&shape, "shape", .shapeID)
            if V.reads { self = .next(after: after, shape: shape) }
        }
    }

    /// The message of id `id` with every field 0, nil for another id.
    @inline(__always) static func blank(id: UInt32) -> StreamCommand? {
        switch id {
        case ProtocolConstants.msgShape: return .shape(id: 0, data: [])
        case ProtocolConstants.msgPlayShape: return .play(after: 0, shape: 0, event: 0)
        case ProtocolConstants.msgFollow: return .follow(gap: 0, event: 0, data: [])
        case ProtocolConstants.msgNextShape: return .next(after: 0, shape: 0)
        default: return nil
        }
    }
}

/// One ramp of a stream shape (PROTOCOL.md §3.4): it starts `gap` µs after the previous ramp's end
/// (the first: after the play's start) and goes from `from` to `to` over `duration` µs.
public struct StreamRamp: Sendable, Hashable {
    /// µs after the previous ramp's end (the first ramp: after the play's start).
    public var gap: UInt32
    /// Length, µs (1 … 1 000 000).
    public var duration: UInt32
    /// Amplitude at the start.
    public var from: UInt8
    /// Amplitude at the end.
    public var to: UInt8

    /// Creates a ramp.
    public init(gap: UInt32, duration: UInt32, from: UInt8, to: UInt8) {
        self.gap = gap
        self.duration = duration
        self.from = from
        self.to = to
    }
}

/// The byte forms of SHAPE's ramp list and of FOLLOW's pairs (PROTOCOL.md §3.4). A shape is encoded
/// as the library image stores its shapes (docs/library.md): a count, then per ramp a head
/// `duration << 2 | gap follows << 1 | from follows`, the optional gap and from, and `to`.
public enum StreamShape {
    /// The ramp list of a SHAPE.
    public static func encode(_ ramps: [StreamRamp]) -> [UInt8] {
        precondition(!ramps.isEmpty && ramps.count <= 255, "a shape has 1 to 255 ramps")
        var out: [UInt8] = [UInt8(ramps.count)]
        var previousTo: UInt8 = 0
        for r in ramps {
            let head = r.duration << 2 | (r.gap != 0 ? 2 : 0) | (r.from != previousTo ? 1 : 0)
            UVarint.encode(head, into: &out)
            if r.gap != 0 { UVarint.encode(r.gap, into: &out) }
            if r.from != previousTo { out.append(r.from) }
            out.append(r.to)
            previousTo = r.to
        }
        return out
    }

    /// Bytes ``encode(_:)`` gives for one ramp after a ramp ending at `previousTo`.
    public static func encodedLength(_ r: StreamRamp, previousTo: UInt8) -> Int {
        UVarint.encodedLength(r.duration << 2) + (r.gap != 0 ? UVarint.encodedLength(r.gap) : 0)
            + (r.from != previousTo ? 1 : 0) + 1
    }

    /// The ramps of a SHAPE's data; throws unless it holds at least one ramp, each whole with a
    /// duration in range, and nothing after the last.
    public static func decode(_ data: [UInt8]) throws(WireError) -> [StreamRamp] {
        guard let count = data.first else { throw .truncated }
        guard count > 0 else { throw .fieldOutOfRange(field: "data", value: 0) }
        var index = 1
        var previousTo: UInt8 = 0
        var ramps: [StreamRamp] = []
        func byte() throws(WireError) -> UInt8 {
            guard index < data.count else { throw .truncated }
            defer { index += 1 }
            return data[index]
        }
        for _ in 0..<count {
            let head = try UVarint.decode(data, at: &index)
            let gap = head & 2 != 0 ? try UVarint.decode(data, at: &index) : 0
            let from = head & 1 != 0 ? try byte() : previousTo
            let to = try byte()
            let duration = try checkedDuration(head >> 2)
            ramps.append(StreamRamp(gap: gap, duration: duration, from: from, to: to))
            previousTo = to
        }
        guard index == data.count else { throw .trailingBytes }
        return ramps
    }

    /// FOLLOW's data: per ramp `duration << 1 | marks the next event` as a varint, then `to`.
    public static func encodeFollow(_ pairs: [(duration: UInt32, to: UInt8, marked: Bool)]) -> [UInt8] {
        var out: [UInt8] = []
        for p in pairs {
            UVarint.encode(p.duration << 1 | (p.marked ? 1 : 0), into: &out)
            out.append(p.to)
        }
        return out
    }

    /// Bytes ``encodeFollow(_:)`` gives for one ramp.
    public static func followLength(duration: UInt32) -> Int { UVarint.encodedLength(duration << 1) + 1 }

    /// The pairs of FOLLOW's data; throws unless there is at least one and each is whole.
    public static func decodeFollow(_ data: [UInt8]) throws(WireError) -> [(duration: UInt32, to: UInt8, marked: Bool)] {
        guard !data.isEmpty else { throw .truncated }
        var index = 0
        var pairs: [(duration: UInt32, to: UInt8, marked: Bool)] = []
        while index < data.count {
            let head = try UVarint.decode(data, at: &index)
            guard index < data.count else { throw .truncated }
            pairs.append((try checkedDuration(head >> 1), data[index], head & 1 != 0))
            index += 1
        }
        return pairs
    }

    private static func checkedDuration(_ d: UInt32) throws(WireError) -> UInt32 {
        guard d >= ProtocolConstants.segmentMinDurationMicroseconds, d <= ProtocolConstants.segmentMaxDurationMicroseconds else {
            throw .fieldOutOfRange(field: "duration", value: d)
        }
        return d
    }
}
