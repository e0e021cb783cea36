import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumSim
import ThrumTime

/// A whole bench in one process and in virtual time: host session, link model and virtual device
/// built for an actuator profile. Tests, the render preview and the benchmarks use it to play
/// patterns end to end, deterministically and fast, through the same engine path `thrum play`
/// runs (``HapticEngine``), and read the truth from the simulated chip.
public final class VirtualRig {
    public let profile: ActuatorProfile
    public let device: VirtualDevice
    public let clock: ManualClock
    public let pump: SimulatedPump
    /// The rig's device session (the package's own: tests and the bench reach into it).
    package let session: DeviceSession
    /// The rig's device as a tool opens one (``ThrumEngine/ThrumDevice``): connect, calibrate,
    /// the preset library, beside the engines made on the rig.
    public var thrumDevice: ThrumDevice { ThrumDevice(session: session) }
    /// The engine every ``play(_:options:)`` runs on (made by the first play or ``engine(configuration:)``).
    public private(set) var playEngine: HapticEngine?

    /// Builds the rig; `link` models the connection between host and device. `deviceConfiguration`
    /// replaces the device built for `profile` (a board with another actuator mounted, no
    /// actuator, another supply voltage); the host side still uses `profile`. Rigs given one
    /// `clock` are devices on ports of one host: the time one rig's host side spends (a long clock
    /// resynchronization) passes for the others too, whose links sit unrun meanwhile.
    public init(
        profile: ActuatorProfile = .default, crystalErrorPPM: Double = 0, clockStart: UInt32 = 0,
        link: any LinkModel = FixedLatencyLink(latency: 1_000),
        sessionConfiguration: DeviceSessionConfiguration = DeviceSessionConfiguration(),
        deviceConfiguration: VirtualDevice.Configuration? = nil, clock: ManualClock = ManualClock()
    ) {
        self.profile = profile
        device = VirtualDevice(
            configuration: deviceConfiguration
                ?? VirtualDeviceFactory.configuration(for: profile, crystalErrorPPM: crystalErrorPPM, clockStart: clockStart))
        self.clock = clock
        pump = SimulatedPump(device: device, clock: clock, link: link)
        session = DeviceSession(pump: pump, endpointName: "the virtual device", configuration: sessionConfiguration)
    }

    /// A rig on one of the named link models (``LinkCatalogue``) with a crystal of ±`ppm`.
    public convenience init(
        profile: ActuatorProfile = .default, link: LinkProfile, seed: UInt64, crystalErrorPPM: Double = 100, clock: ManualClock = ManualClock(),
        sessionConfiguration: DeviceSessionConfiguration = DeviceSessionConfiguration()
    ) {
        var rng = SplitMix64(seed: seed ^ 0xC10C)
        self.init(
            profile: profile, crystalErrorPPM: seed % 2 == 0 ? crystalErrorPPM : -crystalErrorPPM,
            clockStart: UInt32(truncatingIfNeeded: rng.next()), link: link.make(seed), sessionConfiguration: sessionConfiguration,
            clock: clock)
    }

    /// Connects, configures the driver, converges the clock and (unless `calibrate` is false)
    /// calibrates the driver once, as a board is set up before use.
    public func connect(calibrate: Bool = true) throws(EngineError) {
        if session.identity == nil {
            try session.open()
            session.configureDriver(DriverRegisters.derive(from: profile))
        }
        try session.synchronizeClock()
        // A real board calibrates its driver before use; so does the rig (a failed calibration
        // leaves the driver on its default words, as on hardware).
        if calibrate && session.calibrationResult == nil {
            do {
                try session.calibrate()
            } catch .calibrationFailed {
            }
        }
    }

    /// The rig's engine with the shipped defaults (or `configuration` the first time), started.
    public func engine(configuration: HapticEngine.Configuration = HapticEngine.Configuration()) throws -> HapticEngine {
        if let playEngine {
            if !playEngine.isRunning { try playEngine.start() }
            return playEngine
        }
        let engine = makeEngine(configuration: configuration)
        try engine.start()
        playEngine = engine
        return engine
    }

    /// Compiles `pattern` for the rig's profile and plays it on the rig's engine.
    public func play(_ pattern: HapticPattern, options: CompileOptions = CompileOptions()) throws -> PlaybackReport {
        var report = try play(program: PatternCompiler(profile: profile, options: options).compile(pattern))
        // Audio events are listed, not played (the compiled program lists them as not played).
        for i in report.events.indices where report.events[i].patternIndex < pattern.events.count {
            report.events[i].type = pattern.events[report.events[i].patternIndex].type
        }
        return report
    }

    /// Plays `pattern` on the rig's engine (``engine(configuration:)``) as `thrum play` does — from one lead and 20 ms
    /// after now, an advanced player when `advanced` — and ends the run as it does, waiting for
    /// every onset report; `during` runs once the player started (to inject a fault or change the
    /// player), with the engine and the start time. The report carries the chip's truth.
    public func playAsThrumPlayDoes(
        _ pattern: HapticPattern, configuration: HapticEngine.Configuration = HapticEngine.Configuration(),
        advanced: Bool = false, during: (HapticEngine, Double) -> Void = { _, _ in }
    ) throws -> PlaybackReport {
        let engine = try engine(configuration: configuration)
        let before = engine.counters
        let player: any HapticPatternPlayer = advanced ? try engine.makeAdvancedPlayer(with: pattern) : try engine.makePlayer(with: pattern)
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        during(engine, start)
        engine.runUntilPlayersFinished(timeout: pattern.duration + 5)
        engine.waitForOnsetReports(of: player)
        var report = engine.playbackReport(for: player, pattern: pattern, startTime: start, duration: pattern.duration, since: before)
        attachTruth(to: &report)
        return report
    }

    /// Plays a compiled drive program as it is (``HapticEngine/makePlayer(program:)``) once the
    /// engine's lead time from now, waits for every onset report, and fills in each event's true
    /// onset from the chip.
    public func play(program: DriveProgram) throws -> PlaybackReport {
        let engine = try engine()
        let before = engine.counters
        let player = engine.makePlayer(program: program)
        // The lead counts from the earliest drive, which a pre-shifted onset puts before time 0.
        let earliest = min(0, program.segments.map(\.start).min() ?? 0)
        let start = engine.currentTime + engine.leadTime.seconds + Double(-earliest) / 1e6
        try player.start(atTime: start)
        engine.runUntilPlayersFinished(timeout: program.duration + 5)
        engine.waitForOnsetReports(of: player)
        if let error = engine.lastError { throw error }
        var report = engine.playbackReport(
            for: player, pattern: HapticPattern(events: [], parameters: [], parameterCurves: []), startTime: start, duration: program.duration,
            since: before)
        // Events in the program's order; the ones it does not play (audio) are listed as such.
        let played = program.events.filter(\.played)
        for (k, event) in played.enumerated() where k < report.events.count {
            report.events[k].id = event.id
            report.events[k].type = event.type
        }
        for event in program.events where !event.played {
            report.events.append(
                PlaybackReport.Event(
                    id: event.id, patternIndex: event.patternIndex, type: event.type, requestedTime: event.requestedTime,
                    onsetTime: nil, driveOnsetTime: nil, status: .notPlayed))
        }
        attachTruth(to: &report)
        return report
    }

    /// Fills each reported event's true onset: the chip's first non-zero drive at or after the
    /// event's intended drive instant less `before` µs (within `window` µs), in pattern time.
    public func attachTruth(to report: inout PlaybackReport, before: Double = 3_000, window: Double = 40_000) {
        Self.attachTruth(to: &report, device: device, before: before, window: window)
    }

    /// The same for any virtual device whose true time is the host's time (a ``SimulatedPump``'s).
    public static func attachTruth(
        to report: inout PlaybackReport, device: VirtualDevice, before: Double = 3_000, window: Double = 40_000
    ) {
        let start = Double(report.startHostTime.nanoseconds) / 1e3
        for i in report.events.indices where report.events[i].type.isHaptic && report.events[i].status != .notPlayed {
            let e = report.events[i]
            let intended = start + (e.requestedTime - e.preShift) * 1e6
            guard
                let onset = e.deviceOnset.flatMap({ commandWrite(on: device, deviceClock: $0, near: intended) })
                    ?? firstDrive(on: device, near: intended, before: before, window: window)
            else { continue }
            report.events[i].trueDriveOnsetTime = (onset - start) / 1e6
            report.events[i].trueOnsetTime = (onset - start) / 1e6 + e.preShift
        }
    }

    /// The true time (µs) at which the chip was first told to drive (its first non-zero
    /// RTP_INPUT write, or a ROM effect's GO) at or after `intended − before`, within `window` µs
    /// of `intended`; nil when there is none. For an event that starts while earlier drive is
    /// still non-zero this finds the earlier drive: the truth is for events that start from rest.
    public func firstDrive(near intended: Double, before: Double = 3_000, window: Double = 40_000) -> Double? {
        Self.firstDrive(on: device, near: intended, before: before, window: window)
    }

    /// When `record`'s event really started, in engine seconds on the same footing as its
    /// `requestedTime`: the chip's drive command that the device's report names (or, without a
    /// report, the first drive after its intended instant) plus the planned pre-shift. Nil when
    /// the chip never started it.
    public func trueOnset(of record: OnsetRecord) -> Double? { Self.trueOnset(of: record, on: device) }

    /// The same on any virtual device whose true time is the engine's time.
    public static func trueOnset(of record: OnsetRecord, on device: VirtualDevice) -> Double? {
        let intended = record.intendedDriveTime * 1e6
        let t = record.deviceOnset.flatMap { commandWrite(on: device, deviceClock: $0, near: intended) }
            ?? firstDrive(on: device, near: intended, before: 3_000, window: 40_000)
        return t.map { $0 / 1e6 + record.preShift }
    }

    /// The true time (µs) of the drive command (a non-zero RTP_INPUT or a GO write) that the
    /// device's own onset report names: its clock reading `deviceClock` converted with the
    /// simulation's true crystal (not the host's estimate), matched to the chip's register log
    /// within 3 µs. Nil when the chip saw no such write then. Unlike ``firstDrive(near:before:window:)``
    /// this also finds the onset of an event that starts while earlier drive still plays.
    public func commandWrite(deviceClock: DeviceTime, near intended: Double) -> Double? {
        Self.commandWrite(on: device, deviceClock: deviceClock, near: intended)
    }

    static func commandWrite(on device: VirtualDevice, deviceClock: DeviceTime, near intended: Double) -> Double? {
        let t = device.trueTime(ofDeviceClock: deviceClock.wire.rawValue, near: UInt64(max(0, intended)))
        guard let write = device.chip.trace.firstDriveCommand(atOrAfter: UInt64(max(0, t - 3))), Double(write) <= t + 3 else {
            return nil
        }
        return Double(write)
    }

    static func firstDrive(on device: VirtualDevice, near intended: Double, before: Double, window: Double) -> Double? {
        let from = UInt64(max(0, intended - before))
        guard let t = device.chip.trace.firstDriveCommand(atOrAfter: from), Double(t) < intended + window else { return nil }
        return Double(t)
    }

    /// The true time (µs) at which pattern time zero of `report` fell.
    public func trueStartTime(of report: PlaybackReport) -> Double {
        Double(report.startHostTime.nanoseconds) / 1e3
    }
}
