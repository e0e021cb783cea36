import ThrumHarness
import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumSim
import ThrumTime

/// Start latency: from the call (true time) to the first non-zero drive the chip model records,
/// for a single transient on the jittered USB link (0.5–8 ms host wake-up jitter, ±100 ppm).
///
/// - Prepared: a ``HapticEngine`` on the rig, `prepare(pattern)` done (link up, clock converged,
///   driver awake with a WAKE idle timeout, calibrated, the transient preloaded in a program
///   slot). Each trial makes a player and calls `start(atTime: HapticTimeImmediate)`: the engine
///   sends only an any-lane GO whose device start is the next USB frame + a margin. The figure is
///   the chip's true drive onset minus the true time of the call, so clock error, the frame wait,
///   the device's handling, the I²C write and the device's 500 µs RTP update all count.
/// - Unprepared: the session is connected and its clock converged (as after `thrum play`
///   connects), and `play` streams the program with the adaptive lead (``LeadTimePolicy``).
/// - Lapsed: the prepared engine after its idle timeout put the driver in standby: the start
///   re-wakes it (WAKE in the GO's frame) and waits out the standby exit.
/// - Cold: open, configure, synchronise and play from nothing.
public enum StartLatencyBench {
    /// Latencies in ms.
    public struct Result: Sendable {
        public var unprepared: [Double] = []
        /// Call → first non-zero drive, prepared.
        public var prepared: [Double] = []
        /// Call → the first RTP_INPUT write of the GO'd program (the segment start, which may write 0).
        public var preparedSegmentStart: [Double] = []
        /// Prepared starts that were a GO (the rest were streamed: a bug if any).
        public var preparedGoStarts = 0
        /// Prepared starts the device reported late (trimmed).
        public var preparedLate = 0
        public var lapsed: [Double] = []
        public var cold: [Double] = []
    }

    static func transient() -> HapticPattern { BenchSetup.transients(count: 1, spacing: 0.1) }

    /// `trials` calls per kind, idle gaps of random length between them.
    public static func run(seed: UInt64, trials: Int) throws -> Result {
        var result = Result()
        result.unprepared = try unpreparedTrials(seed: seed, trials: trials)
        try preparedTrials(seed: seed &+ 1, trials: trials, lapsed: max(1, trials / 10), into: &result)
        for k in 0..<max(1, trials / 4) {
            let rig = BenchSetup.rig(seed: seed &+ 50 &+ UInt64(k), link: BenchSetup.jitteredUSB(seed: seed &+ 50 &+ UInt64(k)))
            let call = Double(rig.trueNow)
            _ = try rig.play(transient())
            if let onset = rig.device.chip.trace.driveOnset(after: UInt64(call)) { result.cold.append((Double(onset) - call) / 1e3) }
        }
        return result
    }

    static func unpreparedTrials(seed: UInt64, trials: Int) throws -> [Double] {
        let rig = BenchSetup.rig(seed: seed, link: BenchSetup.jitteredUSB(seed: seed))
        try rig.connect()
        try rig.idle(until: rig.trueNow + 1_000_000)
        let program = PatternCompiler(profile: rig.profile).compile(transient())
        var rng = SplitMix64(seed: seed ^ 0x57A7)
        var latencies: [Double] = []
        for _ in 0..<trials {
            try rig.idle(until: rig.trueNow + 50_000 + rng.next() % 150_000)
            let call = rig.trueNow
            _ = try rig.play(program: program)
            if let onset = rig.device.chip.trace.driveOnset(after: call) { latencies.append(Double(onset - call) / 1e3) }
        }
        return latencies
    }

    static func preparedTrials(seed: UInt64, trials: Int, lapsed: Int, into result: inout Result) throws {
        let rig = BenchSetup.rig(seed: seed, link: BenchSetup.jitteredUSB(seed: seed))
        let engine = rig.makeEngine()
        let pattern = transient()
        try engine.start()
        engine.run(for: 1)
        try engine.prepare(pattern)
        var rng = SplitMix64(seed: seed ^ 0x57A7)
        func trial(gap: Double, count: Bool = true) throws -> (drive: Double?, write: Double?) {
            engine.run(for: gap)
            let call = rig.trueNow
            let goBefore = engine.preparedStarts
            let player = try engine.makePlayer(with: pattern)
            try player.start(atTime: HapticTimeImmediate)
            engine.runUntilPlayersFinished(timeout: 1)
            engine.run(for: 0.02)
            if count, engine.preparedStarts > goBefore { result.preparedGoStarts += 1 }
            if count, engine.onsets(for: player).contains(where: { $0.status == .lateTrimmed }) { result.preparedLate += 1 }
            let drive = rig.device.chip.trace.driveOnset(after: call).map { Double($0 - call) / 1e3 }
            let write = rig.device.chip.trace.registerWrites.first {
                $0.register == DRV2605LRegister.rtpInput.rawValue && $0.time >= call
            }.map { Double($0.time - call) / 1e3 }
            return (drive, write)
        }
        for _ in 0..<trials {
            let (drive, write) = try trial(gap: Double(50_000 + rng.next() % 150_000) / 1e6)
            if let drive { result.prepared.append(drive) }
            if let write { result.preparedSegmentStart.append(write) }
        }
        // Past the idle timeout the device puts the driver in standby; the start re-wakes it.
        for _ in 0..<lapsed {
            let (drive, _) = try trial(gap: engine.configuration.preparedTimeout.seconds + 0.3, count: false)
            if let drive { result.lapsed.append(drive) }
        }
    }
}
