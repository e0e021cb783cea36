import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumPattern

/// The studio's one door to the engine (`thrum studio` reaches the device nowhere else): opens
/// the device the way `thrum play` does (``PlaybackTarget``, ``DeviceConnection``), plays a
/// pattern on it, and hands each event's onset over as the device reports it, with its ± bound
/// and, on the virtual device, the true onset from the simulated chip.
///
/// A `--port` is opened once and held for the studio's life (so no other program takes it
/// between two plays); the virtual device is built anew for each play and its virtual time paced
/// to the wall clock, so onsets arrive when they would on hardware.
final class StudioDevice: @unchecked Sendable {
    /// One event's report, in pattern time (s).
    struct Onset {
        var index: Int
        /// The loop's pass (0 without a loop).
        var pass: Int
        var requested: Double
        var onset: Double?
        var bound: Double?
        var trueOnset: Double?
        var status: String
        var suspect: Bool
    }

    /// What one play did.
    struct Outcome {
        /// The pattern's haptic events times the passes a looped play began (one pass unlooped).
        var hapticEvents: Int
        /// Passes that reported an onset (1 for a play that is not looped).
        var passes: Int
        var reported: Int
        var onTime: Int
        var stopped: Bool
    }

    /// "the virtual device" or the port's name.
    let name: String
    /// How the page names it: `virtual` or the port.
    var id: String { port ?? "virtual" }
    let profile: ActuatorProfile
    private let port: String?
    private var held: (connection: DeviceConnection, engine: HapticEngine)?

    /// The virtual device (`port` nil) or the device on `port`, opened and configured now.
    /// - Throws: `CommandFailure` when the port does not answer as a Thrum device.
    init(port: String?, baud: Int, profile: ActuatorProfile) throws {
        self.port = port
        self.profile = profile
        name = port ?? "the virtual device"
        if let port {
            let target = try PlaybackTarget.open(port: port, baud: baud)
            let connection = try DeviceConnection.open(target: target, profile: profile)
            var configuration = HapticEngine.Configuration()
            if connection.stillValid != nil || connection.restoreIfLost() != nil { configuration.calibrateOnStart = false }
            let engine = connection.makeEngine(configuration: configuration)
            try engine.start()
            if let report = engine.calibrationResult { _ = connection.remember(report) }
            // Started and left so between plays: nothing runs its link while the studio is idle,
            // and the engine catches up by itself (reads what the device sent, synchronizes its
            // clock afresh) when the next play makes its player.
            held = (connection, engine)
            PortHold.claim(port, program: "thrum studio")
        }
    }

    var isVirtual: Bool { port == nil }

    /// Closes the port.
    func close() {
        held?.engine.stop()
        held?.connection.target.close()
        held = nil
        if let port { PortHold.release(port) }
    }

    /// The longest looped play on the virtual device (s): its trace grows while it plays.
    static let longestVirtualLoop = 600.0

    /// Plays `pattern` at `rate` until it has played out (and its onsets came back) or `stop()`
    /// says so; `onset` gets each report as it arrives, `link` a line of link figures now and then.
    func play(
        _ pattern: HapticPattern, rate: Double, loop: Bool = false, profile chosen: ActuatorProfile? = nil, stop: () -> Bool,
        onset: (Onset) -> Void, link: (String) -> Void, position: (Double) -> Void = { _ in }
    ) throws -> Outcome {
        let engine: HapticEngine
        let target: PlaybackTarget
        if let held {
            engine = held.engine
            target = held.connection.target
            if !engine.isRunning { try engine.start() }
        } else {
            // The virtual device is built for the profile the page chose (a port's device keeps its own).
            let profile = chosen ?? self.profile
            target = PlaybackTarget.virtual(profile: profile)
            let connection = try DeviceConnection.open(target: target, profile: profile)
            var configuration = HapticEngine.Configuration()
            configuration.calibrateOnStart = false
            engine = connection.makeEngine(configuration: configuration)
            try engine.start()
        }
        // The virtual device's engine ends with the play; a port's stays started between plays.
        defer { if held == nil { engine.stop() } }
        let player = try engine.makeAdvancedPlayer(with: pattern)
        player.playbackRate = rate
        player.loopEnabled = loop
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        let watch = PlayWatch(device: self, engine: engine, target: target, player: player, pattern: pattern, rate: rate, loop: loop, start: start)
        defer { watch.cancel() }
        try player.start(atTime: start)
        let end = loop ? start + (held == nil ? Self.longestVirtualLoop : .infinity) : start + watch.playLength
        let wallStart = Date()
        let engineStart = engine.currentTime
        var stopped = false
        while engine.currentTime < end + (loop ? 0 : 0.3) {
            if stop() {
                stopped = true
                try? player.stop(atTime: HapticTimeImmediate)
                engine.run(for: 0.05)
                break
            }
            engine.run(for: 0.004)
            if held == nil {
                // Virtual time, paced to the wall clock.
                let ahead = (engine.currentTime - engineStart) - Date().timeIntervalSince(wallStart)
                if ahead > 0 { Thread.sleep(forTimeInterval: ahead) }
            }
            watch.look(onset: onset, link: link, position: position)
            if !loop && watch.allReported && engine.currentTime > end { break }
        }
        watch.finish(onset: onset, link: link)
        return watch.outcome(stopped: stopped)
    }

    /// What a play on several ports together did: each device's outcome, and the skews of their
    /// onsets against the first device's.
    struct GroupOutcome {
        var outcomes: [Outcome]
        var skews: SkewSummary
    }

    /// One skew as the page gets it: device `device`'s onset of event `index` (pass `pass`)
    /// against the first device's, s of real time, with the half-width that holds the true skew.
    struct Skew: Equatable {
        var device: String
        var index: Int
        var pass: Int
        var skew: Double
        var bound: Double
        var onFrameGrid: Bool
    }

    /// Plays `pattern` on `devices` (two or more `--port`s; the virtual device cannot join: it
    /// runs in virtual time) on one host timeline, as `thrum play --port A --port B` does
    /// (``GroupPlayback``): each device's onsets handed over as they arrive, and each skew
    /// against the first device as soon as both devices reported the event.
    static func playTogether(
        _ devices: [StudioDevice], pattern: HapticPattern, rate: Double, loop: Bool, stop: () -> Bool,
        onset: (StudioDevice, Onset) -> Void, skew: (Skew) -> Void, link: (StudioDevice, String) -> Void,
        position: (StudioDevice, Double) -> Void
    ) throws -> GroupOutcome {
        let held = devices.compactMap(\.held)
        precondition(held.count == devices.count && devices.count >= 2, "a group play is on two or more ports")
        let engines = held.map(\.engine)
        let group = HapticEngineGroup(engines)
        // The engines stay the studio's after the play, each on its own again.
        defer { group.release() }
        try group.start()
        let playback = try GroupPlayback.begin(group, patterns: [pattern], rate: rate, loop: loop)
        let watches = devices.indices.map { k in
            PlayWatch(
                device: devices[k], engine: engines[k], target: held[k].connection.target, player: playback.players[k], pattern: pattern,
                rate: rate, loop: loop, start: playback.start)
        }
        defer { for w in watches { w.cancel() } }
        var sent: [String: Skew] = [:]
        var lastSkews = -1.0
        // New skews (or changed ones) since the last look; at most every 100 ms while playing.
        func skews(force: Bool) {
            let now = group.currentTime
            guard force || now - lastSkews >= 0.1 else { return }
            lastSkews = now
            for s in playback.skews() {
                let value = Skew(
                    device: devices[s.device].id, index: s.patternIndex, pass: s.pass, skew: s.skew, bound: s.bound,
                    onFrameGrid: s.measuredOnFrameGrid)
                let key = "\(s.device):\(s.patternIndex):\(s.pass)"
                if sent[key] != value {
                    sent[key] = value
                    skew(value)
                }
            }
        }
        var stopped = false
        let timeout = loop ? Double.infinity : watches[0].playLength + 5
        playback.run(timeout: timeout) {
            if stop() {
                stopped = true
                return false
            }
            for w in watches { w.look(onset: { onset(w.device, $0) }, link: { link(w.device, $0) }, position: { position(w.device, $0) }) }
            skews(force: false)
            return true
        }
        if stopped { playback.stopNow() }
        for w in watches { w.finish(onset: { onset(w.device, $0) }, link: { link(w.device, $0) }) }
        skews(force: true)
        if let error = engines.compactMap(\.lastError).first { throw CommandFailure(message: (error as? HapticError)?.message ?? "\(error)") }
        return GroupOutcome(outcomes: watches.map { $0.outcome(stopped: stopped) }, skews: SkewSummary(playback.skews()))
    }

    /// How often the play's position goes to the page (s of engine time).
    static let positionPeriod = 0.05

    /// Round trip, clock drift and bound, queue, retransmissions and faults, one line (from the
    /// engine's public ``LinkHealth``).
    fileprivate func linkLine(_ engine: HapticEngine) -> String {
        let health = engine.linkHealth
        let rtt = Double(health.roundTrip.nanoseconds) / 1e6
        let variation = Double(health.roundTripVariation.nanoseconds) / 1e6
        return String(
            format: "%@ · round trip %.2f ms ±%.2f · drift %+.1f ppm · clock ± %.0f µs · clock samples %d · queue %@ · retransmissions %d · faults %d",
            name, rtt, variation, health.driftPPM, Double(health.clockBound.nanoseconds) / 1e3, health.clockSamples,
            health.queueDepth.map { "\($0)" } ?? "–", health.statistics.retransmissions, health.faults.count)
    }
}

/// One device's part of a play, watched from the play's thread: the onsets the engine hands over
/// (each turned to pattern time, with the virtual device's true onset), where the play is, and the
/// link's figures now and then; the counts the play's end reports.
private final class PlayWatch {
    let device: StudioDevice
    private let engine: HapticEngine
    private let target: PlaybackTarget
    private let rate: Double
    private let loop: Bool
    private let start: Double
    private let pass: Double
    private let drive: Double
    private let haptic: Int
    // The engine hands each report over as it arrives (on the run thread, inside `engine.run`,
    // within the device's lock): kept here and passed on from the play's thread.
    private let arrived: ArrivedOnsets
    private let subscription: OnsetSubscription
    private var reported = 0
    private var onTime = 0
    private var passes = 1
    private var lastLink = -1.0
    private var lastPosition = -1.0

    init(
        device: StudioDevice, engine: HapticEngine, target: PlaybackTarget, player: any HapticPatternPlayer, pattern: HapticPattern,
        rate: Double, loop: Bool, start: Double
    ) {
        self.device = device
        self.engine = engine
        self.target = target
        self.rate = rate
        self.loop = loop
        self.start = start
        (pass, drive) = engine.passTiming(of: pattern, rate: rate)
        haptic = pattern.events.filter(\.type.isHaptic).count
        let arrived = ArrivedOnsets(playerID: player.playerID)
        self.arrived = arrived
        subscription = engine.observeOnsets { arrived.take($0) }
    }

    /// How long one unlooped play lasts on the engine's clock (s): its pass or its drive.
    var playLength: Double { max(pass, drive) }
    /// Whether every haptic event of a pass reported its onset.
    var allReported: Bool { reported >= haptic }

    func cancel() { subscription.cancel() }

    /// Hands over the onsets that arrived and, when due, the play's position and a link line.
    func look(onset: (StudioDevice.Onset) -> Void, link: (String) -> Void, position: (Double) -> Void) {
        deliver(onset)
        let now = engine.currentTime
        if now - lastPosition >= StudioDevice.positionPeriod {
            lastPosition = now
            // Where the play is in the pattern by the engine's clock (the device's, as the
            // engine maps it): the page's playhead.
            let elapsed = max(0, now - start)
            position((pass > 0 && loop ? elapsed.truncatingRemainder(dividingBy: pass) : min(elapsed, playLength)) * rate)
        }
        if now - lastLink >= 0.25 {
            lastLink = now
            link(device.linkLine(engine))
        }
    }

    /// The last onsets and link line, after the play.
    func finish(onset: (StudioDevice.Onset) -> Void, link: (String) -> Void) {
        deliver(onset)
        link(device.linkLine(engine))
    }

    func outcome(stopped: Bool) -> StudioDevice.Outcome {
        StudioDevice.Outcome(hapticEvents: haptic * passes, passes: passes, reported: reported, onTime: onTime, stopped: stopped)
    }

    private func deliver(_ onset: (StudioDevice.Onset) -> Void) {
        // The engine tells each onset once as `.reported` (a repeat that changed it as `.revised`).
        for update in arrived.drain() {
            let record = update.record
            if update.kind == .reported {
                reported += 1
                passes = max(passes, record.pass + 1)
                if record.status == .onTime { onTime += 1 }
            }
            // A later pass's times, back on the first pass's timeline.
            let origin = start + Double(record.pass) * pass
            var truth: Double?
            if case .simulated(let device, _) = target { truth = VirtualRig.trueOnset(of: record, on: device) }
            onset(
                StudioDevice.Onset(
                    index: record.patternIndex, pass: record.pass, requested: (record.requestedTime - origin) * rate,
                    onset: record.onsetTime.map { ($0 - origin) * rate }, bound: record.onsetBound.map { $0 * rate },
                    trueOnset: truth.map { ($0 - origin) * rate }, status: record.status.rawValue, suspect: record.boundSuspect))
        }
    }
}

/// The onset updates of one player, as the engine hands them over, until the play's thread takes them.
private final class ArrivedOnsets: @unchecked Sendable {
    private let playerID: Int
    private let lock = NSLock()
    private var updates: [OnsetUpdate] = []

    init(playerID: Int) { self.playerID = playerID }

    func take(_ update: OnsetUpdate) {
        guard update.playerID == playerID else { return }
        lock.withLock { updates.append(update) }
    }

    func drain() -> [OnsetUpdate] {
        lock.withLock {
            defer { updates.removeAll(keepingCapacity: true) }
            return updates
        }
    }
}
