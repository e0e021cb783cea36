import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumSim
import ThrumTime

/// A whole bench in one process and in virtual time: host session, link model and virtual device
/// built for an actuator profile. Tests and benchmarks use it to play patterns end to end
/// deterministically and fast.
public final class VirtualRig {
    public let profile: ActuatorProfile
    public let device: VirtualDevice
    public let clock: ManualClock
    public let pump: SimulatedPump
    public let session: DeviceSession

    /// Builds the rig; `link` models the connection between host and device.
    public init(
        profile: ActuatorProfile = .default, crystalErrorPPM: Double = 0, clockStart: UInt32 = 0,
        link: any LinkModel = FixedLatencyLink(latency: 1_000),
        sessionConfiguration: DeviceSession.Configuration = DeviceSession.Configuration()
    ) {
        self.profile = profile
        device = VirtualDevice(
            configuration: VirtualDeviceFactory.configuration(
                for: profile, crystalErrorPPM: crystalErrorPPM, clockStart: clockStart))
        clock = ManualClock()
        pump = SimulatedPump(device: device, clock: clock, link: link)
        session = DeviceSession(pump: pump, endpointName: "the virtual device", configuration: sessionConfiguration)
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

    /// Compiles `pattern` for the rig's profile and plays it.
    public func play(_ pattern: HapticPattern, options: CompileOptions = CompileOptions()) throws(EngineError) -> PlaybackReport {
        try connect()
        return try session.play(PatternCompiler(profile: profile, options: options).compile(pattern))
    }

    /// The true time (µs) at which pattern time zero of `report` fell.
    public func trueStartTime(of report: PlaybackReport) -> Double {
        device.trueTime(ofDeviceClock: UInt32(truncatingIfNeeded: report.startDeviceTime), near: device.now)
    }
}
