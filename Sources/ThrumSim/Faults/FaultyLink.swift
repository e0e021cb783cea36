import ThrumTime
/// A link model that injects a ``FaultPlan``'s link faults on top of another link: loss and
/// corruption (through ``LossyLink``), duplication (the chunk's bytes arrive twice in a row, as a
/// repeated USB packet would), reordering (a chunk held back ``FaultPlan/reorderHold`` so the
/// next overtakes it) and stalls (nothing crosses from a stall's start until its end).
///
/// Deterministic for a plan's seed. Counts each fault it injected.
public struct FaultyLink<Base: LinkModel>: LinkModel {
    /// What was injected so far, per kind (both directions together).
    public struct Counts: Equatable, Sendable {
        public var lost = 0
        public var corrupted = 0
        public var duplicated = 0
        public var reordered = 0
        public var stalled = 0
    }

    /// The plan (device events in it are ignored here; see ``SimulatedPump/deviceFaults``).
    public let plan: FaultPlan
    /// Faults injected so far.
    public private(set) var counts = Counts()
    private var lossy: LossyLink<Base>
    private var rng: SplitMix64

    /// Wraps `base` with the link faults of `plan`.
    public init(base: Base, plan: FaultPlan) {
        self.plan = plan
        lossy = LossyLink(base: base, loss: plan.loss, corruption: plan.corruption, seed: plan.seed &+ 0x5EED)
        rng = SplitMix64(seed: plan.seed)
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        guard !bytes.isEmpty else { return lossy.deliver(&bytes, writtenAt: time, direction: direction) }
        let delivered = lossy.deliver(&bytes, writtenAt: time, direction: direction)
        counts.lost = lossy.lostChunks.values.reduce(0, +)
        counts.corrupted = lossy.corruptedChunks.values.reduce(0, +)
        guard var arrival = delivered else { return nil }
        if rng.chance(plan.duplication) {
            counts.duplicated += 1
            bytes += bytes
        }
        if rng.chance(plan.reordering) {
            counts.reordered += 1
            arrival += FaultPlan.reorderHold
        }
        if let end = stallEnd(covering: time) ?? stallEnd(covering: arrival) {
            counts.stalled += 1
            arrival = max(arrival, end)
        }
        return arrival
    }

    public mutating func hostWakeLatency(at time: UInt64) -> UInt64 { lossy.hostWakeLatency(at: time) }

    public func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? { lossy.startOfFrame(atOrBefore: time) }

    /// The base link's: what the link does to a chunk after the transfer (loss, a stall, a
    /// duplicate) the device does not see.
    public var lastInTransferCompletion: UInt64? { lossy.lastInTransferCompletion }

    public var lineByteTime: Double? { lossy.lineByteTime }

    /// The end of the stall under way at `t`, if any.
    func stallEnd(covering t: UInt64) -> UInt64? {
        plan.stalls.first { $0.start <= t && t < $0.start + $0.length }.map { $0.start + $0.length }
    }
}
