import ThrumHarness
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire

/// Device-side onset error: when the driver really started driving each event (the chip model's
/// drive onsets, true time) against when the host meant it to (the host's planned start, true
/// time, plus the event's planned drive onset). Clock error, crystal drift, link delay, lead
/// time and the device's fixed latency all land in it.
public enum OnsetBench {
    /// Errors (µs, signed) of the scheduled host, and events with no drive onset.
    public struct Result: Sendable {
        public var errors: [Double] = []
        /// Errors of the first non-zero drive (chip drive onsets): these also carry the firmware's
        /// 500 µs amplitude-update period when a segment's first amplitude rounds to 0.
        public var driveErrors: [Double] = []
        public var missing = 0
        public var retransmissions = 0
        public var lostChunks = 0
        public var corruptedChunks = 0
    }

    /// The scheduled host: converge the clock, one warm-up play (the latency compensator learns),
    /// then play `count` transients and compare.
    public static func scheduled(seed: UInt64, count: Int, spacing: Double = 0.12, link: any LinkModel, settle: Double = 2) throws -> Result {
        let rig = BenchSetup.rig(seed: seed, link: link)
        try rig.connect()
        try rig.idle(until: rig.trueNow + UInt64(settle * 1e6))
        let program = PatternCompiler(profile: rig.profile).compile(BenchSetup.transients(count: count, spacing: spacing))
        _ = try rig.play(program: PatternCompiler(profile: rig.profile).compile(BenchSetup.transients(count: 6, spacing: spacing)))
        let report = try rig.play(program: program)
        var result = Result()
        let start = Double(report.startHostTime.nanoseconds) / 1e3
        for event in program.events where event.played {
            let intended = start + Double(event.driveOnset)
            if let onset = rig.segmentOnset(near: intended) { result.errors.append(onset - intended) } else { result.missing += 1 }
            if let onset = rig.driveOnset(near: intended) { result.driveErrors.append(onset - intended) }
        }
        result.retransmissions = rig.session.link.statistics.retransmissions
        return result
    }

    /// The same measurement through the streaming ``HapticEngine`` (what `thrum play` and apps
    /// run): a warm-up player, then one player started at a known engine time; each event's
    /// intended instant is that time plus the event's planned drive onset.
    public static func engine(seed: UInt64, count: Int, spacing: Double = 0.12, link: any LinkModel, settle: Double = 2) throws -> Result {
        let rig = BenchSetup.rig(seed: seed, link: link)
        let engine = rig.makeEngine()
        try engine.start()
        try rig.idle(until: rig.trueNow + UInt64(settle * 1e6))
        let warmUp = try engine.makePlayer(with: BenchSetup.transients(count: 6, spacing: spacing))
        try warmUp.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 5)
        let pattern = BenchSetup.transients(count: count, spacing: spacing)
        let program = PatternCompiler(profile: rig.profile, options: engine.configuration.compileOptions).compile(pattern)
        let player = try engine.makePlayer(with: pattern)
        // Start far enough ahead that even the earliest (pre-shifted) drive is inside the lead.
        let startTime = engine.currentTime + 0.2
        try player.start(atTime: startTime)
        engine.runUntilPlayersFinished(timeout: Double(count) * spacing + 5)
        var result = Result()
        for event in program.events where event.played {
            let intended = startTime * 1e6 + Double(event.driveOnset)
            if let onset = rig.segmentOnset(near: intended) { result.errors.append(onset - intended) } else { result.missing += 1 }
            if let onset = rig.driveOnset(near: intended) { result.driveErrors.append(onset - intended) }
        }
        result.retransmissions = rig.session.link.statistics.retransmissions
        return result
    }

    /// The naive host: it sleeps until each event is due, wakes (late by the OS's scheduling
    /// latency, drawn from the same link model), and writes the event's segments with `start` =
    /// its estimate of the device's "now", so the device plays them on receipt. Its clock model is
    /// the same converged one; only the sending strategy differs.
    public static func naive(seed: UInt64, count: Int, spacing: Double = 0.12, link: any LinkModel, settle: Double = 2) throws -> Result {
        let rig = BenchSetup.rig(seed: seed, link: link)
        try rig.connect()
        try rig.idle(until: rig.trueNow + UInt64(settle * 1e6))
        let program = PatternCompiler(profile: rig.profile).compile(BenchSetup.transients(count: count, spacing: spacing))
        let earliest = min(0, program.segments.map(\.start).min() ?? 0)
        let base = Double(rig.trueNow) + 20_000 - Double(earliest)
        var result = Result()
        let marks = program.segments.enumerated().filter { $0.element.eventID != 0 }.map(\.offset)
        for (n, first) in marks.enumerated() {
            let group = program.segments[first..<(n + 1 < marks.count ? marks[n + 1] : program.segments.count)]
            let lead = group.first!
            let due = UInt64(base + Double(lead.start))
            let wake = due + rig.pump.link.hostWakeLatency(at: due)
            try rig.idle(until: wake)
            let now = Int64(rig.session.link.clock.deviceTime(at: rig.clock.now()))
            for segment in group {
                rig.session.link.send(
                    .segment(SegmentCommand(
                        start: UInt32(truncatingIfNeeded: now + segment.start - lead.start), duration: segment.duration,
                        from: segment.from, to: segment.to, event: segment.eventID)))
            }
        }
        try rig.idle(until: rig.trueNow + 200_000)
        for event in program.events where event.played {
            let intended = base + Double(event.driveOnset)
            if let onset = rig.segmentOnset(near: intended, before: 0, window: 60_000) { result.errors.append(onset - intended) } else { result.missing += 1 }
            if let onset = rig.driveOnset(near: intended, before: 0, window: 60_000) { result.driveErrors.append(onset - intended) }
        }
        return result
    }
}
