import Foundation
import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

/// A Core-Haptics-shaped engine over one Thrum device (`CHHapticEngine` without the `CH`).
///
/// The engine streams: it keeps the drive of every active player rendered and sent a lead time
/// ahead of now, mixing players with the compiler's soft sum, so parameter changes reach the
/// actuator within one lead time, and stops go out at once on the any-lane (see `docs/engine.md`).
///
/// **Threading.** The engine is single-threaded and sans-IO like the rest of Thrum: time passes,
/// bytes move and callbacks (completion, stopped, reset, finished handlers) run only inside the
/// run-loop calls ``run(for:)``, ``run(until:)``, ``runUntilPlayersFinished(timeout:)`` and
/// ``pump()``, on the caller's thread. In virtual time those calls are what moves time; in real
/// time they block on the transport until the next thing is due. Drive it from one thread.
public final class HapticEngine {
    /// Why the engine stopped by itself (`CHHapticEngine.StoppedReason`, Apple's raw values where
    /// they exist).
    public enum StoppedReason: Int, Sendable, CustomStringConvertible {
        /// Apple's: the audio session was interrupted. Not raised by Thrum (no audio path yet);
        /// kept so that code switching over Apple's cases compiles.
        case audioSessionInterrupt = 1
        /// Apple's: the application was suspended. Not raised: a host process has no such state.
        case applicationSuspended = 2
        /// Auto-shutdown: idle for ``Configuration/autoShutdownTimeout`` with ``isAutoShutdownEnabled``.
        case idleTimeout = 3
        /// A ``notifyWhenPlayersFinished(finishedHandler:)`` handler returned `.stopEngine`.
        case notifyWhenPlayersFinished = 4
        /// The engine was deallocated while running.
        case engineDestroyed = 5
        /// The device went away: the transport failed or the link gave up (Apple's
        /// `gameControllerDisconnect`, the closest case: the hardware owning the engine left).
        case deviceDisconnected = 6
        /// Unrecoverable: the device reported a fault that stops playback.
        case systemError = -1

        /// Apple's spelling of ``notifyWhenPlayersFinished``.
        public static let notifyWhenFinished = StoppedReason.notifyWhenPlayersFinished
        /// Apple's spelling of ``deviceDisconnected``.
        public static let gameControllerDisconnect = StoppedReason.deviceDisconnected

        public var description: String {
            switch self {
            case .audioSessionInterrupt: return "audioSessionInterrupt"
            case .applicationSuspended: return "applicationSuspended"
            case .idleTimeout: return "idleTimeout"
            case .notifyWhenPlayersFinished: return "notifyWhenPlayersFinished"
            case .engineDestroyed: return "engineDestroyed"
            case .deviceDisconnected: return "deviceDisconnected"
            case .systemError: return "systemError"
            }
        }
    }

    /// What to do once every player finished (`CHHapticEngine.FinishedAction`).
    public enum FinishedAction: Int, Sendable {
        case stopEngine = 1
        case leaveEngineRunning = 2
    }

    /// Tunables.
    public struct Configuration: Sendable {
        /// How far ahead of now the drive is rendered and sent; nil (default) uses the session's
        /// lead time (`DeviceSession.Configuration.leadTime`, where link-aware adaptation lives).
        public var leadTime: HostDuration?
        /// How much drive is rendered per step.
        public var chunk: HostDuration = .milliseconds(10)
        /// How far ahead of now drive is kept queued on the device, at least: a host that stalls
        /// (a busy machine, a paused debugger, a garbage-collecting neighbour) for less than this
        /// loses nothing. Changes (parameters, starts, stops at a time, seeks) still take effect one
        /// change lead after the call: the engine replaces queued drive from that instant with a
        /// CUT instead of waiting for the queue to run out. Costs device queue slots, not latency.
        public var queueAhead: HostDuration = .milliseconds(200)
        /// After an immediate STOP, how far ahead the other players' drive resumes (at least two
        /// smoothed round trips).
        public var restartMargin: HostDuration = .milliseconds(8)
        /// Idle time after which an auto-shutdown engine stops (``StoppedReason/idleTimeout``).
        public var autoShutdownTimeout: HostDuration = .seconds(120)
        /// How long ``HapticEngine/prepare()`` keeps the device ready when nothing plays: the idle
        /// timeout sent with WAKE, after which the device puts the driver in standby by itself.
        /// One second, as the Core Haptics guides describe the prepared state lasting unless used.
        public var preparedTimeout: HostDuration = .seconds(1)
        /// How far ahead of the call a prepared start (GO) puts its first segment: one USB
        /// full-speed frame (the GO leaves with the next start of frame) plus a margin for the
        /// clock model's error and the device's handling. A GO that arrives late still plays,
        /// trimmed; the engine then widens this lead by itself (see `docs/engine.md`).
        public var preparedStartLead: HostDuration = .microseconds(1_250)
        /// On a link whose host frames reach the device on a 1 ms frame grid (USB full speed, the
        /// link's outbound delay floor configured), a prepared start is put this long after the
        /// frame the GO will travel in, instead of ``preparedStartLead`` after the call: device
        /// handling, the clock model's error and the packet's place in the frame.
        public var framedStartMargin: HostDuration = .microseconds(200)
        /// Extra lead for a start whose driver lapsed into standby: WAKE goes in the GO's frame,
        /// and the driver can drive 500 µs after leaving standby.
        public var standbyExitLead: HostDuration = .microseconds(600)
        /// Run the driver's auto-calibration (CALIBRATE, a 250–450 ms buzz) in the first
        /// ``HapticEngine/prepare()`` of a connection when the device has reported no calibration
        /// since it connected.
        public var calibrateOnPrepare = true
        /// Run the driver's auto-calibration in ``HapticEngine/start()`` when the device has reported
        /// no calibration this connection. The DRV2605L's calibration is volatile and, uncalibrated,
        /// its closed loop targets the reset back-EMF scale (far below a typical LRA's), so the loop
        /// alternates overdrive and braking instead of holding the amplitude. A failed calibration
        /// is kept in ``HapticEngine/calibrationResult`` and playback goes on with the driver's
        /// default words, as the chip itself does.
        public var calibrateOnStart = true
        /// A device clock reading this far from the fitted clock means the device rebooted.
        public var rebootClockJump: HostDuration = .milliseconds(200)
        /// Compiler options (mixing rule, felt-onset compensation…).
        public var compileOptions = CompileOptions()
        public init() {}
    }

    /// The device session the engine plays on.
    public let session: DeviceSession
    /// The actuator the patterns are compiled for.
    public let profile: ActuatorProfile
    /// The tunables.
    public let configuration: Configuration

    /// Called when the engine stops by itself (not after ``stop(completionHandler:)``).
    public var stoppedHandler: ((StoppedReason) -> Void)?
    /// Called after the device rebooted and the engine reconnected. Players made before are
    /// invalid (−4812); make new ones. Patterns and engine properties survive.
    public var resetHandler: (() -> Void)?
    /// Stop after ``Configuration/autoShutdownTimeout`` idle; restart automatically on the next start.
    public var isAutoShutdownEnabled = false
    /// Silences every player (their timelines keep running). Takes effect within one lead time.
    public var isMutedForHaptics = false
    /// Silences the audio of every player (their timelines keep running).
    public var isMutedForAudio = false
    /// Apple's default, false. True: audio events are not played (takes effect at once).
    public var playsHapticsOnly = false
    /// Apple's default, false. True: haptic events of players made from now on are left out.
    public var playsAudioOnly = false
    /// The audio path (sound device) audio events play on; nil: audio events are listed, not
    /// played. See `HapticEngine+Audio.swift` and `docs/audio.md`.
    public var audio: EngineAudio?
    /// Audio resources registered with ``registerAudioResource(_:options:)``.
    public let audioResources = AudioResourceRegistry()

    /// Whether the engine is started.
    public private(set) var isRunning = false
    /// Whether the device is ready for a low-latency start (see ``prepare()``).
    public internal(set) var isPrepared = false
    /// What the device supports, once connected.
    public internal(set) var capabilities: DeviceCapabilities?
    /// The last auto-calibration result this connection (after CONFIGURE_DRIVER changed the
    /// calibration inputs, after ``calibrate()``, or after ``prepare()`` calibrated), nil before any.
    public var calibrationResult: CalibrationReport? { session.calibrationResult }
    /// The driver's power state as the device last reported it (nil: awake since reset, no report).
    public var powerState: StateReport.State? { session.powerState }
    /// Every onset scheduled so far and what the device reported, in the order they were scheduled.
    public var onsets: [OnsetRecord] { markOrder.compactMap { marks[$0] } }
    /// Drive segments sent since the engine was made (re-renders after a STOP included).
    public internal(set) var segmentsSent = 0
    /// CUTs sent (queued drive replaced from an instant on, for a change).
    public internal(set) var cutsSent = 0
    /// The error that stopped the engine, if any.
    public private(set) var lastError: Error?

    // Streaming state (engine µs = host µs).
    /// Players with a timeline to render (playing, or playing until a pending stop/pause).
    var players: [StreamingPatternPlayer] = []
    /// Paused players, so that stopping the engine ends them too.
    var pausedPlayers: [StreamingPatternPlayer] = []
    var emittedUntil: Int64 = 0
    var lastSentEnd: Int64 = 0
    var lastLevel: UInt8 = 0
    var lastDeviceStart: DeviceTime?
    var generation = 0
    private var nextPlayerID = 1
    var nextMarkID: UInt32 = 1
    var markIDs: [MarkKey: UInt32] = [:]
    var marks: [UInt32: OnsetRecord] = [:]
    var markOrder: [UInt32] = []
    private var finishedHandlers: [(Error?) -> FinishedAction] = []
    var idleSince: Int64 = 0
    var preparedUntil: Int64 = 0
    private var lastClockSample: ClockSample?
    /// Programs preloaded on the device, by slot.
    var preloads: [UInt8: Preload] = [:]
    var preloadUse = 0
    /// The GO last sent, until its ACK or FAULT 8 settles it.
    var pendingGo: PendingGo?
    /// Learnt extra lead for prepared starts (GOs that arrived late widen it).
    var preparedLeadExtra: Int64 = 0
    /// Onset ids of ROM effects (their latency is learnt apart).
    var romMarks: Set<UInt32> = []
    /// Onset ids of events started by GO.
    var goMarks: Set<UInt32> = []
    var goStarts = 0
    /// The transport or link failed; the run loop returns early instead of spinning.
    private var linkDead = false
    private let mixer: DriveMixer

    struct MarkKey: Hashable {
        var player: Int
        var run: Int
        var event: UInt32
    }

    /// Creates an engine over a device session (opened or not; ``start()`` connects it).
    public init(session: DeviceSession, profile: ActuatorProfile = .default, configuration: Configuration = Configuration()) {
        self.session = session
        self.profile = profile
        self.configuration = configuration
        mixer = DriveMixer(options: configuration.compileOptions)
    }

    deinit {
        if isRunning {
            session.link.sendImmediately(.stop)
            stoppedHandler?(.engineDestroyed)
        }
    }

    // MARK: Time

    /// The engine clock (s): the host clock the session's pump reads. Every `atTime:` refers to it.
    public var currentTime: Double { Double(nowMicros) / 1e6 }

    var nowMicros: Int64 { session.pump.clock.now().nanoseconds / 1_000 }
    var leadMicros: Int64 { leadTime.nanoseconds / 1_000 }

    /// How far ahead of now the drive is rendered and sent. Parameter changes take effect within
    /// this time (plus one render chunk); an immediate start is felt this long after the call.
    public var leadTime: HostDuration {
        if let fixed = configuration.leadTime { return fixed }
        // The session's lead adapts to the link's round trip; streaming also needs room for a
        // render chunk and the restart margin on top of it.
        return max(session.currentLeadTime, configuration.chunk * 2 + configuration.restartMargin)
    }
    /// A chunk that would end this close before an onset ends at the onset instead, µs.
    static let markGuard: Int64 = 200

    /// How far ahead drive is rendered and queued: the lead, or ``Configuration/queueAhead``.
    var horizonMicros: Int64 { max(leadMicros, configuration.queueAhead.nanoseconds / 1_000) }
    /// The earliest a change sent now (a CUT and new drive, on the sequenced lane) can take
    /// effect: the fixed part of what host → device frames recently took at most
    /// (``ThrumLink/ClockModel/outboundDelayBound(quantile:last:excludingOwnBytes:)``, the return
    /// leg does not matter) with a quarter more, plus what the host itself puts in front of the
    /// change on a serial line (the bytes still draining, ``ThrumLink/LinkSession/transmitBacklog``,
    /// and a whole frame's serialisation at the learnt byte time), plus 2 ms for the frame being
    /// handled; the session's round-trip lead until the model has samples.
    var changeLeadMicros: Int64 {
        let link = session.link
        guard let outbound = link.clock.outboundDelayBound(excludingOwnBytes: true) else {
            return session.currentLeadTime.nanoseconds / 1_000
        }
        let fixed = outbound.nanoseconds / 1_000
        let ownFrame = link.clock.byteTimeMicros * Double(ProtocolConstants.maxFrame)
        let serial = link.transmitBacklog.nanoseconds / 1_000 + Int64(ownFrame.rounded(.up))
        return min(session.currentLeadTime.nanoseconds / 1_000, fixed + fixed / 4 + serial + 2_000)
    }
    /// The restart margin, at least two smoothed round trips (so re-sent drive arrives in time).
    var marginMicros: Int64 {
        max(configuration.restartMargin.nanoseconds, 2 * session.link.statistics.smoothedRoundTrip.nanoseconds) / 1_000
    }

    /// Engine µs for an `atTime:` argument (immediate → now).
    func micros(_ time: Double) throws -> Int64 {
        guard time.isFinite, time >= 0 else { throw HapticError(.invalidTime, "invalid time \(time)") }
        return time == HapticTimeImmediate ? nowMicros : Int64((time * 1e6).rounded())
    }

    // MARK: Lifecycle

    /// Starts the engine: connects to the device if needed (identify), configures the driver for
    /// the profile and converges the clock. Blocks (pumping) until done.
    /// - Throws: ``HapticError`` `engineStartTimeout` (−4808) when the device does not answer,
    ///   `serverInitFailed` (−4810) for other link failures.
    public func start() throws {
        if isRunning { return }
        do {
            if session.identity == nil || !isConnected {
                try session.open()
                session.configureDriver(DriverRegisters.derive(from: profile))
                preloads.removeAll()
            }
            // A changed rated voltage or overdrive clamp makes the device calibrate: wait for it.
            if session.isCalibrating || session.link.pendingCount > 0 { try session.waitForDriverReady() }
            try session.synchronizeClock()
            if configuration.calibrateOnStart, session.calibrationResult == nil, let identity = session.identity,
                DeviceCapabilities(identity: identity, program: session.programCapabilities).calibration
            {
                do {
                    try session.calibrate()
                } catch .calibrationFailed {
                    // Kept in calibrationResult; the driver plays on its default calibration words.
                }
            }
        } catch {
            let code: HapticErrorCode
            switch error {
            case .deviceDidNotAnswer, .clockDidNotConverge, .calibrationTimedOut: code = .engineStartTimeout
            default: code = .serverInitFailed
            }
            throw HapticError(code, error.description)
        }
        capabilities = session.identity.map { DeviceCapabilities(identity: $0, program: session.programCapabilities) }
        session.deviceEventHandler = { [weak self] event in self?.handle(event) }
        isRunning = true
        linkDead = false
        lastError = nil
        idleSince = nowMicros
        emittedUntil = nowMicros
        lastSentEnd = nowMicros
        lastClockSample = session.link.clock.samples.last
    }

    /// Starts the engine and reports the result to `completionHandler` (called before returning).
    public func start(completionHandler: ((Error?) -> Void)?) {
        do {
            try start()
            completionHandler?(nil)
        } catch {
            completionHandler?(error)
        }
    }

    /// Stops the engine: every player stops (their completion handlers run), the device goes
    /// silent at once. The stopped handler is not called. `completionHandler` runs before returning.
    public func stop(completionHandler: ((Error?) -> Void)? = nil) {
        guard isRunning else {
            completionHandler?(nil)
            return
        }
        halt(error: nil)
        try? session.runOnce(until: session.pump.clock.now() + .milliseconds(1))
        completionHandler?(nil)
    }

    var isConnected: Bool {
        if case .connected = session.link.state { return true }
        return false
    }

    /// Stops everything on the device and finishes every player.
    private func halt(error: Error?) {
        session.link.discardQueuedSegments()
        if isConnected { session.link.sendImmediately(.stop) }
        isRunning = false
        isPrepared = false
        let stopping = players + pausedPlayers
        players.removeAll()
        pausedPlayers.removeAll()
        for p in stopping { p.finish(error: error) }
        lastDeviceStart = nil
        timeline = DeviceTimeline()
        lastLevel = 0
        fireFinishedHandlersIfIdle()
    }

    /// Stops by itself for `reason`, then tells the stopped handler.
    func stopBySelf(_ reason: StoppedReason, error: Error?) {
        guard isRunning else { return }
        lastError = error
        halt(error: error)
        stoppedHandler?(reason)
    }

    // MARK: Players

    /// Makes a player for `pattern`.
    /// - Throws: `invalidPatternData` (−4813) for a pattern with a non-finite time;
    ///   `invalidEventTime` (−4822) for an event with a negative `relativeTime`.
    public func makePlayer(with pattern: HapticPattern) throws -> any HapticPatternPlayer {
        try makeStreamingPlayer(pattern)
    }

    /// Makes an advanced player (pause, resume, seek, loop, rate, completion) for `pattern`.
    public func makeAdvancedPlayer(with pattern: HapticPattern) throws -> any HapticAdvancedPatternPlayer {
        try makeStreamingPlayer(pattern)
    }

    /// Makes a player for a drive program compiled beforehand (for this engine's profile), played
    /// exactly as compiled when it plays alone: the benchmarks, the render preview and the
    /// virtual rig play programs through the same streaming path as patterns. Its events are the
    /// program's; `playbackRate` and run-time shape controls do not recompile it.
    public func makePlayer(program: DriveProgram) -> any HapticAdvancedPatternPlayer {
        defer { nextPlayerID += 1 }
        return StreamingPatternPlayer(engine: self, id: nextPlayerID, pattern: HapticPattern(events: [], parameters: [], parameterCurves: []), program: program)
    }

    private func makeStreamingPlayer(_ pattern: HapticPattern) throws -> StreamingPatternPlayer {
        for e in pattern.events where !(e.relativeTime.isFinite && e.duration.isFinite) {
            throw HapticError(.invalidPatternData, "the pattern has an event with a non-finite time or duration")
        }
        // Core Haptics refuses an event before the pattern's start (as the AHAP reader does).
        if let k = pattern.events.firstIndex(where: { $0.relativeTime < 0 }) {
            throw HapticError(
                .invalidEventTime, "event \(k) has relativeTime \(pattern.events[k].relativeTime) s; events start at 0 or later")
        }
        defer { nextPlayerID += 1 }
        return try makeAudioAwarePlayer(pattern, id: nextPlayerID)
    }

    /// Plays `pattern` once, now; starts the engine first if needed (which adds its start-up time).
    public func playPattern(from pattern: HapticPattern) throws {
        if !isRunning { try start() }
        try makePlayer(with: pattern).start(atTime: HapticTimeImmediate)
    }

    /// Reads an AHAP file and plays it once.
    public func playPattern(contentsOf path: String) throws {
        try playPattern(from: try AHAPReader().read(contentsOf: path).pattern)
    }

    /// Reads the AHAP file at a file URL and plays it once, as `CHHapticEngine.playPattern(from: URL)`.
    /// - Throws: `fileNotFound` (−4851) for a URL that is not a file's; the reader's errors.
    public func playPattern(from url: URL) throws {
        guard url.isFileURL else { throw HapticError(.fileNotFound, "\(url) is not a file URL") }
        try playPattern(contentsOf: url.path)
    }

    /// Reads AHAP data and plays it once, as `CHHapticEngine.playPattern(from: Data)`.
    public func playPattern(from data: Data) throws {
        try playPattern(from: [UInt8](data))
    }

    /// Reads AHAP data and plays it once (`playPattern(from: Data)`).
    public func playPattern(from data: [UInt8]) throws {
        try playPattern(from: try AHAPReader().read(data: data).pattern)
    }

    /// Calls `finishedHandler` once every player has finished (at the next run-loop call if none
    /// plays now). Returning `.stopEngine` stops the engine with reason `.notifyWhenPlayersFinished`.
    public func notifyWhenPlayersFinished(finishedHandler: @escaping (Error?) -> FinishedAction) {
        finishedHandlers.append(finishedHandler)
    }

    private func fireFinishedHandlersIfIdle() {
        guard players.isEmpty, pausedPlayers.isEmpty, !finishedHandlers.isEmpty else { return }
        let handlers = finishedHandlers
        finishedHandlers.removeAll()
        var stopEngine = false
        for h in handlers where h(lastError) == .stopEngine { stopEngine = true }
        if stopEngine { stopBySelf(.notifyWhenPlayersFinished, error: nil) }
    }

    /// Engine-side check made by every player command.
    func requireRunning(_ player: StreamingPatternPlayer) throws {
        guard player.generation == generation else {
            throw HapticError(.invalidPatternPlayer, "the player belongs to an engine that was reset; make a new one")
        }
        if !isRunning {
            guard isAutoShutdownEnabled else { throw HapticError(.engineNotRunning, "the engine is not running") }
            try start()
        }
    }

    func activate(_ player: StreamingPatternPlayer) {
        pausedPlayers.removeAll { $0 === player }
        if !players.contains(where: { $0 === player }) { players.append(player) }
    }

    /// `paused`: keep it to end it when the engine stops.
    func deactivate(_ player: StreamingPatternPlayer, paused: Bool = false) {
        players.removeAll { $0 === player }
        pausedPlayers.removeAll { $0 === player }
        if paused { pausedPlayers.append(player) }
        if players.isEmpty { idleSince = nowMicros }
    }

    // MARK: Run loop

    /// Runs the engine (moving bytes, rendering drive, calling handlers) for `seconds`.
    public func run(for seconds: Double) {
        run(until: currentTime + seconds)
    }

    /// Runs the engine until engine time `time` (s).
    public func run(until time: Double) {
        let deadline = Int64((time * 1e6).rounded())
        service()
        while nowMicros < deadline && !linkDead {
            pump(until: min(deadline, nextWake()))
        }
    }

    /// Runs until every player has finished (and the actuator's ring-down passed), or `timeout` s.
    /// Returns whether all finished.
    @discardableResult
    public func runUntilPlayersFinished(timeout: Double, ringDown: Double = 0.04) -> Bool {
        let deadline = nowMicros + Int64(timeout * 1e6)
        service()
        while !players.isEmpty && nowMicros < deadline && !linkDead {
            pump(until: min(deadline, nextWake()))
        }
        if players.isEmpty { run(for: ringDown) }
        return players.isEmpty
    }

    /// One step of the run loop: exchange bytes until the next thing is due (or bytes arrive), then
    /// render, send and call handlers. For callers that drive their own loop.
    public func pump() {
        pump(until: nextWake())
    }

    private func pump(until deadline: Int64) {
        let target = HostTime(nanoseconds: max(deadline, nowMicros + 1) * 1_000)
        do {
            try session.runOnce(until: target)
        } catch {
            linkDead = true
            if isRunning {
                stopBySelf(.deviceDisconnected, error: HapticError(.serverInterrupted, error.description))
            }
        }
        service()
    }

    /// When the run loop must next wake up (engine µs).
    func nextWake() -> Int64 {
        let now = nowMicros
        var wake = now + 250_000
        if isRunning && !players.isEmpty {
            // Top the queue up every chunk so it always holds about `horizonMicros` of drive.
            let chunk = max(1_000, configuration.chunk.nanoseconds / 1_000)
            wake = min(wake, max(now + 1, emittedUntil - horizonMicros + chunk))
            for p in players { if let end = p.endTime { wake = min(wake, max(now + 1, end)) } }
        }
        if isPrepared { wake = min(wake, max(now + 1, prepareLapseTime)) }
        if isRunning, let audio { wake = min(wake, max(now + 1, audio.nextWake(now: now))) }
        if isRunning && isAutoShutdownEnabled && players.isEmpty {
            wake = min(wake, max(now + 1, idleSince + configuration.autoShutdownTimeout.nanoseconds / 1_000))
        }
        return wake
    }

    /// Renders and sends what is due, finishes players whose time is over, runs timeouts.
    func service() {
        guard isRunning else {
            fireFinishedHandlersIfIdle()
            return
        }
        checkForReboot()
        guard isRunning else { return }
        let now = nowMicros
        emit(now: now)
        audio?.service(self)
        for p in players where p.endTime.map({ now >= $0 }) ?? false {
            p.timeReached()
        }
        if !players.isEmpty { preparedUntil = max(preparedUntil, now + configuration.preparedTimeout.nanoseconds / 1_000) }
        if isPrepared && now >= prepareLapseTime { lapsePreparation() }
        fireFinishedHandlersIfIdle()
        if isRunning && isAutoShutdownEnabled && players.isEmpty
            && now - idleSince >= configuration.autoShutdownTimeout.nanoseconds / 1_000
        {
            stopBySelf(.idleTimeout, error: nil)
        }
    }

    // MARK: Streaming

    /// Keeps the drive rendered and sent up to now + lead time.
    func emit(now: Int64) {
        // Drive sent now reaches the device one change lead from now at the earliest (two round
        // trips, the restart margin, overstate that where the return leg is the slow one: a
        // serial bridge's latency timer); a CUT placed exactly there is followed without a gap.
        let earliest = now + min(marginMicros, changeLeadMicros)
        if emittedUntil < earliest {
            // Fell behind (or idle): nothing can be placed before the device could get it.
            emittedUntil = earliest
            if lastLevel != 0, lastSentEnd > now { /* the queued ramp ends on its own */ }
            lastLevel = 0
        }
        let horizon = now + horizonMicros
        let chunk = max(1_000, configuration.chunk.nanoseconds / 1_000)
        while emittedUntil < horizon {
            let t0 = emittedUntil
            var t1 = t0 + chunk
            // One player and nothing to mix: its compiled segments go out as compiled (no
            // re-quantisation at chunk edges), and rendering continues from their end.
            if !isMutedForHaptics, players.count == 1, let verbatim = players[0].verbatimSegments(from: t0, to: t1, horizon: horizon) {
                let end = max(t1, verbatim.map(\.end).max() ?? t1)
                if lastLevel != 0 && (verbatim.first?.start ?? end) > t0 {
                    let gap = (verbatim.first?.start ?? end) - t0
                    send(DriveSegment(start: t0, duration: UInt32(min(gap, 1_000)), from: 0, to: 0))
                }
                for s in verbatim { send(s) }
                lastLevel = verbatim.last.map { $0.end >= end ? $0.to : 0 } ?? 0
                emittedUntil = end
                continue
            }
            var ramps: [EnvelopeRamp] = []
            var marksHere: [DriveMixer.Mark] = []
            if !isMutedForHaptics {
                // Look a little past the chunk's end: a mark just after it ends the chunk there
                // instead, so no sliver of a segment lies between the chunk edge and an onset
                // (the device needs one register write, ≈ 73 µs, per segment start).
                let reach = t1 + Self.markGuard
                for p in players { p.collect(from: t0, to: reach, ramps: &ramps, marks: &marksHere) }
                if let mark = marksHere.map(\.time).filter({ $0 > t1 && $0 < reach }).min() { t1 = mark }
            } else {
                for p in players { p.extendLoops(to: t1) }
            }
            if ramps.isEmpty && lastLevel == 0 {
                emittedUntil = t1
                continue
            }
            marksHere = leadingMarks(marksHere)
            var segments = mixer.segments(mixing: ramps, marks: marksHere, from: t0, to: t1)
            if lastLevel != 0 && (segments.first?.start ?? t1) > t0 {
                let gap = (segments.first?.start ?? t1) - t0
                segments.insert(DriveSegment(start: t0, duration: UInt32(min(gap, 1_000)), from: 0, to: 0), at: 0)
            }
            for s in segments { send(s) }
            if let last = segments.last, last.end >= t1 { lastLevel = last.to } else { lastLevel = 0 }
            emittedUntil = t1
        }
    }

    /// The device time each marked segment (or ROM effect) was sent to start at (after latency
    /// correction), until its onset report comes back.
    var intendedDeviceStart: [UInt32: DeviceTime] = [:]
    /// Keeps contiguous drive contiguous on the device clock.
    var timeline = DeviceTimeline()

    private func send(_ s: DriveSegment) {
        let link = session.link
        // Start early by the device's learnt fixed latency (the I²C write before the drive begins).
        let correction = session.latencyCorrection
        let mapped = timeline.map(
            hostStart: HostTime(nanoseconds: s.start * 1_000), duration: s.duration, clock: link.clock, shift: correction)
        // A marked ramp up from 0 first drives at its crossing (PROTOCOL.md §4.1): start it that
        // much earlier (keeping its end) so that its first drive lands on the intended instant.
        var duration = mapped.duration
        var lead: UInt32 = 0
        if s.eventID != 0 {
            lead = SegmentCommand.firstDriveOffset(duration: duration, from: s.from, to: s.to)
            duration += lead
        }
        var device = (mapped.start - .microseconds(Int64(lead))).clampedToOrigin
        if let last = lastDeviceStart, device < last { device = last }
        lastDeviceStart = device
        // The latency learnt is onset − the first drive as scheduled (the compensator's definition).
        if s.eventID != 0 {
            let first = SegmentCommand.firstDriveOffset(duration: duration, from: s.from, to: s.to)
            intendedDeviceStart[s.eventID] = device + .microseconds(Int64(first))
        }
        link.send(
            .segment(
                SegmentCommand(
                    start: device.wire.rawValue, duration: duration, from: s.from, to: s.to, event: s.eventID)))
        lastSentEnd = max(lastSentEnd, s.end)
        segmentsSent += 1
    }

    /// Throws away drive already sent from now on: any-lane STOP (the device empties its queue and
    /// goes silent at once), queued segments dropped; rendering restarts a restart margin ahead.
    func rewind() {
        session.link.discardQueuedSegments()
        session.link.sendImmediately(.stop)
        let now = nowMicros
        emittedUntil = now + marginMicros
        lastSentEnd = now
        lastLevel = 0
        lastDeviceStart = nil
        timeline.reset()
        // Drive a GO put on the device is gone too: it is rendered (streamed) from here on.
        for p in players { p.unpreload(from: emittedUntil) }
        pendingGo = nil
    }

    /// Makes engine time `t` (µs) renderable again: no-op when not yet rendered, a cheap rewind when
    /// only silence was sent since, a CUT at `t` when a change sent now reaches the device in time
    /// (``changeLeadMicros``), and an any-lane STOP otherwise.
    func invalidate(from t: Int64) {
        guard t < emittedUntil else { return }
        if lastSentEnd <= t {
            emittedUntil = max(t, lastSentEnd, nowMicros + marginMicros)
            lastLevel = 0
        } else if t >= nowMicros + changeLeadMicros {
            cut(at: t)
        } else {
            rewind()
        }
    }

    /// Replaces the drive queued from engine µs `t` on: a sequenced CUT at `t`'s device time (the
    /// device drops what starts from there and shortens what spans it), the host's not-yet-sent
    /// segments from there dropped, rendering resumed at `t`. No silent gap: the device plays the
    /// old drive up to `t` and the new from `t`.
    func cut(at t: Int64) {
        let link = session.link
        let host = HostTime(nanoseconds: t * 1_000)
        let device = (timeline.deviceTime(atHost: host, clock: link.clock) - session.latencyCorrection).clampedToOrigin
        link.discardQueuedSegments(startingAtOrAfter: device.wire.rawValue)
        link.send(.cut(at: device.wire.rawValue))
        cutsSent += 1
        timeline.restart(hostEnd: host, deviceEnd: device)
        lastDeviceStart = device
        emittedUntil = t
        lastSentEnd = t
        lastLevel = 0
        for p in players { p.unpreload(from: t) }
    }


    /// The device id for an event onset of a player's run (stable across re-renders).
    func markID(player: StreamingPatternPlayer, run: Int, event: UInt32, record: () -> OnsetRecord) -> UInt32 {
        let key = MarkKey(player: player.playerID, run: run, event: event)
        if let id = markIDs[key] { return id }
        let id = nextMarkID
        nextMarkID = nextMarkID == UInt32(Int32.max) ? 1 : nextMarkID + 1
        markIDs[key] = id
        marks[id] = record()
        markOrder.append(id)
        return id
    }

    /// Marks whose events begin together with another mark's (layered events): they take that
    /// mark's onset report. Never sent to the device.
    var followerMarks: [UInt32: Set<UInt32>] = [:]

    /// Records that mark `follower` begins together with mark `leader`.
    func follow(_ follower: UInt32, _ leader: UInt32) {
        followerMarks[leader, default: []].insert(follower)
    }

    /// Onsets of different players at the same instant start one drive (their ramps mix): the
    /// first mark there leads and carries the onset to the device, the others follow it and take
    /// its report, so no player's event is left without one.
    func leadingMarks(_ marks: [DriveMixer.Mark]) -> [DriveMixer.Mark] {
        guard marks.count > 1 else { return marks }
        var leaders: [Int64: UInt32] = [:]
        return marks.filter { m in
            if let leader = leaders[m.time] {
                if leader != m.id { follow(m.id, leader) }
                return false
            }
            leaders[m.time] = m.id
            return true
        }
    }

    /// The onsets of one player, in schedule order.
    public func onsets(for player: any HapticPatternPlayer) -> [OnsetRecord] {
        onsets.filter { $0.playerID == player.playerID }
    }

    // MARK: Device events

    private func handle(_ event: DeviceEvent) {
        switch event {
        case .onset(let report):
            guard var record = marks[report.event] else { return }
            let clock = session.link.clock
            let host = clock.hostTime(atDevice: clock.extend(DeviceTime32(rawValue: report.time)))
            if let intended = intendedDeviceStart.removeValue(forKey: report.event) {
                let onset = clock.extend(DeviceTime32(rawValue: report.time))
                if report.knownStatus == .onTime {
                    if romMarks.contains(report.event) {
                        session.observeROMLatency(onset: onset, intended: intended)
                    } else {
                        session.observeLatency(onset: onset, intended: intended)
                    }
                }
                if report.knownStatus == .lateTrimmed, goMarks.contains(report.event) {
                    // The GO reached the device after its start: give the next one more room.
                    preparedLeadExtra = min(preparedLeadExtra + 250, 5_000)
                }
            }
            switch report.knownStatus {
            case .onTime, .lateTrimmed:
                record.status = report.knownStatus == .onTime ? .onTime : .lateTrimmed
                let device = clock.extend(DeviceTime32(rawValue: report.time))
                record.deviceOnset = device
                // The reported onset is the middle of the guaranteed bracket, its "±" half the width.
                if let range = clock.hostTimeBounds(atDevice: device) {
                    record.driveOnsetRange = range.lowerBound.seconds...range.upperBound.seconds
                    record.driveOnsetTime = (range.lowerBound.seconds + range.upperBound.seconds) / 2
                } else {
                    record.driveOnsetTime = host.seconds
                }
            case .dropped, .none:
                record.status = .dropped
                record.driveOnsetTime = nil
                record.deviceOnset = nil
                record.driveOnsetRange = nil
            }
            marks[report.event] = record
            for follower in followerMarks[report.event] ?? [] {
                guard var other = marks[follower] else { continue }
                other.status = record.status
                other.driveOnsetTime = record.driveOnsetTime
                other.deviceOnset = record.deviceOnset
                other.driveOnsetRange = record.driveOnsetRange
                marks[follower] = other
            }
        case .fault(let fault):
            switch fault.knownCode {
            case .watchdogStop:
                // The host fell silent and the device emptied its queue: treat like a rewind.
                rewind()
            case .goRejected:
                goRefused(slot: UInt8(truncatingIfNeeded: fault.detail))
            case .noDriver, .overTemperature, .overCurrent:
                stopBySelf(.systemError, error: HapticError(.unknownError, "the device reported fault \(fault.code)"))
            default:
                break
            }
        case .powerState(let report):
            // The device put the driver in standby (idle timeout, or a host STANDBY): not prepared.
            if report.knownState == .standby { isPrepared = false }
        case .identified, .calibrated, .capabilities:
            break
        }
    }

    /// A device that rebooted restarts its clock: a new clock sample far from the fitted clock.
    private func checkForReboot() {
        guard let sample = session.link.clock.samples.last else { return }
        defer { lastClockSample = session.link.clock.samples.last }
        guard let previous = lastClockSample, sample != previous else { return }
        let expected = Double(previous.deviceReceive.microseconds) + (sample.hostSend - previous.hostSend).microseconds
        let jump = abs(Double(sample.deviceReceive.microseconds) - expected)
        if jump > configuration.rebootClockJump.microseconds + sample.roundTrip.microseconds {
            resetAfterReboot()
        }
    }

    private func resetAfterReboot() {
        let stopping = players + pausedPlayers
        players.removeAll()
        pausedPlayers.removeAll()
        generation += 1
        for p in stopping { p.finish(error: HapticError(.invalidPatternPlayer, "the device rebooted")) }
        do {
            try session.reconnect()
            session.configureDriver(DriverRegisters.derive(from: profile))
            try session.waitForDriverReady()
            try session.synchronizeClock()
        } catch {
            stopBySelf(.deviceDisconnected, error: HapticError(.serverInterrupted, error.description))
            return
        }
        session.deviceEventHandler = { [weak self] event in self?.handle(event) }
        preloads.removeAll()
        pendingGo = nil
        isPrepared = false
        lastDeviceStart = nil
        // A rebooted device has a new clock: nothing of the old mapping carries over.
        timeline = DeviceTimeline()
        lastLevel = 0
        emittedUntil = nowMicros
        lastSentEnd = nowMicros
        lastClockSample = session.link.clock.samples.last
        resetHandler?()
    }

    // MARK: Compiling

    /// How long one pass of `pattern` lasts on this engine at `rate` with `loopEnd` (0 = the
    /// pattern's end), in seconds: the loop period of an advanced player — `loopEnd`, else the
    /// pattern's duration as Core Haptics counts it (``ThrumCompiler/DriveProgram/loopDuration``).
    public func passDuration(of pattern: HapticPattern, rate: Double = 1, loopEnd: Double = 0) -> Double {
        loopEnd > 0 ? loopEnd / rate : passTiming(of: pattern, rate: rate).period
    }

    /// How long the drive of one pass of `pattern` lasts at `rate` (s): past ``passDuration(of:rate:loopEnd:)``
    /// by a transient's burst when one ends the pattern.
    public func driveDuration(of pattern: HapticPattern, rate: Double = 1) -> Double {
        compile(pattern, rate: rate).duration
    }

    /// Both from one compile: the loop period (``passDuration(of:rate:loopEnd:)``) and how long
    /// one pass's drive lasts (``driveDuration(of:rate:)``), in seconds.
    public func passTiming(of pattern: HapticPattern, rate: Double = 1, loopEnd: Double = 0) -> (period: Double, drive: Double) {
        let program = compile(pattern, rate: rate)
        if loopEnd > 0 { return (loopEnd / rate, program.duration) }
        if let length = program.loopDuration, length > 0 { return (length, program.duration) }
        return (program.duration, program.duration)
    }

    func compile(_ pattern: HapticPattern, rate: Double) -> DriveProgram {
        PatternCompiler(profile: profile, options: configuration.compileOptions).compile(pattern.scaled(byRate: rate))
    }
}

extension HapticPattern {
    /// The pattern with run-time shape controls folded into its haptic events' parameters
    /// (added, unclamped: the compiler clamps event value + pattern control + this, as Apple does).
    func adjusted(by key: StreamingPatternPlayer.CompileKey) -> HapticPattern {
        let deltas: [(HapticEvent.ParameterID, Double, Float)] = [
            (.hapticSharpness, key.sharpness, Float(HapticSemantics.defaultSharpness)), (.attackTime, key.attack, 0), (.decayTime, key.decay, 0),
            (.releaseTime, key.release, 0),
        ]
        guard deltas.contains(where: { $0.1 != 0 }) else { return self }
        var copy = self
        for i in copy.events.indices where copy.events[i].type.isHaptic {
            var params = copy.events[i].eventParameters
            for (id, delta, defaultValue) in deltas where delta != 0 {
                if let j = params.lastIndex(where: { $0.parameterID == id }) {
                    params[j].value += Float(delta)
                } else {
                    params.append(HapticEventParameter(parameterID: id, value: defaultValue + Float(delta)))
                }
            }
            copy.events[i].eventParameters = params
        }
        return copy
    }

    /// The pattern played at `rate`: event times, continuous durations, parameter times and curve
    /// times divided by it (transient bursts keep their length: they are resonance cycles).
    func scaled(byRate rate: Double) -> HapticPattern {
        guard rate != 1 else { return self }
        var copy = self
        for i in copy.events.indices {
            copy.events[i].relativeTime /= rate
            copy.events[i].duration /= rate
        }
        for i in copy.parameters.indices { copy.parameters[i].relativeTime /= rate }
        for i in copy.parameterCurves.indices {
            copy.parameterCurves[i].relativeTime /= rate
            for j in copy.parameterCurves[i].controlPoints.indices {
                copy.parameterCurves[i].controlPoints[j].relativeTime /= rate
            }
        }
        return copy
    }
}
