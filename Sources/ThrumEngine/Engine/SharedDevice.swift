import Foundation
import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

/// One Thrum device shared by every ``HapticEngine`` (and feedback generator) of a process that
/// plays on it: one connection, one drive stream, one onset ledger, one set of preloaded programs.
///
/// Engines are its clients. Each engine has its own players, handlers and onset reports; the
/// device mixes every client's players into one drive (the compiler's soft sum), so two engines
/// play together, and stopping or destroying one ends only its own players. Engines made on the
/// same ``DeviceSession`` share its device (``of(session:profile:configuration:)``).
///
/// **Threading.** Every call is safe from any thread: engines, players and the device take this
/// device's lock (``locked(_:)``, recursive). After an engine starts, the device runs by itself
/// (``RunMode``): on real time a run thread (`thrum.device`) exchanges bytes, renders drive
/// and calls the handlers; on virtual time it runs only when the test moves time
/// (``run(for:)``, `VirtualRig.advance(by:)`), on the caller's thread. Handlers (completion,
/// stopped, reset, finished) are called on that run thread (or the thread moving virtual time),
/// one at a time, inside the lock: they may call the engine and its players, and must not wait
/// for another thread that does.
public final class SharedDevice: @unchecked Sendable {
    /// How the device's run loop is driven.
    public enum RunMode: Sendable, Equatable {
        /// The caller's loop: nothing runs until someone calls ``run(for:)`` (or an engine's
        /// run-loop calls, or `VirtualRig.advance(by:)`). On a manual clock (tests, benchmarks)
        /// that is what moves virtual time; on real time it is a program that drives its own loop
        /// on one thread (the `thrum` CLI, the AVR harness).
        case manual
        /// Real time: a run thread exchanges bytes and renders drive as the clock passes.
        case realTime
        /// A virtual device (manual clock) moved along with the monotonic clock by a run thread:
        /// the built-in virtual device of `HapticEngine()`, which plays "live" like hardware.
        case paced
    }

    /// The device session the engines play on (internal: see ``HapticEngine/linkHealth``).
    let session: DeviceSession
    /// The actuator the patterns are compiled for (the first engine's).
    public let profile: ActuatorProfile
    /// The tunables (the first engine's).
    public let configuration: HapticEngine.Configuration
    /// How the run loop is driven.
    public let runMode: RunMode

    /// Whether the device is connected and streaming for at least one started engine.
    public internal(set) var isRunning = false
    /// Whether the device is ready for a low-latency start (see ``HapticEngine/prepare()``).
    public internal(set) var isPrepared = false
    /// What the device supports, once connected.
    public internal(set) var capabilities: DeviceCapabilities?
    /// Drive segments sent since the device was opened (re-renders after a STOP included).
    public var segmentsSent: Int { placement.segmentMessages }
    /// CUTs sent (queued drive replaced from an instant on, for a change).
    public internal(set) var cutsSent = 0
    /// The error that stopped the device (link or transport failure, fault), if any.
    public internal(set) var lastError: Error?
    /// Faults the host noticed while playing (device resets, holes in the drive), oldest first,
    /// in engine seconds. ``HapticEngine/playbackReport(for:pattern:startTime:duration:since:)``
    /// puts those of a run in its report.
    public internal(set) var runFaults: [RunFault] = []

    // Streaming state, on the engine's schedule (``ThrumTime/EngineTime``: host time in µs).
    /// Players with a timeline to render (playing, or playing until a pending stop/pause), of every client.
    var players: [StreamingPatternPlayer] = []
    /// Paused players, so that stopping their engine ends them too.
    var pausedPlayers: [StreamingPatternPlayer] = []
    var emittedUntil = EngineTime.zero
    var lastLevel: UInt8 = 0
    /// Bumped by a device reboot: players made before are invalid.
    var generation = 0
    var nextPlayerID = 1
    var preparedUntil = EngineTime.zero
    var lastClockSample: ClockSample?
    /// The clock model's ``ThrumLink/ClockModel/jumps`` at ``lastClockSample``: when it differs,
    /// the model's window restarted since, and its ``ThrumLink/ClockModel/windowBefore`` is the
    /// clock the marks placed so far were stamped on.
    var lastClockJumps = 0
    /// When the link was last run (bytes exchanged), engine time; nil before the first start.
    var lastLinkRun: EngineTime?
    /// Programs preloaded on the device, by slot.
    var preloads: [UInt8: Preload] = [:]
    var preloadUse = 0
    /// The GO last sent, until its ACK or FAULT 8 settles it.
    var pendingGo: PendingGo?
    var goStarts = 0
    /// The transport or link failed; the run loop returns early instead of spinning.
    var linkDead = false
    let mixer: DriveMixer
    /// Every door's way onto the device: the queue's tail, the mapping to device time, the lead
    /// policy and the onset ledger (``DevicePlacement``).
    let placement: DevicePlacement
    /// What was last published to the group's timebase: the newest clock sample and frame report.
    var publishedToTimebase: (sample: ClockSample?, frame: FrameClock.Sample?)?
    /// Who is told of onset reports as they arrive (``HapticEngine/observeOnsets(_:)``).
    let onsetObservers = OnsetObservers()
    /// The engines playing on this device (weak: an engine ends when its owner and its players let go).
    private var clients: [WeakClient] = []
    private let lock = EngineLock()
    private var runner: DeviceRunner?
    /// Cuts the run thread's wait on the transport short when a caller leaves the lock (real time
    /// over a ``ThrumLink/WakeableTransport`` only; nil otherwise).
    private let wake: WakeSignal?

    private struct WeakClient {
        weak var engine: HapticEngine?
    }

    /// A device over `session`, with `runMode` (nil: manual when the session's pump reads a
    /// ``ThrumTime/ManualClock``, real time otherwise).
    package init(
        session: DeviceSession, profile: ActuatorProfile = .default, configuration: HapticEngine.Configuration = .init(),
        runMode: RunMode? = nil
    ) {
        self.session = session
        self.profile = profile
        self.configuration = configuration
        self.runMode = runMode ?? (session.pump.clock is ManualClock ? .manual : .realTime)
        wake = self.runMode == .realTime && session.pumpWaitingApart != nil ? WakeSignal() : nil
        mixer = DriveMixer(options: configuration.compileOptions)
        placement = DevicePlacement(session: session, configuration: configuration)
    }

    /// The device of `session`: the one its engines already share, or a new one (with `profile`,
    /// `configuration` and `runMode`, which only the first engine's call decides).
    package static func of(
        session: DeviceSession, profile: ActuatorProfile = .default, configuration: HapticEngine.Configuration = .init(),
        runMode: RunMode? = nil
    ) -> SharedDevice {
        session.sharedDeviceLock.lock()
        defer { session.sharedDeviceLock.unlock() }
        if let device = session.sharedDevice { return device }
        let device = SharedDevice(session: session, profile: profile, configuration: configuration, runMode: runMode)
        session.sharedDevice = device
        return device
    }

    deinit {
        runner?.stop()
        wake?.signal()
    }

    /// Runs `body` holding the device's lock (recursive: handlers called inside may call back).
    /// On real time over a wakeable transport, a caller other than the run thread leaving the
    /// lock writes the frames it queued (a GO, a CUT leaves now, not at the run thread's next
    /// step) and wakes the run thread, which plans its wait again (``runnerStep(pacedTarget:slice:)``).
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock {
            guard let wake else { return try body() }
            lock.depth += 1
            defer {
                lock.depth -= 1
                if lock.depth == 0 { callerLeaves(wake) }
            }
            return try body()
        }
    }

    /// The outermost ``locked(_:)`` of a caller ends (still inside the lock): write what it queued
    /// and wake the run thread. The signal is made under the lock, so the run thread, which
    /// drains it under the lock before planning, cannot miss it.
    private func callerLeaves(_ wake: WakeSignal) {
        guard runner != nil, !SharedDevice.isRunThread else { return }
        if !linkDead, isConnected {
            // A failed write is the run thread's to report: its next exchange meets the same error.
            try? session.flushOutgoing()
        }
        wake.signal()
    }

    // MARK: Time

    /// The engine clock (s): the host clock the session's pump reads.
    public var currentTime: Double { timeNow.seconds }

    /// Engine time now: the session's host clock, in whole µs.
    var timeNow: EngineTime { EngineTime(session.pump.clock.now()) }
    /// Hands the group's timebase this device's clock model and frame count when they changed.
    func publishToTimebase() {
        guard let membership = placement.frameTimebase else { return }
        let link = session.link
        let state = (sample: link.clock.samples.last, frame: link.frameClock.samples.last)
        if let last = publishedToTimebase, last.sample == state.sample, last.frame == state.frame { return }
        publishedToTimebase = state
        membership.timebase.publish(membership.index, estimate: link.clock, frames: link.frameClock)
    }

    /// How far ahead of now the drive is rendered and sent (see ``HapticEngine/leadTime``).
    public var leadTime: HostDuration { placement.leadTime }
    /// ``leadTime`` on the engine's schedule.
    var engineLead: EngineDuration { placement.engineLead }
    /// A chunk that would end this close before an onset ends at the onset instead.
    static let markGuard = EngineDuration.microseconds(200)
    /// How far ahead drive is rendered and queued (``DevicePlacement/queueHorizon``).
    var queueHorizon: EngineDuration { placement.queueHorizon }
    /// The earliest a change sent now can take effect (``DevicePlacement/changeLead``).
    var changeLead: EngineDuration { placement.changeLead }
    /// The restart margin, at least two smoothed round trips (``DevicePlacement/restartMargin``).
    var restartMargin: EngineDuration { placement.restartMargin }

    /// The engine time of an `atTime:` argument (immediate → now).
    func engineTime(_ time: Double) throws -> EngineTime {
        guard time.isFinite, time >= 0 else { throw HapticError(.invalidTime, "invalid time \(time)") }
        return time == HapticTimeImmediate ? timeNow : EngineTime(seconds: time)
    }

    // MARK: Clients

    func register(_ engine: HapticEngine) {
        clients.removeAll { $0.engine == nil }
        clients.append(WeakClient(engine: engine))
    }

    /// The engines on this device still alive.
    var engines: [HapticEngine] { clients.compactMap(\.engine) }

    /// Whether another client than `engine` is started.
    private func othersRunning(than engine: HapticEngine?) -> Bool {
        engines.contains { $0 !== engine && $0.isRunning }
    }

    // MARK: Lifecycle

    /// Connects (identify), configures the driver for the profile, converges the clock and
    /// calibrates once a connection; then runs by itself (``RunMode``). No-op when running.
    func connect() throws {
        if isRunning { return }
        do {
            if session.identity == nil || !isConnected {
                try session.open()
                session.configureDriver(DriverRegisters.derive(from: profile))
                preloads.removeAll()
            }
            // A changed rated voltage or overdrive clamp makes the device calibrate: wait for it.
            if session.isCalibrating || session.link.pendingCount > 0 { try session.waitForDriverReady() }
            // Started again after its link sat unrun (stopped, nothing ran it): as after an idle.
            if let last = lastLinkRun, timeNow - last > EngineDuration(truncating: configuration.idleResynchronization) {
                try session.resynchronizeClock()
            }
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
            // The first drive goes to the middle of the clock bracket and the schedule then only
            // slews: a bracket left wide by slow round trips would offset the whole play.
            try session.narrowClockForStart()
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
        emittedUntil = timeNow
        placement.emptied(at: timeNow, fresh: false)
        lastClockSample = session.link.clock.samples.last
        lastClockJumps = session.link.clock.jumps
        lastLinkRun = timeNow
        startRunner()
    }

    var isConnected: Bool {
        if case .connected = session.link.state { return true }
        return false
    }

    /// Ends `engine`'s players (completion handlers called with `error`). Other engines' players
    /// keep playing: their drive goes on without a gap when the engine's own drive can be replaced
    /// in time (a CUT one change lead from now), else after a restart margin. When no other engine
    /// is started the device goes silent at once (any-lane STOP) and stops streaming.
    func release(_ engine: HapticEngine, error: Error?) {
        let mine = (players + pausedPlayers).filter { $0.host === engine }
        let othersPlay = players.contains { $0.host !== engine }
        if !othersRunning(than: engine) {
            halt(error: error, only: engine)
            return
        }
        players.removeAll { $0.host === engine }
        pausedPlayers.removeAll { $0.host === engine }
        if othersPlay {
            invalidate(from: timeNow + changeLead)
        } else if !mine.isEmpty {
            rewind()
        }
        for p in mine { p.finish(error: error) }
        service()
    }

    /// Stops everything on the device and finishes every player (of `only`, else of every client).
    private func halt(error: Error?, only: HapticEngine? = nil) {
        session.link.discardQueuedSegments()
        if isConnected { session.link.sendImmediately(.stop) }
        // the last engine stopped normally: the host's session ends with it (no watchdog fault)
        if isConnected, error == nil, only != nil { session.link.release() }
        isRunning = false
        isPrepared = false
        let stopping = players + pausedPlayers
        players.removeAll()
        pausedPlayers.removeAll()
        for p in stopping { p.finish(error: error) }
        placement.emptied(at: timeNow, fresh: true)
        lastLevel = 0
        // Let the STOP leave now (virtual time moves by a millisecond).
        if isConnected, only != nil { try? session.runOnce(until: session.pump.clock.now() + .milliseconds(1)) }
        for c in engines { c.fireFinishedHandlersIfIdle() }
    }

    /// The device failed (`reason`): every started engine stops by itself and is told.
    func stopBySelf(_ reason: HapticEngine.StoppedReason, error: Error?) {
        guard isRunning else { return }
        lastError = error
        let running = engines.filter(\.isRunning)
        for c in running { c.markStopped(error: error) }
        halt(error: error)
        for c in running { c.stoppedHandler?(reason) }
    }

    // MARK: Players

    /// A new device-wide player number.
    func takePlayerID() -> Int {
        defer { nextPlayerID += 1 }
        return nextPlayerID
    }

    func activate(_ player: StreamingPatternPlayer) {
        pausedPlayers.removeAll { $0 === player }
        if !players.contains(where: { $0 === player }) { players.append(player) }
    }

    /// `paused`: keep it to end it when its engine stops.
    func deactivate(_ player: StreamingPatternPlayer, paused: Bool = false) {
        players.removeAll { $0 === player }
        pausedPlayers.removeAll { $0 === player }
        if paused { pausedPlayers.append(player) }
    }

    /// The onsets of one player, in schedule order.
    public func onsets(for player: any HapticPatternPlayer) -> [OnsetRecord] {
        locked { placement.markOrder.compactMap { placement.marks[$0] }.filter { $0.playerID == player.playerID } }
    }

    /// Every onset scheduled on the device (all engines), in schedule order.
    public var allOnsets: [OnsetRecord] { locked { placement.markOrder.compactMap { placement.marks[$0] } } }

    // MARK: Run loop

    /// Runs the device (moving bytes, rendering drive, calling handlers) until engine time `time`
    /// (s). In virtual time this is what moves time; in real time it blocks until then.
    public func run(until time: Double) {
        run(untilTime: EngineTime(seconds: time))
    }

    private func run(untilTime deadline: EngineTime) {
        // On real time the run thread plays: the caller only waits (two threads pumping in turns
        // would each stall the other under load). Virtual time moves only here.
        while runMode != .manual, locked({ isRunning && runner?.isAlive == true && !linkDead }) {
            let left = deadline - timeNow
            if left <= .zero { return }
            usleep(UInt32(min(left, .milliseconds(1)).microseconds))
        }
        locked { service() }
        while !linkDead {
            let more: Bool = locked {
                guard timeNow < deadline, !linkDead else { return false }
                pump(until: min(deadline, nextWake(), runMode == .manual ? .distantFuture : timeNow + .milliseconds(1)))
                return true
            }
            if !more { return }
            lock.yieldIfWaited()
        }
    }

    /// Runs the device for `seconds`.
    public func run(for seconds: Double) { run(until: currentTime + seconds) }

    /// Runs until `engine` (nil: every engine) has no player left, or `timeout` s, or `stop`
    /// says so (asked between wake-ups: a caller that must notice a signal needs no short
    /// timeouts of its own, whose ends would each wake the host); then, when all finished,
    /// `ringDown` s more. Returns whether all finished.
    @discardableResult
    public func runUntilPlayersFinished(
        of engine: HapticEngine? = nil, timeout: Double, ringDown: Double = 0.04, stoppingWhen stop: () -> Bool = { false }
    ) -> Bool {
        // Whole µs, as the clock counts: a deadline in floating seconds could stay one ulp ahead.
        let deadline = locked { timeNow } + .seconds(timeout)
        func busy() -> Bool { locked { players.contains { engine == nil || $0.host === engine } } }
        if runMode == .manual {
            // The caller's loop: step to the next thing due, as a single-threaded loop does (the
            // same wake-ups, so virtual-time runs replay exactly).
            locked { service() }
            while busy() && !linkDead && !stop() {
                let more: Bool = locked {
                    guard timeNow < deadline, !linkDead else { return false }
                    pump(until: min(deadline, nextWake()))
                    return true
                }
                if !more { break }
            }
        } else {
            while busy() && locked({ timeNow }) < deadline && !linkDead && !stop() {
                run(untilTime: min(deadline, locked { timeNow } + .milliseconds(5)))
            }
        }
        let done = !busy()
        if done { run(for: ringDown) }
        return done
    }

    /// One step: exchange bytes until the next thing is due (or bytes arrive), then render, send
    /// and call handlers.
    public func pump() {
        if runMode != .manual, locked({ isRunning && runner?.isAlive == true }) {
            usleep(1_000)  // the run thread plays; a caller's loop just lets time pass
            return
        }
        locked { pump(until: min(nextWake(), runMode == .manual ? .distantFuture : timeNow + .milliseconds(1))) }
    }

    private func pump(until deadline: EngineTime) {
        if players.isEmpty { catchUpAfterIdle() }
        let target = max(deadline, timeNow + .microseconds(1)).hostTime
        do {
            try session.runOnce(until: target)
        } catch {
            linkFailed(error)
        }
        lastLinkRun = timeNow
        service()
    }

    /// A started device whose link was not run for longer than
    /// ``HapticEngine/Configuration/idleResynchronization`` (a manual run loop left idle) catches
    /// up before drive is placed again, so that an idle-then-play is a fresh play: the clock is
    /// synchronized afresh (``DeviceSession/resynchronizeClock()``: no ACK that waited out the gap
    /// counts as a round trip), and what the device sent meanwhile (a watchdog FAULT, late onset
    /// reports) is handled before, not in the middle of, the next play.
    func catchUpAfterIdle() {
        guard needsCatchUp else { return }
        lastLinkRun = timeNow
        do {
            try session.resynchronizeClock()
            try session.narrowClockForStart()
        } catch {
            linkFailed(error)
            return
        }
        lastLinkRun = timeNow
        lastClockSample = session.link.clock.samples.last
        lastClockJumps = session.link.clock.jumps
        service()
    }

    /// Whether the link sat unrun for longer than ``HapticEngine/Configuration/idleResynchronization``
    /// while started, so that ``catchUpAfterIdle()`` has work to do.
    var needsCatchUp: Bool {
        guard isRunning, !linkDead, let last = lastLinkRun else { return false }
        return timeNow - last > EngineDuration(truncating: configuration.idleResynchronization)
    }

    /// The transport or link failed: the device stops by itself and its engines are told.
    private func linkFailed(_ error: Error) {
        linkDead = true
        if isRunning {
            stopBySelf(.deviceDisconnected, error: HapticError(.serverInterrupted, "\(error)"))
        }
    }

    /// When the run loop must next wake up.
    func nextWake() -> EngineTime {
        let now = timeNow
        let soonest = now + .microseconds(1)
        // A long quiet wait (``relaxPingsWhileQuiet(now:)``) needs no wake-up between the link's pings.
        var wake = now + (session.link.relaxesPings ? EngineDuration(truncating: session.link.configuration.relaxedPingInterval) : .milliseconds(250))
        if isRunning && !players.isEmpty {
            // Top the queue up every chunk so it always holds about `queueHorizon` of drive.
            // While the players have nothing to render, not before the chunks that reach their
            // next drive (two chunks early): the chunks between are passed at once
            // (``skipQuietChunks(now:)``), the same ones the wake-ups would have rendered empty.
            var due = emittedUntil
            if lastLevel == 0 {
                let quiet = quietUntil(from: emittedUntil)
                let quietChunks = (min(quiet, emittedUntil + .seconds(86_400 * 366)) - Self.markGuard - emittedUntil).microseconds
                    / renderChunk.microseconds - 2
                if quietChunks > 0 { due = emittedUntil + renderChunk * quietChunks }
            }
            let topUp = max(due - queueHorizon + renderChunk, placement.streamHeldUntil)
            wake = min(wake, max(soonest, topUp))
            for p in players { if let end = p.endTime { wake = min(wake, max(soonest, end)) } }
        }
        if isPrepared { wake = min(wake, max(soonest, prepareLapseTime)) }
        if let held = placement.nextHeldPresetSend { wake = min(wake, max(soonest, held)) }
        for c in engines { if let w = c.nextWake(now: now) { wake = min(wake, max(soonest, w)) } }
        return wake
    }

    /// Lets the link relax its pings (``ThrumLink/LinkSession/relaxesPings``) while the players have
    /// had nothing for ``quietMargin`` and will have nothing for longer than the clock model's
    /// window plus that margin: by the time drive is placed again, the window holds only samples
    /// at the usual interval, as if the link had never relaxed. Not with nothing playing (the
    /// engine is idle, not waiting) nor while a level is held.
    private func relaxPingsWhileQuiet(now: EngineTime) {
        let window = EngineDuration(truncating: session.link.configuration.clock.windowDuration)
        let relax = !players.isEmpty && lastLevel == 0
            && quietUntil(from: now - Self.quietMargin) > now + window + Self.quietMargin
        if session.link.relaxesPings != relax { session.link.relaxesPings = relax }
    }

    /// How long before and after the players' drive the link keeps its usual pings.
    static let quietMargin = EngineDuration.seconds(2)

    /// How much drive one render step covers: ``HapticEngine/Configuration/chunk`` (longer on a
    /// long round trip, ``DevicePlacement/renderChunk``), at least 1 ms.
    var renderChunk: EngineDuration { max(.milliseconds(1), EngineDuration(truncating: placement.renderChunk)) }

    /// Renders and sends what is due, finishes players whose time is over, runs timeouts.
    func service() {
        guard isRunning else {
            if session.link.relaxesPings { session.link.relaxesPings = false }
            for c in engines { c.fireFinishedHandlersIfIdle() }
            return
        }
        checkForReboot()
        guard isRunning else { return }
        // The device clock moved under the queued drive: it plays that much off its time (its
        // onsets are judged `mistimed`). Drive from one change lead on is placed again on the
        // clock as it now is.
        if placement.followClockJump(), !players.isEmpty { followMovedClock() }
        for id in placement.checkClockContradictions() { announceOnset(id, kind: .boundSuspect) }
        publishToTimebase()
        let now = timeNow
        placement.sendHeldPresets(now: now)
        emit(now: now)
        relaxPingsWhileQuiet(now: now)
        for p in players where p.endTime.map({ now >= $0 }) ?? false {
            p.timeReached()
        }
        if !players.isEmpty { preparedUntil = max(preparedUntil, now + preparedTimeout) }
        if isPrepared && now >= prepareLapseTime { lapsePreparation() }
        for c in engines { c.service(now: now) }
    }

    // MARK: Running by itself

    private func startRunner() {
        guard runMode != .manual else { return }
        if let runner {
            runner.kick()
            return
        }
        let runner = DeviceRunner(device: self)
        self.runner = runner
        runner.start()
    }

    /// One step of the run thread: on real time over a wakeable transport, an exchange, render and
    /// plan under the lock and a wait for input apart from it (``stepWaitingApart(pump:wake:)``);
    /// otherwise runs the device up to now (paced: up to `pacedTarget`, the manual clock following
    /// the monotonic one) for at most `slice`, under the lock. Returns false when nothing is
    /// started (the thread then waits to be kicked).
    func runnerStep(pacedTarget: EngineTime?, slice: EngineDuration) -> Bool {
        if pacedTarget == nil, let wake, let pump = session.pumpWaitingApart {
            return stepWaitingApart(pump: pump, wake: wake)
        }
        return locked {
            guard isRunning, !linkDead else { return false }
            if let target = pacedTarget {
                // Virtual time follows the monotonic clock; run to it in one go.
                if target > timeNow { pump(until: min(target, nextWake())) } else { service() }
                while isRunning && !linkDead && timeNow < target { pump(until: min(target, nextWake())) }
            } else {
                pump(until: min(nextWake(), timeNow + slice))
            }
            return isRunning
        }
    }

    /// One step of the run thread over a wakeable transport: under the lock, exchange what is
    /// there, render, send and plan the next wake; then, WITHOUT the lock, wait until the device
    /// sends, that wake comes or a caller leaving the lock signals ``wake``. Returns false when
    /// nothing is started.
    private func stepWaitingApart(pump: TransportPump, wake: WakeSignal) -> Bool {
        let deadline: HostTime? = locked {
            guard isRunning, !linkDead else { return nil }
            // Signals from here on end the coming wait; earlier ones are seen by this plan.
            wake.drain()
            do {
                try session.exchangeNow()
            } catch {
                linkFailed(error)
                return nil
            }
            lastLinkRun = timeNow
            service()
            guard isRunning, !linkDead else { return nil }
            do {
                try session.flushOutgoing()
            } catch {
                linkFailed(error)
                return nil
            }
            var next = nextWake().hostTime
            if let timer = session.link.nextDeadline, timer < next { next = timer }
            return next
        }
        guard let deadline else { return locked { isRunning && !linkDead } }
        do {
            _ = try pump.waitForInput(until: deadline, orWoken: wake)
        } catch {
            locked { linkFailed(error) }
        }
        return true
    }

    /// Whether the calling thread is a device's run thread (where handlers are called on real time).
    public static var isRunThread: Bool { Thread.current.threadDictionary[DeviceRunner.marker] as? Bool == true }

    /// Whether a caller is waiting for the lock (the run thread lets it in between steps).
    func yieldToCallers() { lock.yieldIfWaited() }
}
