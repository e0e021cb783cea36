import ThrumHarness
import ThrumCompiler
import ThrumEngine
import ThrumSim

/// Reliability: transients played over the jittered USB link with 5 % chunk loss and 5 %
/// corruption both ways. Counts retransmissions, events the chip never started (lost), onset
/// reports that never reached the host, and the onset error of the events that played.
public enum LossBench {
    /// What happened.
    public struct Result: Sendable {
        public var events = 0
        public var lost = 0
        public var reportsMissing = 0
        public var retransmissions = 0
        public var errors: [Double] = []
        public var chunksLost = 0
        public var chunksCorrupted = 0
        /// Frames the host sent in the measured run, retransmissions included.
        public var framesSent = 0
    }

    /// One run of `count` transients `spacing` s apart.
    public static func run(seed: UInt64, count: Int, spacing: Double = 0.08) throws -> Result {
        let rig = BenchSetup.rig(seed: seed, link: BenchSetup.lossyUSB(seed: seed))
        try rig.connect()
        try rig.idle(until: rig.trueNow + 2_000_000)
        let program = PatternCompiler(profile: rig.profile).compile(BenchSetup.transients(count: count, spacing: spacing))
        // A warm-up play, as in the onset figure: the session learns the device's fixed latency.
        _ = try rig.play(program: PatternCompiler(profile: rig.profile).compile(BenchSetup.transients(count: 6, spacing: spacing)))
        let before = rig.session.link.statistics
        let report = try rig.play(program: program)
        var result = Result()
        result.retransmissions = rig.session.link.statistics.retransmissions - before.retransmissions
        result.framesSent = rig.session.link.statistics.framesSent - before.framesSent
        let start = Double(report.startHostTime.nanoseconds) / 1e3
        for event in program.events where event.played {
            result.events += 1
            let intended = start + Double(event.driveOnset)
            if let onset = rig.firstDrive(near: intended, window: spacing * 0.5e6) { result.errors.append(onset - intended) } else { result.lost += 1 }
        }
        result.reportsMissing = report.events.filter { $0.status == .notReported }.count
        if let link = rig.pump.link as? LossyLink<AnyLinkModel> {
            result.chunksLost = link.lostChunks.values.reduce(0, +)
            result.chunksCorrupted = link.corruptedChunks.values.reduce(0, +)
        }
        return result
    }
}
