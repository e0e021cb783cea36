import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumSim
import ThrumTime

/// Start latency: from the call (true time) to the first non-zero drive the chip model records,
/// for a single transient on the jittered USB link.
///
/// - Unprepared: the session is connected and its clock converged (as after `thrum play`
///   connects), and `play` schedules with the adaptive lead (``LeadTimePolicy``).
/// - Prepared (proxy until PRELOAD/GO lands on the device): connected, clock converged, driver
///   awake, compiled program in hand, latency learnt, and an immediate-start lead of one USB frame
///   plus a margin; the program itself still crosses the link after the call. The hook for the
///   real thing is ``DeviceSession`` gaining `prepare(_:)` / `start()` that send PRELOAD ahead and
///   a few-byte GO at the call; this bench then measures call → drive the same way.
/// - Cold: open, configure, synchronise and play from nothing.
public enum StartLatencyBench {
    /// Latencies in ms.
    public struct Result: Sendable {
        public var unprepared: [Double] = []
        public var prepared: [Double] = []
        public var cold: [Double] = []
    }

    /// The immediate-start lead used for the prepared proxy: one USB frame plus 0.3 ms.
    public static let immediateLead = LeadTimePolicy(floor: .microseconds(1_300), ceiling: .microseconds(1_300), factor: 0, margin: .zero)

    static func transient() -> HapticPattern { BenchSetup.transients(count: 1, spacing: 0.1) }

    /// `trials` calls per kind, idle gaps of random length between them.
    public static func run(seed: UInt64, trials: Int) throws -> Result {
        var result = Result()
        result.unprepared = try trialsOn(seed: seed, trials: trials, policy: nil)
        result.prepared = try trialsOn(seed: seed &+ 1, trials: trials, policy: immediateLead)
        for k in 0..<max(1, trials / 4) {
            let rig = BenchSetup.rig(seed: seed &+ 50 &+ UInt64(k), link: BenchSetup.jitteredUSB(seed: seed &+ 50 &+ UInt64(k)))
            let call = Double(rig.trueNow)
            _ = try rig.play(transient())
            if let onset = rig.device.chip.trace.driveOnset(after: UInt64(call)) { result.cold.append((Double(onset) - call) / 1e3) }
        }
        return result
    }

    static func trialsOn(seed: UInt64, trials: Int, policy: LeadTimePolicy?) throws -> [Double] {
        let c = BenchSetup.crystal(seed: seed)
        var configuration = BenchSetup.session()
        if let policy { configuration.leadPolicy = policy }
        let rig = VirtualRig(crystalErrorPPM: c.ppm, clockStart: c.start, link: BenchSetup.jitteredUSB(seed: seed), sessionConfiguration: configuration)
        try rig.connect()
        try rig.idle(until: rig.trueNow + 1_000_000)
        let program = PatternCompiler(profile: rig.profile).compile(transient())
        var rng = SplitMix64(seed: seed ^ 0x57A7)
        var latencies: [Double] = []
        for _ in 0..<trials {
            try rig.idle(until: rig.trueNow + 50_000 + rng.next() % 150_000)
            let call = rig.trueNow
            _ = try rig.session.play(program)
            if let onset = rig.device.chip.trace.driveOnset(after: call) { latencies.append(Double(onset - call) / 1e3) }
        }
        return latencies
    }
}
