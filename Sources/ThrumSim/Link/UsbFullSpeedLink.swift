import ThrumTime

/// A USB full-speed CDC link (a microcontroller with native USB), in whole 1 ms frames.
///
/// - Host → device: data the host submits goes out in the next frame after it was written. It
///   reaches the device `outboundLanding` after the frame boundary (start of frame, SOF): the host
///   controller schedules the bulk OUT transaction somewhere in the frame, after the periodic
///   (interrupt, isochronous) traffic and other devices' transfers, and the device's USB stack then
///   hands the packet to the firmware. The default, 0, is the kindest case (data exactly on the
///   SOF); ``LinkCatalogue`` uses 100–400 µs, a random point of the frame.
/// - Device → host: the host polls the bulk IN endpoint once per frame, `inPollOffset` µs after
///   the boundary; bytes the device wrote are picked up by the first poll strictly after. The
///   device sees the transfer complete (``lastInTransferCompletion``), as a native-USB
///   microcontroller takes an IN-complete interrupt.
/// - Each frame carries at most `packetsPerFrame` packets of up to `packetSize` bytes per
///   direction; a chunk too big for the frame's room spills into later frames and is delivered
///   when its last byte arrives. Frames never reorder, so bytes keep their order.
///
/// The frame grid is the host controller's: it starts at true time 0 and runs on the host
/// controller's crystal, `frameClockPPM` off the host's clock (the simulation's true time). The
/// device sees each start of frame (``startOfFrame(atOrBefore:)``), as a native-USB
/// microcontroller takes an SOF interrupt; devices whose links share the settings share the grid,
/// as devices on one host controller do.
public struct UsbFullSpeedLink: LinkModel, Sendable {
    /// Frame period in µs of the host controller's clock (1 000 for full speed).
    public var framePeriod: UInt64
    /// How fast the host controller's clock runs against the host's, ppm (positive: frames come
    /// sooner than a host millisecond).
    public var frameClockPPM: Double
    /// Largest bulk packet in bytes (64 for full speed).
    public var packetSize: Int
    /// Packets per frame per direction that the host controller schedules for this endpoint.
    public var packetsPerFrame: Int
    /// When in the frame the IN endpoint is polled, µs after the boundary.
    public var inPollOffset: UInt64
    /// How long after the frame boundary host → device data reaches the device, drawn per chunk.
    public var outboundLanding: JitterDistribution
    private var rng: SplitMix64
    private var lastOutboundArrival: UInt64 = 0
    private var lastFrame: [LinkDirection: UInt64] = [:]
    private var packetsUsed: [LinkDirection: Int] = [:]
    /// When the last device → host chunk's IN transfer completed (true µs).
    public private(set) var lastInTransferCompletion: UInt64?

    /// Creates the link; the defaults are a typical full-speed bulk pipe.
    /// `outboundLanding` must stay below `framePeriod` (data lands inside its frame).
    public init(
        framePeriod: UInt64 = 1_000, packetSize: Int = 64, packetsPerFrame: Int = 8, inPollOffset: UInt64 = 0,
        outboundLanding: JitterDistribution = .none, frameClockPPM: Double = 0, seed: UInt64 = 3
    ) {
        precondition(framePeriod > 0 && packetSize > 0 && packetsPerFrame > 0)
        precondition(outboundLanding.upperBound < framePeriod)
        self.framePeriod = framePeriod
        self.frameClockPPM = frameClockPPM
        self.packetSize = packetSize
        self.packetsPerFrame = packetsPerFrame
        self.inPollOffset = inPollOffset
        self.outboundLanding = outboundLanding
        rng = SplitMix64(seed: seed)
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        let offset = direction == .hostToDevice ? 0 : inPollOffset
        // The first frame whose transfer point is strictly after `time`.
        var frame = time >= offset ? frame(containing: time - offset) + 1 : 0
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
        guard direction == .hostToDevice else {
            lastInTransferCompletion = start(ofFrame: frame) + offset
            return lastInTransferCompletion
        }
        // Later data in the same frame never lands before earlier data.
        let arrival = max(start(ofFrame: frame) + outboundLanding.sample(&rng), lastOutboundArrival)
        lastOutboundArrival = arrival
        return arrival
    }

    /// The true time (µs) at which frame `k` starts.
    public func start(ofFrame k: UInt64) -> UInt64 {
        guard frameClockPPM != 0 else { return k * framePeriod }
        return UInt64((Double(k) * Double(framePeriod) / (1 + frameClockPPM * 1e-6)).rounded())
    }

    /// The frame under way at true time `time` (the last that started at or before it).
    public func frame(containing time: UInt64) -> UInt64 {
        guard frameClockPPM != 0 else { return time / framePeriod }
        var k = UInt64(Double(time) * (1 + frameClockPPM * 1e-6) / Double(framePeriod))
        while start(ofFrame: k + 1) <= time { k += 1 }
        while k > 0 && start(ofFrame: k) > time { k -= 1 }
        return k
    }

    public func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? {
        let k = frame(containing: time)
        return (UInt16(k % 2_048), start(ofFrame: k))
    }
}
