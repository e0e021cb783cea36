import ThrumWire

/// Encodes SEGMENTs as the compact stream of protocol version 2 (PROTOCOL.md §3.4) while the
/// sequenced lane frames them, mirroring the device's stream cursor and shape table exactly.
///
/// The host keeps every decision: the queue still holds plain ``SegmentCommand``s with absolute
/// device starts (so discarding, CUT accounting and credits work as before), and only their bytes
/// change. A run of queued segments becomes, one group at a time:
/// - PLAY_SHAPE (NEXT_SHAPE when it marks the next event) of a shape already defined on this
///   connection (a transient: 5 or 6 bytes);
/// - SHAPE then PLAY_SHAPE for a transient-like piece not yet defined (a marked ramp and the
///   unmarked ramps after it, back to 0 within ``shapeSpanLimit``), so that the next one is cheap;
/// - FOLLOW for ramps that continue where the last one ended (continuous events, curves: 2–3
///   bytes a ramp, marking the next event on the way);
/// - SEGMENT when nothing relative fits (the first entry after connecting, a start before the
///   cursor after a STOP, an event id that no positive delta reaches).
/// The mirror moves only as the device's cursor does: with each entry framed on the sequenced lane
/// and with CUT. Frames run on the device in order and exactly once, so it stays exact; after a
/// reconnect it is unknown again (``reset()``) until an absolute message sets it.
public struct CompactStreamEncoder: Sendable {
    /// The device cursor as the host mirrors it.
    struct Cursor: Sendable, Equatable {
        var start: UInt32
        var end: UInt32
        var to: UInt8
        var event: UInt32
    }
    /// Nil until a SEGMENT, ROM_EFFECT or CUT on this connection sets it.
    private(set) var cursor: Cursor?
    /// Shapes defined on this connection, by their ramps, and the ramps by id.
    private var shapeIDs: [[StreamRamp]: UInt8] = [:]
    private var shapesByID: [UInt8: [StreamRamp]] = [:]
    private var lastUse: [UInt8: UInt64] = [:]
    private var useClock: UInt64 = 0

    /// A piece longer than this (µs, first start to last end) is not made a shape: continuous
    /// events and curves go out as FOLLOW, so that unique drive does not crowd the shape table.
    public static let shapeSpanLimit: UInt32 = 50_000

    /// Counts for statistics: SHAPEs sent, and the segments sent as each kind of message.
    public private(set) var shapesDefined = 0
    public private(set) var segmentsAsShapes = 0
    public private(set) var segmentsAsFollow = 0
    public private(set) var segmentsAsSegment = 0

    /// Creates an encoder with an unknown cursor and no shapes.
    public init() {}

    /// Forgets the device state (a new connection: the device may have reset).
    public mutating func reset() {
        cursor = nil
        eventKnown = false
        shapeIDs.removeAll()
        shapesByID.removeAll()
        lastUse.removeAll()
    }

    /// One group of messages standing for the first `consumed` segments of a run.
    public struct Group: Sendable {
        public var messages: [HostMessage]
        public var consumed: Int
        var next: CompactStreamEncoder
        /// Payload bytes of the messages.
        public var byteCount: Int { messages.reduce(0) { $0 + $1.encodedLength } }
    }

    /// Notes a message framed as it is (SEGMENT, ROM_EFFECT, CUT move the device cursor).
    public mutating func note(_ message: HostMessage) {
        switch message {
        case .segment(let s):
            move(start: s.start, end: s.start &+ s.duration, to: s.to, event: s.event)
        case .romEffect(let r):
            move(start: r.start, end: r.start, to: 0, event: r.event)
        case .cut(let at):
            // start, end and level are known from here on; the event only if it was
            cursor = Cursor(start: at, end: at, to: 0, event: cursor?.event ?? 0)
        default:
            break
        }
    }

    private mutating func move(start: UInt32, end: UInt32, to: UInt8, event: UInt32) {
        let previousEvent = cursor?.event
        cursor = Cursor(start: start, end: end, to: to, event: event != 0 ? event : previousEvent ?? 0)
        if event == 0 && previousEvent == nil {
            // the event part is unknown until a marked entry sets it; 0 after reset on the device
            // too, but a reconnect without a reset keeps the old one: never use it unknown
            eventKnown = false
        } else if event != 0 {
            eventKnown = true
        }
    }
    /// Whether the mirror's `event` is the device's (set by a marked entry on this connection).
    private var eventKnown = false

    /// The next group for `run` (queued segments in order, absolute device starts), within `room`
    /// payload bytes, `messages` messages with fields and `slots` queue slots; nil when not even
    /// the first segment fits (the frame is full or the credits are spent).
    public func group(_ run: ArraySlice<SegmentCommand>, room: Int, messages: Int, slots: Int) -> Group? {
        guard let s0 = run.first, slots > 0, messages > 0 else { return nil }
        var plain = self
        plain.segmentsAsSegment += 1
        plain.note(.segment(s0))
        let single = Group(messages: [.segment(s0)], consumed: 1, next: plain)
        guard let c = cursor else { return single.fits(room) ? single : nil }
        let delta: UInt32? = s0.event == 0 ? 0 : (eventKnown && s0.event != c.event ? s0.event &- c.event : nil)

        if let delta, let shape = shapeGroup(run, cursor: c, delta: delta, room: room, messages: messages, slots: slots) {
            return shape.group  // nil: a shape, but this frame has no room left for it
        } else if let delta, let follow = followGroup(run, cursor: c, delta: delta, room: room, slots: slots) {
            return follow
        }
        return single.fits(room) ? single : nil
    }

    /// Applies a group returned by ``group(_:room:messages:slots:)`` (its messages were framed).
    public mutating func commit(_ group: Group) { self = group.next }

    /// Frames `segments` (in order, absolute device starts) as the sequenced lane would with
    /// credits to spare: the payloads, each at most `maxPayload` bytes and 12 messages with fields
    /// (PROTOCOL.md §3). What the bench counts; the encoder keeps the state for what follows.
    public mutating func pack(_ segments: [SegmentCommand], maxPayload: Int = ProtocolConstants.maxPayload) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var payload: [UInt8] = []
        var fields = 0
        var index = 0
        while index < segments.count {
            let run = segments[index...]
            if let group = group(run, room: maxPayload - payload.count, messages: ProtocolConstants.maxFieldMessages - fields, slots: .max) {
                for m in group.messages { m.encode(into: &payload) }
                fields += group.messages.count
                commit(group)
                index += group.consumed
            } else {
                precondition(!payload.isEmpty, "a group always fits an empty frame")
                payloads.append(payload)
                payload.removeAll()
                fields = 0
            }
        }
        if !payload.isEmpty { payloads.append(payload) }
        return payloads
    }

    // MARK: Shapes

    /// PLAY_SHAPE (after SHAPE when new) for the piece `run` begins with, when it is a known shape
    /// or worth defining and the credits cover it. When SHAPE and PLAY_SHAPE do not both fit the
    /// room, SHAPE alone (consuming no segment: the play follows, in this frame or the next).
    private func shapeGroup(
        _ run: ArraySlice<SegmentCommand>, cursor c: Cursor, delta: UInt32, room: Int, messages: Int, slots: Int
    ) -> ShapeOutcome? {
        let s0 = run.first!
        let after = s0.start &- c.start
        guard Int32(bitPattern: after) >= 0 else { return nil }
        // the piece: the first segment and the unmarked ones that follow it without overlap
        var ramps: [StreamRamp] = []
        var bytes = 1
        var end = s0.start
        var previousTo: UInt8 = 0
        var span: UInt32 = 0
        for s in run {
            if !ramps.isEmpty && s.event != 0 { break }
            let gap = s.start &- end
            guard ramps.isEmpty || Int32(bitPattern: gap) >= 0 else { break }
            let ramp = StreamRamp(gap: ramps.isEmpty ? 0 : gap, duration: s.duration, from: s.from, to: s.to)
            let more = StreamShape.encodedLength(ramp, previousTo: previousTo)
            if bytes + more > ProtocolConstants.streamShapeBytes || ramps.count == 255 { break }
            ramps.append(ramp)
            bytes += more
            previousTo = s.to
            end = s.start &+ s.duration
            span = end &- s0.start
        }
        let known = shapeIDs[ramps]
        if known == nil {
            // worth a shape: a marked blip that returns to 0 soon (a transient), whole
            guard s0.event != 0, previousTo == 0, span <= Self.shapeSpanLimit else { return nil }
        }
        // short of credits for the whole piece: send what they cover another way (no stall)
        guard ramps.count <= slots else { return nil }
        var next = self
        let id: UInt8
        if let known {
            id = known
        } else {
            id = next.allocateID()
            next.define(id, ramps)
            next.useClock += 1
            next.lastUse[id] = next.useClock
            next.shapesDefined += 1
            let shape = Group(messages: [.stream(.shape(id: id, data: StreamShape.encode(ramps)))], consumed: 0, next: next)
            guard let play = next.shapeGroup(run, cursor: c, delta: delta, room: room - shape.byteCount, messages: messages - 1, slots: slots)?.group
            else { return ShapeOutcome(group: shape.fits(room) ? shape : nil) }
            return ShapeOutcome(group: Group(messages: shape.messages + play.messages, consumed: play.consumed, next: play.next))
        }
        next.useClock += 1
        next.lastUse[id] = next.useClock
        let out: [HostMessage] = [delta == 1 ? .stream(.next(after: after, shape: id)) : .stream(.play(after: after, shape: id, event: delta))]
        guard messages >= 1 else { return ShapeOutcome(group: nil) }
        // the device's cursor after the play: its last ramp
        var t = s0.start
        for (k, r) in ramps.enumerated() {
            t = t &+ r.gap
            let event = k == 0 ? s0.event : 0
            next.move(start: t, end: t &+ r.duration, to: r.to, event: event)
            t = t &+ r.duration
        }
        next.segmentsAsShapes += ramps.count
        let group = Group(messages: out, consumed: ramps.count, next: next)
        return ShapeOutcome(group: group.fits(room) ? group : nil)
    }

    /// A piece that is played as a shape: its group, or nil when the frame has no room for it.
    private struct ShapeOutcome {
        var group: Group?
    }

    private mutating func allocateID() -> UInt8 {
        for id in 0..<UInt8(ProtocolConstants.streamShapes) where shapesByID[id] == nil { return id }
        // the least recently played shape makes room
        let id = lastUse.min { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }!.key
        if let old = shapesByID[id] { shapeIDs[old] = nil }
        return id
    }

    private mutating func define(_ id: UInt8, _ ramps: [StreamRamp]) {
        shapesByID[id] = ramps
        shapeIDs[ramps] = id
    }

    // MARK: FOLLOW

    private func followGroup(_ run: ArraySlice<SegmentCommand>, cursor c: Cursor, delta: UInt32, room: Int, slots: Int) -> Group? {
        let s0 = run.first!
        let gap = s0.start &- c.end
        guard Int32(bitPattern: gap) >= 0, s0.from == (gap == 0 ? c.to : 0) else { return nil }
        let head = 1 + UVarint.encodedLength(gap) + UVarint.encodedLength(delta) + 1
        var pairs: [(duration: UInt32, to: UInt8, marked: Bool)] = []
        var bytes = 0
        var previous: SegmentCommand?
        var next = self
        for s in run {
            var marked = false
            if let p = previous {
                guard s.start == p.start &+ p.duration, s.from == p.to else { break }
                // a later ramp marks an event only as the next one (the last marked + 1)
                if s.event != 0 {
                    guard next.eventKnown, s.event == next.cursor!.event &+ 1 else { break }
                    marked = true
                }
            }
            let more = StreamShape.followLength(duration: s.duration)
            guard head + bytes + more <= room, bytes + more <= 255, pairs.count < slots else { break }
            pairs.append((s.duration, s.to, marked))
            bytes += more
            next.move(start: s.start, end: s.start &+ s.duration, to: s.to, event: s.event)
            previous = s
        }
        guard !pairs.isEmpty else { return nil }
        next.segmentsAsFollow += pairs.count
        return Group(
            messages: [.stream(.follow(gap: gap, event: delta, data: StreamShape.encodeFollow(pairs)))], consumed: pairs.count,
            next: next)
    }
}

extension CompactStreamEncoder.Group {
    func fits(_ room: Int) -> Bool { byteCount <= room }
}
