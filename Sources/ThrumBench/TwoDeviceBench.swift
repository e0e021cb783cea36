import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim

/// Two devices on one host timeline (``HapticEngineGroup``): crystals 100 ppm off in opposite
/// directions, each behind its own link of the same model, the same transients started on both
/// at one instant. The skew between their true onsets (the two chips' first non-zero drive), and
/// whether the reported skew's bound (the two reported half-widths added) holds it. The group
/// probes at its default rate (``HapticEngineGroup/defaultProbeInterval``); a run started later
/// than at once also measures what that probing costs on each link while nothing plays.
public enum TwoDeviceBench {
    public struct Result: Sendable {
        /// True skews (device 1 − device 0), µs.
        public var skews: [Double] = []
        /// Reported skews' half-widths, µs.
        public var bounds: [Double] = []
        /// Events compared, and those whose bound held the true skew.
        public var compared = 0
        public var contained = 0
        /// Events either device did not report.
        public var missing = 0
        /// Bytes per second each device's link carried while the group waited (after the startup
        /// probing), host → device and back; empty for runs started at once.
        public var waitingHostBytesPerSecond: [Double] = []
        public var waitingDeviceBytesPerSecond: [Double] = []
    }


    /// One pair: seeds `seed` (−100 ppm when odd) and `seed + 1`, `count` transients 120 ms apart,
    /// started on both `startAfter` s after the group connected (0: at once, as `thrum play` does).
    public static func run(link: LinkProfile, seed: UInt64, count: Int, startAfter: Double = 0, into result: inout Result) throws {
        let rigs = [VirtualRig(link: link, seed: seed), VirtualRig(link: link, seed: seed &+ 1)]
        let group = HapticEngineGroup(rigs.map { $0.makeEngine() })
        try group.start()
        if startAfter > BenchSetup.startupProbingEnd {
            group.run(for: BenchSetup.startupProbingEnd)
            let before = rigs.map(\.session.link.statistics)
            let waited = startAfter - BenchSetup.startupProbingEnd
            group.run(for: waited)
            for (rig, start) in zip(rigs, before) {
                let now = rig.session.link.statistics
                result.waitingHostBytesPerSecond.append(Double(now.bytesSent - start.bytesSent) / waited)
                result.waitingDeviceBytesPerSecond.append(Double(now.bytesReceived - start.bytesReceived) / waited)
            }
        } else if startAfter > 0 {
            group.run(for: startAfter)
        }
        let players = try group.makePlayers(with: [BenchSetup.transients(count: count, spacing: 0.12)])
        try group.start(players, atTime: group.currentTime + group.leadTime.seconds + 0.02)
        group.runUntilPlayersFinished(players, timeout: Double(count) * 0.12 + 5)
        let skews = group.skews(of: players)
        result.missing += count - skews.count
        for s in skews {
            guard let a = rigs[0].trueOnset(of: s.reference), let b = rigs[1].trueOnset(of: s.record) else {
                result.missing += 1
                continue
            }
            let truth = b - a
            result.compared += 1
            if abs(s.skew - truth) <= s.bound + 1e-6 { result.contained += 1 }
            result.skews.append(truth * 1e6)
            result.bounds.append(s.bound * 1e6)
        }
    }
}
