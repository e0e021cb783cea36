import ThrumTime

/// Adds operating-system scheduling jitter to another link.
///
/// Two placements:
/// - ``Placement/hostScheduling`` (the physical one): the jitter is the host process's wake-up
///   latency. Bytes from the device reach the host's reader late by a fresh draw, and the host's
///   timers (pings, retransmissions) fire late by a fresh draw; the host reads its clock when it
///   actually runs, so its send timestamps stay true.
/// - ``Placement/wire``: every chunk, both ways, is held for a fresh draw after the base link
///   delivered it, even though the host stamped it before. A harsher stress model: it hides part
///   of the outbound delay from the host's timestamps.
///
/// Order within a direction is kept: a chunk is never delivered before the previous one.
public struct JitteredLink<Base: LinkModel>: LinkModel {
    /// Where the jitter acts.
    public enum Placement: Sendable, Hashable {
        case hostScheduling
        case wire
    }

    /// The underlying link.
    public var base: Base
    /// The delay distribution.
    public var jitter: JitterDistribution
    /// Where the jitter acts.
    public var placement: Placement
    private var rng: SplitMix64
    private var lastDelivery: [LinkDirection: UInt64] = [:]

    /// Wraps `base`; the same seed gives the same delays.
    public init(base: Base, jitter: JitterDistribution, placement: Placement = .hostScheduling, seed: UInt64 = 1) {
        self.base = base
        self.jitter = jitter
        self.placement = placement
        rng = SplitMix64(seed: seed)
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        guard var arrival = base.deliver(&bytes, writtenAt: time, direction: direction) else { return nil }
        if placement == .wire || direction == .deviceToHost {
            arrival += jitter.sample(&rng)
        }
        arrival = max(arrival, lastDelivery[direction] ?? 0)
        lastDelivery[direction] = arrival
        return arrival
    }

    public mutating func hostWakeLatency(at time: UInt64) -> UInt64 {
        let own = placement == .hostScheduling ? jitter.sample(&rng) : 0
        return own + base.hostWakeLatency(at: time)
    }

    public func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? { base.startOfFrame(atOrBefore: time) }

    /// The base link's: the host's wake-up comes after the transfer.
    public var lastInTransferCompletion: UInt64? { base.lastInTransferCompletion }

    public var lineByteTime: Double? { base.lineByteTime }
}

/// Loses and corrupts chunks of another link: each chunk is lost with probability `loss`, and
/// otherwise corrupted with probability `corruption` by flipping `bitsPerCorruption` random bits.
/// A lost chunk still occupies the base link (it was sent; it just did not arrive intact).
public struct LossyLink<Base: LinkModel>: LinkModel {
    /// The underlying link.
    public var base: Base
    /// Probability that a chunk is lost.
    public var loss: Double
    /// Probability that a chunk that is not lost has bits flipped.
    public var corruption: Double
    /// Bits flipped in a corrupted chunk.
    public var bitsPerCorruption: Int
    /// Which directions suffer.
    public var directions: Set<LinkDirection>
    /// Chunks lost and corrupted so far, per direction.
    public private(set) var lostChunks: [LinkDirection: Int] = [:]
    public private(set) var corruptedChunks: [LinkDirection: Int] = [:]
    private var rng: SplitMix64

    /// Wraps `base`; the same seed gives the same losses and flips.
    public init(
        base: Base, loss: Double, corruption: Double, bitsPerCorruption: Int = 1,
        directions: Set<LinkDirection> = Set(LinkDirection.allCases), seed: UInt64 = 2
    ) {
        self.base = base
        self.loss = loss
        self.corruption = corruption
        self.bitsPerCorruption = max(1, bitsPerCorruption)
        self.directions = directions
        rng = SplitMix64(seed: seed)
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        guard let arrival = base.deliver(&bytes, writtenAt: time, direction: direction) else { return nil }
        guard directions.contains(direction), !bytes.isEmpty else { return arrival }
        if rng.chance(loss) {
            lostChunks[direction, default: 0] += 1
            return nil
        }
        if rng.chance(corruption) {
            corruptedChunks[direction, default: 0] += 1
            for _ in 0..<bitsPerCorruption {
                let bit = Int(rng.next() % UInt64(bytes.count * 8))
                bytes[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            }
        }
        return arrival
    }

    public mutating func hostWakeLatency(at time: UInt64) -> UInt64 { base.hostWakeLatency(at: time) }

    public func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? { base.startOfFrame(atOrBefore: time) }

    /// The base link's: a chunk lost or corrupted was still taken by the transfer.
    public var lastInTransferCompletion: UInt64? { base.lastInTransferCompletion }

    public var lineByteTime: Double? { base.lineByteTime }
}
