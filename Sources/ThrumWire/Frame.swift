/// The flag bits of a host frame's CTRL byte (PROTOCOL.md §1.1).
public struct FrameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `RESYNC`: the device sets its expected sequence number to SEQ before accepting.
    public static let resync = FrameFlags(rawValue: ProtocolConstants.ctrlResync)
    /// `UNSEQ`: the frame is outside the sequence (any-lane, §2.3).
    public static let unseq = FrameFlags(rawValue: ProtocolConstants.ctrlUnseq)
}

/// One frame: `SYNC LEN CTRL SEQ PAYLOAD CRC` (PROTOCOL.md §1).
public struct Frame: Sendable, Hashable {
    /// Which way the frame travels (its CTRL marker).
    public var direction: Direction
    /// RESYNC / UNSEQ; always empty for device frames.
    public var flags: FrameFlags
    /// The host sequence number or tag, or the device frame counter.
    public var seq: UInt8
    /// Zero or more encoded messages, at most ``ProtocolConstants/maxPayload`` bytes.
    public var payload: [UInt8]

    /// Creates a frame. `payload` must not exceed ``ProtocolConstants/maxPayload`` bytes, and
    /// device frames carry no flags.
    public init(direction: Direction, flags: FrameFlags = [], seq: UInt8, payload: [UInt8]) {
        precondition(payload.count <= ProtocolConstants.maxPayload, "frame payload over 58 bytes")
        precondition(direction == .hostToDevice || flags.isEmpty, "device frames carry no flags")
        self.direction = direction
        self.flags = flags
        self.seq = seq
        self.payload = payload
    }

    /// The CTRL byte: direction marker and flags.
    public var ctrl: UInt8 { direction.marker | flags.rawValue }

    /// The whole frame on the wire (`payload.count + 6` bytes), plain.
    public func encode() -> [UInt8] { encode(key: ProtocolConstants.crcInitial) }

    /// The whole frame on the wire: with `key` a session's key (``CRC16/sessionKey(_:)``), a frame
    /// of that session, whose CRC starts from it (PROTOCOL.md §3.8); with
    /// ``ProtocolConstants/crcInitial``, a plain frame.
    public func encode(key: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + ProtocolConstants.frameOverhead)
        bytes.append(ProtocolConstants.sync)
        bytes.append(UInt8(payload.count))
        bytes.append(ctrl)
        bytes.append(seq)
        bytes.append(contentsOf: payload)
        let crc = CRC16.checksum(bytes[1...], start: key)
        bytes.append(UInt8(truncatingIfNeeded: crc))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 8))
        return bytes
    }
}
