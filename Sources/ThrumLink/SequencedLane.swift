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

    /// Messages not yet acknowledged (queued or in flight).
    var pendingCount: Int { queue.count + outstanding.reduce(0) { $0 + $1.messageCount } }

    mutating func enqueue(_ message: HostMessage) { queue.append(message) }

    /// Forgets frames in flight and the sequence (for a new connection); queued messages stay.
    mutating func restart() {
        outstanding.removeAll()
        started = false
        retransmitPending = false
        creditBalance = 0
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
    mutating func makeNewFrame(maxPayload: Int, window: Int, now: HostTime) -> Frame? {
        guard canSendNewFrame(window: window) else { return nil }
        var payload: [UInt8] = []
        var count = 0
        var segments = 0
        var withFields = 0
        for message in queue {
            if payload.count + message.encodedLength > maxPayload { break }
            if message.encodedLength > 1 {
                // §3: at most 12 messages with fields per payload
                if withFields >= ProtocolConstants.maxFieldMessages { break }
                withFields += 1
            }
            if message.queueSlots > 0 {
                if segments >= creditBalance { break }
                segments += 1
            }
            message.encode(into: &payload)
            count += 1
        }
        guard count > 0 else { return nil }
        queue.removeFirst(count)
        creditBalance -= segments
        let frame = Frame(direction: .hostToDevice, flags: started ? [] : .resync, seq: nextSeq, payload: payload)
        outstanding.append(
            OutstandingFrame(
                seq: nextSeq, payload: payload, messageCount: count, segmentCount: segments, lastSent: now,
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
