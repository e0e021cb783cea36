/// A USB full-speed CDC link (a microcontroller with native USB), in whole 1 ms frames.
///
/// - Host → device: data the host submits goes out in the next frame after it was written, and
///   arrives at the frame boundary (start of frame, SOF).
/// - Device → host: the host polls the bulk IN endpoint once per frame, `inPollOffset` µs after
///   the boundary; bytes the device wrote are picked up by the first poll strictly after.
/// - Each frame carries at most `packetsPerFrame` packets of up to `packetSize` bytes per
///   direction; a chunk too big for the frame's room spills into later frames and is delivered
///   when its last byte arrives. Frames never reorder, so bytes keep their order.
///
/// The frame grid is the host controller's and so runs on host (= true) time, starting at 0.
public struct UsbFullSpeedLink: LinkModel, Sendable {
    /// Frame period in µs (1 000 for full speed).
    public var framePeriod: UInt64
    /// Largest bulk packet in bytes (64 for full speed).
    public var packetSize: Int
    /// Packets per frame per direction that the host controller schedules for this endpoint.
    public var packetsPerFrame: Int
    /// When in the frame the IN endpoint is polled, µs after the boundary.
    public var inPollOffset: UInt64
    private var lastFrame: [LinkDirection: UInt64] = [:]
    private var packetsUsed: [LinkDirection: Int] = [:]

    /// Creates the link; the defaults are a typical full-speed bulk pipe.
    public init(framePeriod: UInt64 = 1_000, packetSize: Int = 64, packetsPerFrame: Int = 8, inPollOffset: UInt64 = 0) {
        precondition(framePeriod > 0 && packetSize > 0 && packetsPerFrame > 0)
        self.framePeriod = framePeriod
        self.packetSize = packetSize
        self.packetsPerFrame = packetsPerFrame
        self.inPollOffset = inPollOffset
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        let offset = direction == .hostToDevice ? 0 : inPollOffset
        // The first frame whose transfer point is strictly after `time`.
        var frame = time >= offset ? (time - offset) / framePeriod + 1 : 0
        var packets = max(1, (bytes.count + packetSize - 1) / packetSize)
        if let last = lastFrame[direction], last >= frame {
            frame = last
            let room = packetsPerFrame - (packetsUsed[direction] ?? 0)
            if room <= 0 { frame += 1; packetsUsed[direction] = 0 }
        } else {
            packetsUsed[direction] = 0
        }
        while true {
            let room = packetsPerFrame - (packetsUsed[direction] ?? 0)
            let taken = min(room, packets)
            packets -= taken
            packetsUsed[direction, default: 0] += taken
            if packets == 0 { break }
            frame += 1
            packetsUsed[direction] = 0
        }
        lastFrame[direction] = frame
        return frame * framePeriod + offset
    }
}
