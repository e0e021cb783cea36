import ThrumHarness
import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumSim

/// Plays a grid of single events (profile × sharpness × intensity × transient/continuous) on a
/// ``VirtualRig`` in virtual time and measures each event's felt onset in the LRA model: the
/// case-acceleration envelope reaching 50 % of the event's own peak, against the requested
/// instant. Each event starts from rest (events 400 ms apart).
public enum FeltOnsetGrid {
    /// One grid point as measured.
    public struct Point: Sendable {
        public var profile: String
        public var continuous: Bool
        public var sharpness: Double
        public var intensity: Double
        /// The compiler's pre-shift, ms.
        public var preShift: Double
        /// Felt onset − requested time, ms (negative = early).
        public var error: Double
        /// Felt onset − electrical drive onset, ms: what the pre-shift should have been.
        public var delay: Double
        /// Whether the driver's auto-calibration passed before the grid played (nil: not run).
        public var calibrated: Bool?
    }

    public static let sharpnesses: [Double] = [0, 0.25, 0.5, 0.75, 1]
    public static let intensities: [Double] = [0.3, 0.6, 1.0]
    /// Length of the continuous events of the grid, s.
    public static let continuousDuration = 0.1
    static let spacing = 0.4

    /// The grid's events, in order: transients then continuous, sharpness-major.
    public static func pattern() -> HapticPattern {
        var events: [HapticEvent] = []
        for continuous in [false, true] {
            for s in sharpnesses {
                for i in intensities {
                    let t = Double(events.count) * spacing
                    let ps = [
                        HapticEventParameter(parameterID: .hapticIntensity, value: Float(i)),
                        HapticEventParameter(parameterID: .hapticSharpness, value: Float(s)),
                    ]
                    events.append(continuous
                        ? HapticEvent(eventType: .hapticContinuous, parameters: ps, relativeTime: t, duration: continuousDuration)
                        : HapticEvent(eventType: .hapticTransient, parameters: ps, relativeTime: t))
                }
            }
        }
        return HapticPattern(events: events, parameters: [], parameterCurves: [])
    }

    /// Plays the grid for `profile` and measures every event.
    public static func run(profile: ActuatorProfile, options: CompileOptions = CompileOptions(), calibrate: Bool = true) throws -> [Point] {
        let rig = VirtualRig(profile: profile)
        try rig.connect()
        var calibrated: Bool? = nil
        if calibrate {
            try rig.calibrateDriver()
            if case .success = rig.device.chip.lastCalibration { calibrated = true } else { calibrated = false }
        }
        let pattern = pattern()
        let program = PatternCompiler(profile: profile, options: options).compile(pattern)
        let report = try rig.play(program: program)
        let start = rig.trueStartTime(of: report)
        let end = start + (Double(pattern.events.count) * spacing + 0.5) * 1e6
        while Double(rig.device.now) < end { try rig.idle(until: rig.trueNow + 100_000) }
        let trace = rig.device.chip.trace
        var points: [Point] = []
        for event in program.events where event.played {
            let e = pattern.events[event.patternIndex]
            let requested = start + event.requestedTime * 1e6
            let drive = start + Double(event.driveOnset)
            guard let felt = feltOnset(trace, from: requested - 60_000, to: requested + 300_000) else { continue }
            let ps = e.eventParameters
            points.append(Point(
                profile: profile.id, continuous: e.type == .hapticContinuous,
                sharpness: Double(ps.first { $0.parameterID == .hapticSharpness }!.value),
                intensity: Double(ps.first { $0.parameterID == .hapticIntensity }!.value),
                preShift: event.preShift * 1e3, error: (felt - requested) / 1e3, delay: (felt - drive) / 1e3,
                calibrated: calibrated))
        }
        return points
    }

    /// The instant (µs) in [from, to) at which the acceleration envelope first reaches
    /// `fraction` of its peak over that span. A trace window holds the envelope's largest value
    /// in the window, which for a rising envelope is its value at the window's end; the crossing
    /// is interpolated between two consecutive window ends (sub-window resolution).
    public static func feltOnset(_ trace: SimulationTrace, from: Double, to: Double, fraction: Double = 0.5) -> Double? {
        let samples = trace.samples(from: UInt64(max(0, from)), to: UInt64(max(0, to)))
        let peak = samples.reduce(0) { max($0, $1.accelerationEnvelopeG) }
        guard peak > 0 else { return nil }
        let threshold = fraction * peak
        let period = Double(trace.samplePeriodMicros)
        var previous = 0.0
        for s in samples {
            let g = s.accelerationEnvelopeG
            if g >= threshold {
                let frac = g > previous ? (threshold - previous) / (g - previous) : 1
                return Double(s.time) + period * min(1, max(0, frac))
            }
            previous = g
        }
        return nil
    }
}

extension VirtualRig {
    /// Runs the driver's auto-calibration (CALIBRATE) and waits for it to end, as a board is
    /// set up once before use: without it the DRV2605L model keeps the reset A_CAL_BEMF, whose
    /// full scale does not match the actuator, and its amplitude loop does not settle.
    public func calibrateDriver() throws {
        // Waits for the result and lets the actuator ring down; a failure leaves the driver on its
        // default words (the chip model keeps the failure in `lastCalibration`).
        do {
            try session.calibrate()
        } catch EngineError.calibrationFailed {
        }
    }
}
