import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire

/// Every timing figure of one named link model (``LinkCatalogue``), measured on the path
/// `thrum play` runs — a ``HapticEngine`` with its shipped defaults on a ``VirtualRig`` — against
/// the truth of the simulated chip: when its RTP_INPUT register first received a non-zero value
/// (the device's ONSET is the same instant on its own clock).
///
/// Nothing here tells the host what it could not know on a real link: the engine, session and
/// clock model keep their defaults (no known outbound floor, the default ping interval).
public enum LinkMatrixBench {
    /// The figures of one link, from every seed.
    public struct Row: Sendable {
        /// The link's name (`LinkProfile.name`).
        public var link: String
        /// Events scheduled in the rhythm runs, and those the chip never started.
        public var events = 0
        public var missing = 0
        /// True onset − intended instant, µs (signed), through the engine.
        public var alignment: [Double] = []
        /// Error of each interval between consecutive onsets, µs (signed).
        public var interOnset: [Double] = []
        /// The same for intervals that start ``settleTime`` or more after connecting: the host has
        /// learnt the crystal's drift by then (before, it plays at the device's nominal rate and
        /// each interval is off by the crystal's error, up to 12 µs per 120 ms at ±100 ppm).
        public var settledInterOnset: [Double] = []
        /// Half the drift range every clock sample allows (``ClockModel/driftBoundsPPM``) when a
        /// rhythm run starts, ppm: how well the host can know the crystal's rate then. Behind a
        /// bridge it is far wider than the ±83 ppm a 10 µs inter-onset error over 120 ms needs.
        public var startDriftBound: [Double] = []
        /// The same alignment for the send-when-due baseline and the symmetric-ping scheduler.
        public var naive: [Double] = []
        public var symmetric: [Double] = []
        /// Events with a reported bound, and those whose bound held the truth.
        public var bounded = 0
        public var contained = 0
        /// Half-widths of the reported bounds ("±"), µs.
        public var boundHalfWidths: [Double] = []
        /// Prepared start latency (call → first non-zero drive), ms, and how many were GOs.
        public var prepared: [Double] = []
        public var preparedGoStarts = 0
        /// Events scheduled around a 100 ms host stall, and those that came late or not at all.
        public var stallEvents = 0
        public var lateInStall = 0
        /// Call → the chip's first write of the new level (intensity control), ms.
        public var parameterLatency: [Double] = []
        /// Call → the chip's amplitude 0 (`stop(atTime: HapticTimeImmediate)`), ms.
        public var stopLatency: [Double] = []
        /// Idle link traffic with the engine running and nothing playing, bytes/s each way.
        public var idleHostBytesPerSecond: Double = 0
        public var idleDeviceBytesPerSecond: Double = 0

        /// Creates an empty row for `link`.
        public init(link: String) { self.link = link }

        /// |alignment| p99, µs.
        public var alignmentP99: Double? { Percentiles(alignment.map(abs)).p99 }
        /// Share of bounded events whose bound held the truth (nil without any).
        public var containment: Double? { bounded > 0 ? Double(contained) / Double(bounded) : nil }
    }

    /// How much each run measures.
    public struct Plan: Sendable {
        public var seeds: [UInt64]
        /// Transients per rhythm run, 120 ms apart.
        public var events: Int
        /// Prepared starts, parameter changes and stops per seed.
        public var trials: Int
        /// Seconds of idle traffic measured.
        public var idleSeconds: Double

        /// The full plan, or a quick one for tests, or with `smoke` the smallest that yields every figure.
        public init(quick: Bool, smoke: Bool = false) {
            seeds = quick || smoke ? [1] : [1, 2, 3]
            events = smoke ? 24 : quick ? 30 : 100
            trials = smoke ? 2 : quick ? 8 : 30
            idleSeconds = smoke ? 1 : quick ? 3 : 10
        }
    }

    /// Runs every figure on `link`.
    public static func run(link: LinkProfile, plan: Plan) throws -> Row {
        var row = Row(link: link.name)
        for seed in plan.seeds {
            try rhythm(link: link, seed: seed, count: plan.events, into: &row)
            row.naive += try naive(link: link, seed: seed &+ 10, count: plan.events)
            row.symmetric += try symmetric(link: link, seed: seed &+ 20, count: plan.events)
            try prepared(link: link, seed: seed &+ 30, trials: plan.trials, into: &row)
            try stall(link: link, seed: seed &+ 40, into: &row)
            try changes(link: link, seed: seed &+ 50, trials: plan.trials, into: &row)
        }
        try idle(link: link, seed: 99, seconds: plan.idleSeconds, into: &row)
        return row
    }

    static let spacing = 0.12
    /// How long after connecting an interval counts as settled (see ``Row/settledInterOnset``).
    public static let settleTime = 2.5

    /// The engine path: `thrum play`'s start (now + lead + 20 ms right after `start()`), then the
    /// transients; each onset against the chip, each bound checked. `session` other than the
    /// shipped defaults measures a tunable beside them (the figures keep the defaults).
    public static func rhythm(
        link: LinkProfile, seed: UInt64, count: Int, session: DeviceSessionConfiguration = DeviceSessionConfiguration(), into row: inout Row
    ) throws {
        let rig = VirtualRig(link: link, seed: seed, sessionConfiguration: session)
        let connected = Double(rig.trueNow)
        let engine = try rig.engine()
        let player = try engine.makePlayer(with: BenchSetup.transients(count: count, spacing: spacing))
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        if let range = rig.session.link.clock.driftBoundsPPM { row.startDriftBound.append((range.upperBound - range.lowerBound) / 2) }
        try player.start(atTime: start)
        engine.runUntilPlayersFinished(timeout: Double(count) * spacing + 5)
        engine.waitForOnsetReports(of: player)
        var previous: (truth: Double, intended: Double)?
        for record in engine.onsets(for: player) {
            row.events += 1
            let intended = record.intendedDriveTime * 1e6
            guard let truth = record.deviceOnset.flatMap({ rig.commandWrite(deviceClock: $0, near: intended) }) ?? rig.firstDrive(near: intended) else {
                row.missing += 1
                previous = nil
                continue
            }
            row.alignment.append(truth - intended)
            if let p = previous {
                row.interOnset.append((truth - p.truth) - (intended - p.intended))
                if p.intended - connected >= settleTime * 1e6 { row.settledInterOnset.append(row.interOnset.last!) }
            }
            previous = (truth, intended)
            if let range = record.driveOnsetRange, let bound = record.onsetBound {
                row.bounded += 1
                if range.lowerBound * 1e6 <= truth && truth <= range.upperBound * 1e6 { row.contained += 1 }
                row.boundHalfWidths.append(bound * 1e6)
            }
        }
    }

    /// Send-when-due: the host sleeps until each event is due, wakes late by the OS's latency, and
    /// writes the event's segments to start at its estimate of the device's "now".
    public static func naive(link: LinkProfile, seed: UInt64, count: Int) throws -> [Double] {
        let rig = VirtualRig(link: link, seed: seed)
        try rig.connect()
        let program = PatternCompiler(profile: rig.profile).compile(BenchSetup.transients(count: count, spacing: spacing))
        let earliest = min(0, program.segments.map(\.start).min() ?? 0)
        let base = Double(rig.trueNow) + 20_000 - Double(earliest)
        let marks = program.segments.enumerated().filter { $0.element.eventID != 0 }.map(\.offset)
        for (n, first) in marks.enumerated() {
            let group = program.segments[first..<(n + 1 < marks.count ? marks[n + 1] : program.segments.count)]
            let lead = group.first!
            let due = UInt64(base + Double(lead.start))
            try rig.idle(until: due + rig.pump.link.hostWakeLatency(at: due))
            let now = rig.session.link.clock.deviceTime(at: rig.clock.now()).microseconds
            for segment in group {
                rig.session.link.send(
                    .segment(
                        SegmentCommand(
                            start: UInt32(truncatingIfNeeded: now + segment.start - lead.start), duration: segment.duration,
                            from: segment.from, to: segment.to, event: segment.eventID)))
            }
        }
        try rig.idle(until: rig.trueNow + 200_000)
        return program.events.filter(\.played).compactMap { event in
            let intended = base + Double(event.driveOnset)
            return rig.firstDrive(near: intended, before: 0, window: 100_000).map { $0 - intended }
        }
    }

    /// A conventional timestamped scheduler: commands carry device times a lead ahead, mapped with
    /// an NTP-style offset — the sample with the shortest round trip among the last eight,
    /// assuming the device read its clock halfway through it — and no envelope, no drift model, no
    /// latency learning.
    public static func symmetric(link: LinkProfile, seed: UInt64, count: Int) throws -> [Double] {
        let rig = VirtualRig(link: link, seed: seed)
        try rig.connect()
        let program = PatternCompiler(profile: rig.profile).compile(BenchSetup.transients(count: count, spacing: spacing))
        let lead = Double(rig.session.leadPolicy.retransmissionLead(for: rig.session.link.statistics).nanoseconds) / 1e3
        let earliest = min(0, program.segments.map(\.start).min() ?? 0)
        let base = Double(rig.trueNow) + lead + 20_000 - Double(earliest)
        for segment in program.segments {
            let due = UInt64(max(0, base + Double(segment.start) - lead))
            if due > rig.trueNow { try rig.idle(until: due) }
            let offset = ntpOffset(rig.session.link.clock.samples.suffix(8))
            let device = Int64((base + Double(segment.start) + offset).rounded())
            rig.session.link.send(
                .segment(
                    SegmentCommand(
                        start: UInt32(truncatingIfNeeded: device), duration: segment.duration, from: segment.from, to: segment.to,
                        event: segment.eventID)))
        }
        try rig.idle(until: UInt64(base) + UInt64(program.duration * 1e6) + 200_000)
        return program.events.filter(\.played).compactMap { event in
            let intended = base + Double(event.driveOnset)
            return rig.firstDrive(near: intended, before: 3_000, window: 100_000).map { $0 - intended }
        }
    }

    /// device − host (µs) from the shortest round trip among `samples`, taken at its midpoint.
    public static func ntpOffset(_ samples: ArraySlice<ClockSample>) -> Double {
        guard let best = samples.min(by: { $0.roundTrip < $1.roundTrip }) else { return 0 }
        let middle = (Double(best.hostSend.nanoseconds) + Double(best.hostReceive.nanoseconds)) / 2e3
        return Double(best.deviceReceive.microseconds) - middle
    }

    /// Prepared starts: `prepare(pattern)`, then `start(atTime: HapticTimeImmediate)` after idle
    /// gaps of 50–200 ms; call → the chip's first non-zero drive.
    public static func prepared(link: LinkProfile, seed: UInt64, trials: Int, into row: inout Row) throws {
        let rig = VirtualRig(link: link, seed: seed)
        let engine = try rig.engine()
        let pattern = BenchSetup.transients(count: 1, spacing: 0.1)
        engine.run(for: 1)
        try engine.prepare(pattern)
        var rng = SplitMix64(seed: seed ^ 0x57A7)
        for _ in 0..<trials {
            engine.run(for: Double(50_000 + rng.next() % 150_000) / 1e6)
            let call = Double(rig.trueNow)
            let before = engine.preparedStarts
            let player = try engine.makePlayer(with: pattern)
            try player.start(atTime: HapticTimeImmediate)
            engine.runUntilPlayersFinished(timeout: 1)
            engine.run(for: 0.02)
            if engine.preparedStarts > before { row.preparedGoStarts += 1 }
            if let onset = rig.firstDrive(near: call, before: 0, window: 200_000) { row.prepared.append((onset - call) / 1e3) }
        }
    }

    /// A 100 ms host stall 0.7 s into a train of transients 50 ms apart: events the device
    /// reached late (PROTOCOL.md §4.2: more than 50 µs after their start; trimmed or dropped) or
    /// that never came. An event the device started whole at its time but whose bracket later
    /// showed that time off (`mistimed`: on `ftdi-115200-16ms` every event drives ≈ 2.5 ms early,
    /// the legs' asymmetry, and whether a bracket narrows enough to say so depends on the
    /// traffic) is no casualty of the stall.
    public static func stall(link: LinkProfile, seed: UInt64, into row: inout Row) throws {
        let rig = VirtualRig(link: link, seed: seed)
        let engine = try rig.engine()
        let player = try engine.makePlayer(with: BenchSetup.transients(count: 40, spacing: 0.05))
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        engine.run(until: start + 0.7)
        rig.pump.stallHost(for: 100_000)
        engine.runUntilPlayersFinished(timeout: 5)
        engine.waitForOnsetReports(of: player)
        for record in engine.onsets(for: player) {
            row.stallEvents += 1
            let intended = record.intendedDriveTime * 1e6
            let whole = record.status == .onTime || record.status == .mistimed
            if !whole || rig.firstDrive(near: intended) == nil { row.lateInStall += 1 }
        }
    }

    /// Intensity-control changes during a continuous event (call → the chip's first write of the
    /// new level), then immediate stops (call → amplitude 0).
    public static func changes(link: LinkProfile, seed: UInt64, trials: Int, into row: inout Row) throws {
        let rig = VirtualRig(link: link, seed: seed)
        let engine = try rig.engine()
        let length = Double(trials) * 0.35 + 1
        let pattern = HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticContinuous,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)], relativeTime: 0, duration: length)
            ], parameters: [], parameterCurves: [])
        let player = try engine.makeAdvancedPlayer(with: pattern)
        try player.start(atTime: engine.currentTime + engine.leadTime.seconds + 0.02)
        engine.run(for: 0.4)
        var rng = SplitMix64(seed: seed ^ 0xC4A6)
        var level = 1.0
        for _ in 0..<trials {
            engine.run(for: Double(100_000 + rng.next() % 200_000) / 1e6)
            level = level == 1 ? 0.5 : 1
            let call = rig.trueNow
            try player.sendParameters(
                [HapticDynamicParameter(parameterID: .hapticIntensityControl, value: Float(level), relativeTime: 0)],
                atTime: HapticTimeImmediate)
            engine.run(for: 0.15)
            let target = Int((255 * level).rounded())
            if let write = rtpWrites(rig, after: call).first(where: { abs(Int($0.value) - target) <= 2 }) {
                row.parameterLatency.append(Double(write.time - call) / 1e3)
            }
        }
        try player.stop(atTime: HapticTimeImmediate)
        engine.run(for: 0.1)
        for _ in 0..<max(1, trials / 3) {
            let p = try engine.makePlayer(with: pattern)
            try p.start(atTime: HapticTimeImmediate)
            engine.run(for: 0.2 + Double(rng.next() % 100_000) / 1e6)
            let call = rig.trueNow
            try p.stop(atTime: HapticTimeImmediate)
            engine.run(for: 0.1)
            if let write = rtpWrites(rig, after: call).first(where: { $0.value == 0 }) {
                row.stopLatency.append(Double(write.time - call) / 1e3)
            }
        }
    }

    /// Link traffic with the engine started and idle, from when the connect's startup probing (a
    /// one-off cost per connection, ``ThrumLink/LinkConfiguration/startupProbing``) is over.
    public static func idle(link: LinkProfile, seed: UInt64, seconds: Double, into row: inout Row) throws {
        let rig = VirtualRig(link: link, seed: seed)
        let engine = try rig.engine()
        engine.run(for: BenchSetup.startupProbingEnd)
        let before = rig.session.link.statistics
        engine.run(for: seconds)
        let after = rig.session.link.statistics
        row.idleHostBytesPerSecond = Double(after.bytesSent - before.bytesSent) / seconds
        row.idleDeviceBytesPerSecond = Double(after.bytesReceived - before.bytesReceived) / seconds
    }

    static func rtpWrites(_ rig: VirtualRig, after t: UInt64) -> [RegisterWrite] {
        rig.device.chip.trace.registerWrites.filter { $0.register == DRV2605LRegister.rtpInput.rawValue && $0.time >= t }
    }
}
