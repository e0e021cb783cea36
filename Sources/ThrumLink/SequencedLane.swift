import ThrumTime
import ThrumWire

/// A sequenced frame sent and not yet acknowledged.
struct OutstandingFrame: Sendable {
    var seq: UInt8
    var payload: [UInt8]
    var messageCount: Int
    var segmentCount: Int
    var lastSent: HostTime
    /// The session's emission counter value of the latest transmission.
    var lastOrder: UInt64 = 0
    var transmissions: Int
}

/// The sequenced lane's bookkeeping (PROTOCOL.md §2.1, §2.4): messages waiting to be framed,
/// frames in flight, the next sequence number and the segment credits.
struct SequencedLane: Sendable {
    /// Messages not yet framed, oldest first.
    fileprivate(set) var queue: [HostMessage] = []
    /// Frames in flight, in sequence order.
    private(set) var outstanding: [OutstandingFrame] = []
    /// The SEQ of the next new frame.
    var nextSeq: UInt8 = 0
    /// Whether the first frame (the one carrying RESYNC) has gone out.
    private(set) var started = false
    /// Segments the device can still take, net of segments in frames it has not handled yet.
    var creditBalance = 0
    /// Go-back-N: every outstanding frame is to be sent again.
    var retransmitPending = false
    /// Starts of the SEGMENTs framed most recently, oldest first (at most
    /// ``framedSegmentMemory``): what a CUT framed after them will remove from the device queue.
    private(set) var framedSegmentStarts: [UInt32] = []
    /// How many framed SEGMENT starts are remembered (more than any device queue holds).
    static let framedSegmentMemory = 256
    /// With a device of protocol version 2 (and ``LinkConfiguration/compactStream``): queued
    /// SEGMENTs go out in the compact stream's form (PROTOCOL.md §3.4), encoded as they are framed.
    var compact: CompactStreamEncoder?

    /// Messages not yet acknowledged (queued or in flight).
    var pendingCount: Int { queue.count + outstanding.reduce(0) { $0 + $1.messageCount } }

    mutating func enqueue(_ message: HostMessage) { queue.append(message) }

    /// Forgets frames in flight and the sequence (for a new connection); queued messages stay.
    mutating func restart() {
        outstanding.removeAll()
        started = false
        retransmitPending = false
        creditBalance = 0
        framedSegmentStarts.removeAll()
        compact?.reset()
    }

    /// Whether the next message is a SEGMENT without credit and no ACK is on its way.
    var isWaitingForCredits: Bool {
        guard let first = queue.first, first.queueSlots > 0, outstanding.isEmpty else { return false }
        return creditBalance <= 0
    }

    /// Whether a new frame could be sent now.
    func canSendNewFrame(window: Int) -> Bool {
        guard let first = queue.first, outstanding.count < window else { return false }
        if first.queueSlots > 0 { return creditBalance > 0 }
        return true
    }

    /// Packs queued messages, in order, into the next frame: at most `maxPayload` bytes, no more
    /// SEGMENTs than the credit balance, and only while fewer than `window` frames are in flight.
    ///
    /// A CUT frees the slots of the queued entries it removes as soon as the device runs it
    /// (PROTOCOL.md §2.4), and frames run in order, so the SEGMENTs framed before it that start at
    /// or after its `at` are counted back into the balance at once: the replacement drive goes out
    /// behind the CUT instead of waiting for the CUT's ACK (on a serial bridge whose latency timer
    /// holds device → host data for 16 ms, that wait was most of a parameter change's latency).
    /// The count assumes the CUT runs before `at`, which the sender's lead is for; when it runs
    /// late, entries that ended in between were counted twice, the device rejects the frame that
    /// overdraws (a counted flow-control violation) and its ACK's credits set the balance right.
    mutating func makeNewFrame(maxPayload: Int, window: Int, now: HostTime) -> Frame? {
        guard canSendNewFrame(window: window) else { return nil }
        var payload: [UInt8] = []
        var count = 0
        var slots = 0
        var withFields = 0
        var starts = framedSegmentStarts
        var encoder = compact
        var index = queue.startIndex
        while index < queue.endIndex {
            let message = queue[index]
            if encoder != nil, case .segment = message {
                // the run of SEGMENTs from here, in the compact form (one group at a time)
                var end = index
                while end < queue.endIndex, end - index < 64, case .segment = queue[end] { end += 1 }
                let run = queue[index..<end].map { if case .segment(let s) = $0 { s } else { fatalError() } }
                guard
                    let group = encoder!.group(
                        run[...], room: maxPayload - payload.count,
                        messages: ProtocolConstants.maxFieldMessages - withFields, slots: creditBalance - slots)
                else { break }
                for m in group.messages { m.encode(into: &payload) }
                withFields += group.messages.count
                slots += group.consumed
                starts += run.prefix(group.consumed).map(\.start)
                encoder!.commit(group)
                index += group.consumed
                count += group.consumed
                continue
            }
            if payload.count + message.encodedLength > maxPayload { break }
            if message.encodedLength > 1 {
                // §3: at most 12 messages with fields per payload
                if withFields >= ProtocolConstants.maxFieldMessages { break }
                withFields += 1
            }
            if message.queueSlots > 0 {
                if slots >= creditBalance { break }
                slots += message.queueSlots
            }
            switch message {
            case .segment(let segment): starts.append(segment.start)
            case .cut(let at):
                let before = starts.count
                starts.removeAll { Int32(bitPattern: $0 &- at) >= 0 }
                slots -= before - starts.count
            default: break
            }
            encoder?.note(message)
            message.encode(into: &payload)
            count += 1
            index += 1
        }
        guard !payload.isEmpty else { return nil }
        compact = encoder
        queue.removeFirst(count)
        creditBalance -= slots
        framedSegmentStarts = starts.suffix(Self.framedSegmentMemory)
        let frame = Frame(direction: .hostToDevice, flags: started ? [] : .resync, seq: nextSeq, payload: payload)
        outstanding.append(
            OutstandingFrame(
                seq: nextSeq, payload: payload, messageCount: count, segmentCount: slots, lastSent: now,
                transmissions: 1))
        started = true
        nextSeq &+= 1
        return frame
    }

    /// Frames to send again (go-back-N), without RESYNC so that a retransmission can never make the
    /// device execute a frame twice. Clears ``retransmitPending``.
    mutating func takeRetransmissions(now: HostTime) -> [Frame] {
        guard retransmitPending else { return [] }
        retransmitPending = false
        return outstanding.indices.map { i in
            outstanding[i].lastSent = now
            outstanding[i].transmissions += 1
            return Frame(direction: .hostToDevice, seq: outstanding[i].seq, payload: outstanding[i].payload)
        }
    }

    /// Applies a cumulative acknowledgement. Returns how many frames it newly acknowledged, or nil
    /// when `deviceNextSeq` lies outside the frames in flight (a stale or inconsistent ACK).
    mutating func acknowledge(upTo deviceNextSeq: UInt8) -> Int? {
        let base = outstanding.first?.seq ?? nextSeq
        let count = Int(deviceNextSeq &- base)
        guard count <= outstanding.count else { return nil }
        outstanding.removeFirst(count)
        return count
    }

    /// Records the emission order of the latest transmission of frame `seq`.
    mutating func markSent(seq: UInt8, order: UInt64) {
        if let i = outstanding.lastIndex(where: { $0.seq == seq }) { outstanding[i].lastOrder = order }
    }

    /// Sets the credit balance from an ACK's `credits`: the device had not yet handled any frame
    /// still in flight, so their segments are not counted in it.
    mutating func applyCredits(_ credits: UInt32) {
        creditBalance = Int(credits) - outstanding.reduce(0) { $0 + $1.segmentCount }
    }
}

extension SequencedLane {
    /// Drops the queued (not yet framed) SEGMENTs; returns how many. Frames in flight are untouched.
    mutating func discardQueuedSegments() -> Int {
        // Called with a STOP, which empties the device queue: no framed SEGMENT is left for a CUT.
        framedSegmentStarts.removeAll()
        let before = queue.count
        queue.removeAll { if case .segment = $0 { true } else { false } }
        return before - queue.count
    }

    /// Drops the queued SEGMENTs whose start is at or after `start` (wrap-aware); returns how many.
    mutating func discardQueuedSegments(from start: UInt32) -> Int {
        let before = queue.count
        queue.removeAll {
            if case .segment(let s) = $0 { return Int32(bitPattern: s.start &- start) >= 0 }
            return false
        }
        return before - queue.count
    }
}
