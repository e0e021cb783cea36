import ThrumTime
import ThrumWire

extension LinkSession {
    /// The bytes to write to the transport now: any-lane frames first, then go-back-N
    /// retransmissions, then new sequenced frames. Each frame is stamped with the current time.
    public func takeOutgoing() -> [UInt8] {
        let now = hostClock.now()
        var bytes: [UInt8] = []
        if claimOutgoing, let session {
            // CLAIM travels plain (the device learns the key from it); everything after it is keyed.
            // The any-lane messages waiting ride with it: the device runs a plain frame that claims
            // as the new holder's, and one frame less to handle at connect is one less delay.
            claimOutgoing = false
            var payload = HostMessage.claim(session: session).encode()
            var count = 0
            for message in immediate where payload.count + message.encodedLength <= maxPayload {
                message.encode(into: &payload)
                count += 1
            }
            let pinged = immediate.prefix(count).contains(.ping)
            immediate.removeFirst(count)
            emit(Frame(direction: .hostToDevice, flags: .unseq, seq: nextTag, payload: payload), now, &bytes, plain: true)
            if pinged { notePingSent(order: emissionCounter, now: now) }
            nextTag &+= 1
        }
        while !immediate.isEmpty {
            var payload: [UInt8] = []
            var count = 0
            for message in immediate where payload.count + message.encodedLength <= maxPayload {
                message.encode(into: &payload)
                count += 1
            }
            let pinged = immediate.prefix(count).contains(.ping)
            immediate.removeFirst(count)
            emit(Frame(direction: .hostToDevice, flags: .unseq, seq: nextTag, payload: payload), now, &bytes)
            if pinged { notePingSent(order: emissionCounter, now: now) }
            nextTag &+= 1
        }
        guard case .connected = state else { return finish(bytes, now) }

        let retransmissions = lane.takeRetransmissions(now: now)
        for frame in retransmissions {
            emit(frame, now, &bytes, retransmission: true)
        }
        counters.retransmissions += retransmissions.count
        if !retransmissions.isEmpty { retransmitDeadline = now + timer.timeout }

        while let frame = lane.makeNewFrame(maxPayload: maxPayload, window: configuration.maxFramesInFlight, now: now) {
            counters.sequencedBytesSent += frame.payload.count + ProtocolConstants.frameOverhead
            emit(frame, now, &bytes)
            if retransmitDeadline == nil { retransmitDeadline = now + timer.timeout }
        }
        return finish(bytes, now)
    }

    private func finish(_ bytes: [UInt8], _ now: HostTime) -> [UInt8] {
        if !bytes.isEmpty, case .connected = state { lastTransmit = now }
        if !bytes.isEmpty {
            let start = max(serialDrainEnd ?? now, now)
            serialDrainEnd = start + .seconds(clock.byteTimeMicros * Double(bytes.count) / 1e6)
        }
        counters.bytesSent += bytes.count
        return bytes
    }

    private func emit(
        _ frame: Frame, _ now: HostTime, _ bytes: inout [UInt8], retransmission: Bool = false, plain: Bool = false
    ) {
        bytes += frame.encode(key: plain ? ProtocolConstants.crcInitial : sessionKey ?? ProtocolConstants.crcInitial)
        counters.framesSent += 1
        emissionCounter += 1
        let key = Self.logKey(ctrl: frame.ctrl, seq: frame.seq)
        let earliest = retransmission ? sentLog[key]?.earliestOrder ?? emissionCounter : emissionCounter
        sentLog[key] = SentRecord(
            time: now, order: emissionCounter, earliestOrder: earliest, ambiguous: retransmission,
            bytesThrough: bytes.count)
        if !frame.flags.contains(.unseq) { lane.markSent(seq: frame.seq, order: emissionCounter) }
    }

    static func logKey(ctrl: UInt8, seq: UInt8) -> UInt16 { UInt16(ctrl) << 8 | UInt16(seq) }

    /// How long the bytes already written still need on a serial line before a frame written now
    /// starts out, at the clock model's learnt byte time (``ClockModel/byteTimeMicros``; zero on
    /// a link that delivers frames whole, such as native USB). With the time a frame's own bytes
    /// take, this is the part of a command's outbound delay the host causes itself and can
    /// predict, apart from the link's fixed part (``ClockModel/outboundDelayBound(quantile:last:excludingOwnBytes:)``).
    public var transmitBacklog: HostDuration {
        guard let end = serialDrainEnd else { return .zero }
        return max(.zero, end - hostClock.now())
    }
}
