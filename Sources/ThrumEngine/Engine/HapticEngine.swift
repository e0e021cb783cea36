import Foundation
import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

/// A Core-Haptics-shaped engine over one Thrum device (`CHHapticEngine` without the `CH`).
///
/// An engine is one client of a ``SharedDevice``: engines made on the same device (the same
/// session, or `HapticEngine()` twice) share its connection; each has its own players, handlers
/// and onset reports, their drive is mixed, and stopping or destroying one ends only its own
/// players. The device streams: it keeps the drive of every active player rendered and sent ahead
/// of now, so parameter changes reach the actuator within one change lead, and immediate stops go
/// out at once on the any-lane (see `docs/engine.md`).
///
/// **Threading.** Every method and property is safe from any thread (the device's lock). After
/// ``start()`` the engine runs by itself: on real time a run thread (`thrum.device`) plays,
/// and the handlers (completion, stopped, reset, finished) are called on it, one at a time; they
/// may call the engine. On virtual time (a session whose pump reads a `ManualClock`: the virtual
/// rig in tests) time passes only when the test moves it — `VirtualRig.advance(by:)`, or this
/// engine's ``run(for:)``, ``run(until:)``, ``runUntilPlayersFinished(timeout:ringDown:)`` and
/// ``pump()`` — and the handlers are called on that thread. The run-loop calls work on real time
/// too (they block until then), for code that drives its own loop.
public final class HapticEngine: @unchecked Sendable {
    /// Why the engine stopped by itself (`CHHapticEngine.StoppedReason`, Apple's raw values where
    /// they exist).
    public enum StoppedReason: Int, Sendable, CustomStringConvertible {
        /// Apple's: the audio session was interrupted. Not raised by Thrum: a sound device that
        /// fails leaves the audio events on the null sink and the haptics playing (docs/audio.md);
        /// kept so that code switching over Apple's cases compiles.
        case audioSessionInterrupt = 1
        /// Apple's: the application was suspended. Not raised: a host process has no such state.
        case applicationSuspended = 2
        /// Auto-shutdown: idle for ``Configuration/autoShutdownTimeout`` with ``isAutoShutdownEnabled``.
        case idleTimeout = 3
        /// A ``HapticEngine/notifyWhenPlayersFinished(finishedHandler:)`` handler returned `.stopEngine`
        /// (Apple's spelling; ``notifyWhenPlayersFinished`` is the same value).
        case notifyWhenFinished = 4
        /// The engine was deallocated while running.
        case engineDestroyed = 5
        /// The device went away: the transport failed or the link gave up (Apple's case for "the
        /// hardware owning the engine went away"; ``deviceDisconnected`` is Thrum's name for it).
        case gameControllerDisconnect = 6
        /// Unrecoverable: the device reported a fault that stops playback.
        case systemError = -1

        /// Thrum's name for ``notifyWhenFinished``. Apple's cases are the enum's own, so a `switch`
        /// written for Core Haptics is exhaustive here too.
        public static let notifyWhenPlayersFinished = StoppedReason.notifyWhenFinished
        /// Thrum's name for ``gameControllerDisconnect``: the device went away.
        public static let deviceDisconnected = StoppedReason.gameControllerDisconnect

        public var description: String {
            switch self {
            case .audioSessionInterrupt: return "audioSessionInterrupt"
            case .applicationSuspended: return "applicationSuspended"
            case .idleTimeout: return "idleTimeout"
            case .notifyWhenFinished: return "notifyWhenPlayersFinished"
            case .engineDestroyed: return "engineDestroyed"
            case .gameControllerDisconnect: return "deviceDisconnected"
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
        public var chunk: HostDuration = LeadTimePolicy.defaultChunk
        /// How far ahead of now drive is kept queued on the device, at least: a host that stalls
        /// (a busy machine, a paused debugger, a garbage-collecting neighbour) for less than this
        /// loses nothing. Changes (parameters, starts, stops at a time, seeks) still take effect one
        /// change lead after the call: the engine replaces queued drive from that instant with a
        /// CUT instead of waiting for the queue to run out. Costs device queue slots, not latency.
        public var queueAhead: HostDuration = .milliseconds(200)
        /// After an immediate STOP, how far ahead the other players' drive resumes (at least two
        /// smoothed round trips).
        public var restartMargin: HostDuration = LeadTimePolicy.defaultRestartMargin
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
        /// A device clock reading this far beyond what the clock samples' round trips allow means
        /// the device rebooted (a link that stalled moves a reading only within them).
        public var rebootClockJump: HostDuration = .milliseconds(200)
        /// A started engine whose link was not run for longer than this (a manual run loop left
        /// idle) catches up before it next places drive: what the device sent meanwhile is read
        /// (and an ACK that waited is no round trip), and the clock is synchronized afresh
        /// (``HapticEngine/makePlayer(with:)``, a player's start).
        public var idleResynchronization: HostDuration = .milliseconds(500)
        /// Compiler options (mixing rule, felt-onset compensation…).
        public var compileOptions = CompileOptions()
        public init() {}
    }

    /// The device this engine plays on, shared with the other engines on it.
    public let device: SharedDevice
    /// The device session the engine plays on (internal: tools read ``linkHealth``,
    /// ``deviceStatus`` and ``observeOnsets(_:)`` instead).
    var session: DeviceSession { device.session }
    /// The actuator the patterns are compiled for (the device's: the first engine's choice).
    public var profile: ActuatorProfile { device.profile }
    /// The tunables (the device's: the first engine's choice).
    public var configuration: Configuration { device.configuration }

    private var stopped: ((StoppedReason) -> Void)?
    private var reset: (() -> Void)?
    private var autoShutdown = false
    private var mutedForHaptics = false
    private var mutedForAudio = false
    private var hapticsOnly = false
    private var running = false
    private var error: Error?
    private var finishedHandlers: [(Error?) -> FinishedAction] = []
    /// Since when none of this engine's players plays (auto-shutdown).
    var idleSince = EngineTime.zero

    /// Called when the engine stops by itself (not after ``stop(completionHandler:)``), on the run thread.
    public var stoppedHandler: ((StoppedReason) -> Void)? {
        get { device.locked { stopped } }
        set { device.locked { stopped = newValue } }
    }
    /// Called after the device rebooted and the engine reconnected, on the run thread. Players
    /// made before are invalid (−4812); make new ones. Patterns and engine properties survive.
    public var resetHandler: (() -> Void)? {
        get { device.locked { reset } }
        set { device.locked { reset = newValue } }
    }
    /// Stop after ``Configuration/autoShutdownTimeout`` idle; restart automatically on the next start.
    public var isAutoShutdownEnabled: Bool {
        get { device.locked { autoShutdown } }
        set { device.locked { autoShutdown = newValue } }
    }
    /// Silences every player of this engine (their timelines keep running; other engines on the
    /// device are not affected). Takes effect within one lead time.
    public var isMutedForHaptics: Bool {
        get { device.locked { mutedForHaptics } }
        set {
            device.locked {
                guard mutedForHaptics != newValue else { return }
                mutedForHaptics = newValue
                if device.players.contains(where: { $0.host === self }) {
                    device.invalidate(from: device.timeNow + device.changeLead)
                    device.service()
                }
            }
        }
    }
    /// Silences the audio of every player of this engine (their timelines keep running).
    public var isMutedForAudio: Bool {
        get { device.locked { mutedForAudio } }
        set { device.locked { mutedForAudio = newValue } }
    }
    /// Apple's default, false. True: audio events are not played (takes effect at once).
    public var playsHapticsOnly: Bool {
        get { device.locked { hapticsOnly } }
        set { device.locked { hapticsOnly = newValue } }
    }
    /// Apple's default, false. True: haptic events of players made from now on are left out.
    public var playsAudioOnly: Bool {
        get { device.locked { audioOnly } }
        set { device.locked { audioOnly = newValue } }
    }
    private var audioOnly = false
    /// The audio path (sound device) this engine's audio events play on; nil: audio events are
    /// listed, not played. See `HapticEngine+Audio.swift` and `docs/audio.md`.
    public var audio: EngineAudio? {
        get { device.locked { audioPath } }
        set { device.locked { audioPath = newValue } }
    }
    private var audioPath: EngineAudio?
    /// Audio resources registered with ``registerAudioResource(_:options:)``.
    public let audioResources = AudioResourceRegistry()

    /// Whether the engine is started.
    public var isRunning: Bool { device.locked { running } }
    /// Whether the device is ready for a low-latency start (see ``prepare()``).
    public var isPrepared: Bool { device.locked { device.isPrepared } }
    /// What the device supports, once connected.
    public var capabilities: DeviceCapabilities? { device.locked { device.capabilities } }
    /// The last auto-calibration result this connection (after CONFIGURE_DRIVER changed the
    /// calibration inputs, after ``calibrate()``, or after ``prepare()`` calibrated), nil before any.
    public var calibrationResult: CalibrationReport? { device.locked { session.calibrationResult } }
    /// The driver's power state as the device last reported it (nil: awake since reset, no report).
    public var powerState: StateReport.State? { device.locked { session.powerState } }
    /// Every onset this engine scheduled so far (its players' events and ROM effects) and what
    /// the device reported, in the order they were scheduled. Other engines' onsets are theirs.
    public var onsets: [OnsetRecord] {
        device.locked {
            let me = ObjectIdentifier(self)
            return device.placement.markOrder.compactMap { id -> OnsetRecord? in
                guard let record = device.placement.marks[id] else { return nil }
                if let owner = device.placement.markOwners[id] { return owner == me ? record : nil }
                return playerIDs.contains(record.playerID) ? record : nil
            }
        }
    }
    /// The device-wide numbers of this engine's players.
    var playerIDs: Set<Int> = []
    /// Drive segments the device sent since it was opened (every engine's drive: it is mixed).
    public var segmentsSent: Int { device.locked { device.segmentsSent } }
    /// CUTs the device sent (queued drive replaced from an instant on, for a change).
    public var cutsSent: Int { device.locked { device.cutsSent } }
    /// The error that stopped the engine, if any.
    public var lastError: Error? { device.locked { error } }

    /// Creates an engine over a device session (opened or not; ``start()`` connects it). Engines
    /// on the same session share its device (``SharedDevice/of(session:profile:configuration:runMode:)``):
    /// the first one's `profile` and `configuration` are the device's.
    /// `runMode` (first engine only; nil: by the session's clock) is how its device runs: by
    /// itself on real time, or in the caller's run-loop calls (``SharedDevice/RunMode/manual``).
    package convenience init(
        session: DeviceSession, profile: ActuatorProfile = .default, configuration: Configuration = Configuration(),
        runMode: SharedDevice.RunMode? = nil
    ) {
        self.init(device: SharedDevice.of(session: session, profile: profile, configuration: configuration, runMode: runMode))
    }

    /// Creates an engine on `device`, beside the engines already on it.
    public init(device: SharedDevice) {
        self.device = device
        device.locked { device.register(self) }
    }

    deinit {
        // Players hold their engine: a running engine goes away only once none of its players
        // plays, so this ends nothing of its own, and nothing of another engine.
        let device = self.device
        device.locked {
            if running {
                running = false
                device.release(self, error: nil)
                stopped?(.engineDestroyed)
            }
        }
    }

    // MARK: Time

    /// The engine clock (s): the host clock the session's pump reads. Every `atTime:` refers to it.
    public var currentTime: Double { device.currentTime }

    /// How far ahead of now the drive is rendered and sent. Parameter changes take effect within
    /// this time (plus one render chunk); an immediate start's drive begins this long after the
    /// call, so it is felt this long plus its first event's pre-shift after it.
    public var leadTime: HostDuration { device.locked { device.leadTime } }

    // MARK: Lifecycle

    /// Starts the engine: connects to the device if no other engine did (identify), configures the
    /// driver for the profile, converges the clock and calibrates the driver once a connection
    /// (``Configuration/calibrateOnStart``). Blocks until done; then the engine runs by itself
    /// (see the type's threading note), and a first play starts one lead time after its call.
    /// - Throws: ``HapticError`` `engineStartTimeout` (−4808) when the device does not answer,
    ///   `serverInitFailed` (−4810) for other link failures.
    public func start() throws {
        try device.locked {
            if running { return }
            try device.connect()
            running = true
            error = nil
            idleSince = device.timeNow
        }
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

    /// Stops the engine: its players stop (their completion handlers run); the device goes silent
    /// at once when no other engine plays on it, else only this engine's drive ends (one change
    /// lead from now). The stopped handler is not called. `completionHandler` runs before returning.
    public func stop(completionHandler: ((Error?) -> Void)? = nil) {
        device.locked {
            if running {
                running = false
                device.release(self, error: nil)
            }
        }
        completionHandler?(nil)
    }

    /// The device stopped this engine (failure): no longer running, `error` kept.
    func markStopped(error: Error?) {
        running = false
        self.error = error
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
        device.locked {
            let id = device.takePlayerID()
            playerIDs.insert(id)
            return StreamingPatternPlayer(engine: self, id: id, pattern: HapticPattern(events: [], parameters: [], parameterCurves: []), program: program)
        }
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
        return try device.locked {
            device.catchUpAfterIdle()
            let id = device.takePlayerID()
            playerIDs.insert(id)
            return try makeAudioAwarePlayer(pattern, id: id)
        }
    }

    /// Plays `pattern` once, now; starts the engine first if needed (which adds its start-up time).
    public func playPattern(from pattern: HapticPattern) throws {
        try device.locked {
            if !running { try start() }
            try makePlayer(with: pattern).start(atTime: HapticTimeImmediate)
        }
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

    /// Calls `finishedHandler` once every player of this engine has finished (at the next step of
    /// the run loop if none plays now), on the run thread. Returning `.stopEngine` stops the engine
    /// with reason `.notifyWhenPlayersFinished`.
    public func notifyWhenPlayersFinished(finishedHandler: @escaping (Error?) -> FinishedAction) {
        device.locked { finishedHandlers.append(finishedHandler) }
    }

    /// Whether one of this engine's players is playing (or due to play).
    public var hasActivePlayers: Bool { device.locked { device.players.contains { $0.host === self } } }

    /// Whether one of this engine's players is playing or paused.
    private var hasPlayers: Bool {
        device.players.contains { $0.host === self } || device.pausedPlayers.contains { $0.host === self }
    }

    func fireFinishedHandlersIfIdle() {
        guard !finishedHandlers.isEmpty, !hasPlayers else { return }
        let handlers = finishedHandlers
        finishedHandlers.removeAll()
        var stopEngine = false
        for h in handlers where h(error) == .stopEngine { stopEngine = true }
        if stopEngine { stopBySelf(.notifyWhenPlayersFinished) }
    }

    /// Stops this engine by itself for `reason` and tells its stopped handler.
    private func stopBySelf(_ reason: StoppedReason) {
        guard running else { return }
        running = false
        device.release(self, error: nil)
        stopped?(reason)
    }

    /// The device's step, for this engine: finished handlers and auto-shutdown.
    func service(now: EngineTime) {
        audioPath?.service(self)
        fireFinishedHandlersIfIdle()
        if running && autoShutdown && !device.players.contains(where: { $0.host === self })
            && now - idleSince >= autoShutdownAfter
        {
            stopBySelf(.idleTimeout)
        }
    }

    /// When this engine next needs the run loop (auto-shutdown).
    func nextWake(now: EngineTime) -> EngineTime? {
        if running, let audioPath {
            let audioWake = audioPath.nextWake(now: now)
            guard autoShutdown && !device.players.contains(where: { $0.host === self }) else { return audioWake }
            return min(audioWake, idleSince + autoShutdownAfter)
        }
        guard running && autoShutdown && !device.players.contains(where: { $0.host === self }) else { return nil }
        return idleSince + autoShutdownAfter
    }

    /// ``Configuration/autoShutdownTimeout`` on the engine's schedule.
    private var autoShutdownAfter: EngineDuration { EngineDuration(truncating: configuration.autoShutdownTimeout) }

    // MARK: Run loop

    /// Runs the device (moving bytes, rendering drive, calling handlers) for `seconds`: in virtual
    /// time this is how time passes; in real time the engine runs by itself and this just blocks.
    public func run(for seconds: Double) { device.run(for: seconds) }

    /// Runs the device until engine time `time` (s).
    public func run(until time: Double) { device.run(until: time) }

    /// Runs until every player of this engine has finished (and the actuator's ring-down passed),
    /// or `timeout` s, or `stop` returns true (asked between the run loop's wake-ups, so a caller
    /// watching for a signal needs no short timeouts, each of which would wake the host: in
    /// virtual time a long wait then costs only the wake-ups the link and the drive need).
    /// Returns whether all finished.
    @discardableResult
    public func runUntilPlayersFinished(timeout: Double, ringDown: Double = 0.04, stoppingWhen stop: () -> Bool = { false }) -> Bool {
        device.runUntilPlayersFinished(of: self, timeout: timeout, ringDown: ringDown, stoppingWhen: stop)
    }

    /// One step of the run loop: exchange bytes until the next thing is due (or bytes arrive), then
    /// render, send and call handlers. For callers that drive their own loop.
    public func pump() { device.pump() }

    /// The onsets of one player, in schedule order.
    public func onsets(for player: any HapticPatternPlayer) -> [OnsetRecord] { device.onsets(for: player) }

    // MARK: Device features

    /// Runs the driver's auto-calibration now (CALIBRATE; the actuator buzzes for 250–450 ms) and
    /// returns its result. Starts the engine first if needed. Nothing plays meanwhile: drive due
    /// during the calibration is trimmed or dropped by the device.
    /// - Throws: ``HapticError`` `notSupported` (−4809) for a device without CALIBRATE,
    ///   `operationNotPermitted` (−4806) when it failed, `engineStartTimeout` (−4808) when no
    ///   result came within the session's `calibrationTimeout`.
    @discardableResult
    public func calibrate() throws -> CalibrationReport {
        try device.locked {
            if !running { try start() }
            return try device.calibrate()
        }
    }

    /// Makes the device ready for a low-latency start, like `UIFeedbackGenerator.prepare()`:
    /// engine started (link up, driver configured, clock converged — re-synchronised if it drifted
    /// out of convergence), no calibration running (and, with ``Configuration/calibrateOnPrepare``,
    /// the driver calibrated once this connection), and the driver out of standby: WAKE with
    /// ``Configuration/preparedTimeout`` as the device's idle timeout, so the device returns to
    /// standby by itself when nothing plays for that long (STATE standby; ``isPrepared`` becomes
    /// false). Blocks until done. See ``prepare(_:)-(HapticPattern)`` to preload a pattern too.
    public func prepare() throws {
        try device.locked {
            if !running { try start() }
            try device.prepare()
        }
    }

    /// ``prepare()``, and stores `pattern` (compiled for this engine's profile, at rate 1) in a
    /// program slot on the device, so that a player of an equal pattern starting while nothing
    /// else plays sends only a GO {slot, start, event_base} — a few bytes on the any-lane.
    /// A pattern that does not fit the device's program store (CAPABILITIES `program_segments`,
    /// shared by the slots; least recently used programs are evicted first) is streamed as usual.
    public func prepare(_ pattern: HapticPattern) throws {
        try device.locked {
            if !running { try start() }
            try device.prepare(pattern)
        }
    }

    /// Whether `pattern` is stored on the device, so that its next start can be a GO.
    public func isPreloaded(_ pattern: HapticPattern) -> Bool { device.locked { device.isPreloaded(pattern) } }

    /// Starts that were a GO of a preloaded program (the rest were streamed), on this device.
    public var preparedStarts: Int { device.locked { device.preparedStarts } }

    /// Plays DRV2605L ROM library effect `id` (1…123) through the driver's own sequencer
    /// (ROM_EFFECT), felt at `time` (engine time; ``HapticTimeImmediate`` = one lead time from now).
    /// It never overlaps streamed drive: it starts at the requested time or right after the drive
    /// already sent, whichever is later, and streamed drive resumes after its (approximate,
    /// ``ROMEffect``) length. The device reports its onset (the GO register write); the fixed
    /// latency of its three register writes is learnt from those reports and scheduled early.
    /// Starts the engine if needed. Returns the onset record's id in ``onsets``.
    /// - Throws: `invalidParameterType` (−4820) for an id outside 1…123, `notSupported` (−4809)
    ///   for a device without ROM_EFFECT, `invalidTime` for a bad time.
    @discardableResult
    public func playROMEffect(_ id: Int, atTime time: Double = HapticTimeImmediate) throws -> UInt32 {
        try device.locked {
            if id >= Int(ProtocolConstants.romEffectMin), id <= Int(ProtocolConstants.romEffectMax), !running { try start() }
            return try device.playROMEffect(id, atTime: time, owner: self)
        }
    }

    /// The onset record of a ROM effect started by ``playROMEffect(_:atTime:)``.
    public func onset(ofROMEffect mark: UInt32) -> OnsetRecord? { device.locked { device.onset(ofROMEffect: mark) } }

    // MARK: Compiling

    /// How long one pass of `pattern` lasts on this engine at `rate` with `loopEnd` (0 = the
    /// pattern's end), in seconds: the loop period of an advanced player — `loopEnd`, else the
    /// pattern's duration as Core Haptics counts it (``ThrumCompiler/DriveProgram/loopDuration``).
    public func passDuration(of pattern: HapticPattern, rate: Double = 1, loopEnd: Double = 0) -> Double {
        device.passDuration(of: pattern, rate: rate, loopEnd: loopEnd)
    }

    /// How long the drive of one pass of `pattern` lasts at `rate` (s): past ``passDuration(of:rate:loopEnd:)``
    /// by a transient's burst when one ends the pattern.
    public func driveDuration(of pattern: HapticPattern, rate: Double = 1) -> Double {
        device.driveDuration(of: pattern, rate: rate)
    }

    /// Both from one compile: the loop period (``passDuration(of:rate:loopEnd:)``) and how long
    /// one pass's drive lasts (``driveDuration(of:rate:)``), in seconds.
    public func passTiming(of pattern: HapticPattern, rate: Double = 1, loopEnd: Double = 0) -> (period: Double, drive: Double) {
        device.passTiming(of: pattern, rate: rate, loopEnd: loopEnd)
    }
}

// The narrow interface its players use.
extension HapticEngine: PlayerHost {
    var timeNow: EngineTime { device.timeNow }
    var changeLead: EngineDuration { device.changeLead }
    var restartMargin: EngineDuration { device.restartMargin }
    var startLead: EngineDuration { device.engineLead }
    var streamFloor: EngineTime { device.placement.streamFloor }
    var generation: Int { device.generation }
    func engineTime(_ time: Double) throws -> EngineTime { try device.engineTime(time) }

    func requireRunning(_ player: StreamingPatternPlayer) throws {
        guard player.generation == device.generation else {
            throw HapticError(.invalidPatternPlayer, "the player belongs to an engine that was reset; make a new one")
        }
        if !running {
            guard autoShutdown else { throw HapticError(.engineNotRunning, "the engine is not running") }
            try start()
        }
        device.catchUpAfterIdle()
    }

    func activate(_ player: StreamingPatternPlayer) { device.activate(player) }

    func deactivate(_ player: StreamingPatternPlayer, paused: Bool) {
        device.deactivate(player, paused: paused)
        if !device.players.contains(where: { $0.host === self }) { idleSince = device.timeNow }
    }

    func invalidate(from t: EngineTime) { device.invalidate(from: t) }
    func service() { device.service() }
    func markID(player: StreamingPatternPlayer, run: Int, event: UInt32, record: () -> OnsetRecord) -> UInt32 {
        device.markID(player: player, run: run, event: event, record: record)
    }
    func forgetOnsets(player: StreamingPatternPlayer, run: Int, from: EngineTime) {
        device.forgetOnsets(player: player, run: run, from: from)
    }
    func follow(_ follower: UInt32, _ leader: UInt32) { device.follow(follower, leader) }
    func compile(_ pattern: HapticPattern, rate: Double) -> DriveProgram { device.compile(pattern, rate: rate) }
    func startPrepared(_ player: StreamingPatternPlayer, at requested: EngineTime?) -> Bool { device.startPrepared(player, at: requested) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T { try device.locked(body) }
}
