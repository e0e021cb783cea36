/// Finds valid frames in a byte stream exactly as PROTOCOL.md §1.3 prescribes.
///
/// The decoder holds at most one frame's worth of unconsumed bytes. It checks framing and CRC
/// only; parsing the payload is the caller's job (a payload that fails to parse still makes the
/// frame invalid, §1.3).
public struct FrameDecoder: Sendable {
    /// The direction whose CTRL marker this decoder accepts.
    public let direction: Direction
    /// Bytes thrown away while looking for frames (garbage, false starts, rejected headers).
    public private(set) var discardedBytes = 0
    /// Candidate frames whose CRC did not match (`bad_frames`).
    public private(set) var badFrames = 0
    /// Valid frames delivered so far.
    public private(set) var validFrames = 0
    /// Candidate frames whose CRC started from a key not taken here (``keys``, plain) yet shared
    /// with an earlier such candidate: well-formed frames of another session (another host's
    /// answers), told apart from corrupted bytes, whose implied keys do not repeat.
    public private(set) var foreignFrames = 0
    /// The CRC starts the latest failing candidates implied (``CRC16/impliedStart(of:over:)``).
    private var impliedStarts: [UInt16] = []
    /// The session keys a frame's CRC may start from (PROTOCOL.md §3.8, ``CRC16/sessionKey(_:)``).
    public var keys: [UInt16] = []
    /// Whether frames whose CRC starts from ``ProtocolConstants/crcInitial`` (plain frames) are
    /// taken: a host that holds a session reads its session's frames only.
    public var acceptsPlain = true
    /// For each frame ``push(_:)`` returned last, the key its CRC started from (nil: plain).
    public private(set) var lastKeys: [UInt16?] = []

    private var window: [UInt8] = []

    /// Creates a decoder for frames travelling in `direction`.
    public init(direction: Direction) {
        self.direction = direction
        window.reserveCapacity(ProtocolConstants.maxFrame)
    }

    /// The number of bytes held while waiting for the rest of a candidate frame.
    public var bufferedCount: Int { window.count }

    /// Feeds bytes in arrival order and returns the valid frames they complete, in order.
    public mutating func push(_ bytes: some Sequence<UInt8>) -> [Frame] {
        var frames: [Frame] = []
        lastKeys.removeAll(keepingCapacity: true)
        for byte in bytes {
            window.append(byte)
            scan(into: &frames)
        }
        return frames
    }

    /// Forgets any partial frame (e.g. after the transport reconnects).
    public mutating func reset() {
        discardedBytes += window.count
        window.removeAll(keepingCapacity: true)
    }

    /// The CRC start the candidate in the window matches: `.some(nil)` plain, `.some(key)` a
    /// session's, nil none.
    private func matchingKey(_ received: UInt16, length: Int) -> UInt16?? {
        let body = window[1..<(4 + length)]
        if acceptsPlain, CRC16.checksum(body) == received { return .some(nil) }
        for key in keys where CRC16.checksum(body, start: key) == received { return .some(key) }
        return nil
    }

    /// Counts a failing candidate as a frame of another session when its implied key was seen in
    /// one of the last few failing candidates.
    private mutating func noteForeign(crc: UInt16, body: ArraySlice<UInt8>) {
        let start = CRC16.impliedStart(of: crc, over: body)
        if impliedStarts.contains(start) { foreignFrames += 1 }
        impliedStarts.append(start)
        if impliedStarts.count > 8 { impliedStarts.removeFirst() }
    }

    private mutating func discardFirst() {
        window.removeFirst()
        discardedBytes += 1
    }

    private mutating func scan(into frames: inout [Frame]) {
        while true {
            // 1. Discard bytes until the window starts with SYNC.
            if let start = window.firstIndex(of: ProtocolConstants.sync) {
                if start > 0 {
                    window.removeFirst(start)
                    discardedBytes += start
                }
            } else {
                discardedBytes += window.count
                window.removeAll(keepingCapacity: true)
                return
            }
            // 2. LEN in range.
            guard window.count >= 2 else { return }
            let length = Int(window[1])
            if length > ProtocolConstants.maxPayload {
                discardFirst()
                continue
            }
            // 3. CTRL marker and reserved bits.
            guard window.count >= 4 else { return }
            let ctrl = window[2]
            if !direction.accepts(ctrl: ctrl) {
                discardFirst()
                continue
            }
            // 4. CRC over LEN, CTRL, SEQ and PAYLOAD.
            let total = length + ProtocolConstants.frameOverhead
            guard window.count >= total else { return }
            let received = UInt16(window[4 + length]) | UInt16(window[5 + length]) << 8
            if let key = matchingKey(received, length: length) {
                lastKeys.append(key)
                let flags = FrameFlags(rawValue: ctrl & ~ProtocolConstants.ctrlMarkMask)
                frames.append(
                    Frame(direction: direction, flags: flags, seq: window[3], payload: Array(window[4..<(4 + length)])))
                validFrames += 1
                window.removeFirst(total)
            } else {
                badFrames += 1
                noteForeign(crc: received, body: window[1..<(4 + length)])
                discardFirst()
            }
        }
    }
}
