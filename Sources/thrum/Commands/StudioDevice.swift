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

    /// Plays `pattern` at `rate` until it has played out (and its onsets came back) or `stop()`
    /// says so; `onset` gets each report as it arrives, `link` a line of link figures now and then.
    /// The longest looped play on the virtual device (s): its trace grows while it plays.
    static let longestVirtualLoop = 600.0

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
        // The engine hands each report over as it arrives (on this thread, inside `engine.run`,
        // within the device's lock): kept here and passed on after `run` returns.
        let arrived = ArrivedOnsets(playerID: player.playerID)
        let subscription = engine.observeOnsets { arrived.take($0) }
        defer { subscription.cancel() }
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        let (pass, drive) = engine.passTiming(of: pattern, rate: rate)
        let end = loop ? start + (held == nil ? Self.longestVirtualLoop : .infinity) : start + max(pass, drive)
        let haptic = pattern.events.filter(\.type.isHaptic).count
        // The engine tells each onset once as `.reported` (a repeat that changed it as `.revised`).
        var reported = 0
        var onTime = 0
        var passes = 1
        let wallStart = Date()
        let engineStart = engine.currentTime
        var lastLink = -1.0
        var lastPosition = -1.0
        var stopped = false
        // A later pass's times, back on the first pass's timeline.
        func offset(_ record: OnsetRecord) -> Double { Double(record.pass) * pass }
        func deliver() {
            for update in arrived.drain() {
                let record = update.record
                if update.kind == .reported {
                    reported += 1
                    passes = max(passes, record.pass + 1)
                    if record.status == .onTime { onTime += 1 }
                }
                var truth: Double?
                if case .simulated(let device, _) = target { truth = VirtualRig.trueOnset(of: record, on: device) }
                onset(
                    Onset(
                        index: record.patternIndex, pass: record.pass, requested: (record.requestedTime - start - offset(record)) * rate,
                        onset: record.onsetTime.map { ($0 - start - offset(record)) * rate }, bound: record.onsetBound.map { $0 * rate },
                        trueOnset: truth.map { ($0 - start - offset(record)) * rate }, status: record.status.rawValue,
                        suspect: record.boundSuspect))
            }
        }
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
            deliver()
            let now = engine.currentTime
            if now - lastPosition >= Self.positionPeriod {
                lastPosition = now
                // Where the play is in the pattern by the engine's clock (the device's, as the
                // engine maps it): the page's playhead.
                let elapsed = max(0, now - start)
                position((pass > 0 && loop ? elapsed.truncatingRemainder(dividingBy: pass) : min(elapsed, max(pass, drive))) * rate)
            }
            if now - lastLink >= 0.25 {
                lastLink = now
                link(linkLine(engine))
            }
            if !loop && reported >= haptic && now > end { break }
        }
        deliver()
        link(linkLine(engine))
        return Outcome(hapticEvents: haptic * passes, passes: passes, reported: reported, onTime: onTime, stopped: stopped)
    }

    /// How often the play's position goes to the page (s of engine time).
    static let positionPeriod = 0.05

    /// Round trip, clock drift and bound, queue, retransmissions and faults, one line (from the
    /// engine's public ``LinkHealth``).
    private func linkLine(_ engine: HapticEngine) -> String {
        let health = engine.linkHealth
        let rtt = Double(health.roundTrip.nanoseconds) / 1e6
        let variation = Double(health.roundTripVariation.nanoseconds) / 1e6
        return String(
            format: "%@ · round trip %.2f ms ±%.2f · drift %+.1f ppm · clock ± %.0f µs · clock samples %d · queue %@ · retransmissions %d · faults %d",
            name, rtt, variation, health.driftPPM, Double(health.clockBound.nanoseconds) / 1e3, health.clockSamples,
            health.queueDepth.map { "\($0)" } ?? "–", health.statistics.retransmissions, health.faults.count)
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
