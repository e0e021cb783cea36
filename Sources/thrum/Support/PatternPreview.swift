import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumPattern

/// A rendered preview of a pattern on one actuator: the compiler's requested intensity and
/// sharpness and the drive envelope (`EnvelopeRenderer`), with the acceleration the virtual
/// device produced when it played the same program, all on one time grid.
struct PatternPreview {
    /// Where the acceleration column comes from.
    enum AccelerationSource: Equatable {
        /// The virtual device (firmware core, DRV2605L model, LRA model) played the program; G.
        case simulator
        /// The compiler's first-order predictor (1 = steady state at the rated voltage), used
        /// because the simulation failed for the given reason.
        case predictor(reason: String)

        /// The unit of the acceleration column.
        var unit: String {
            switch self {
            case .simulator: return "G"
            case .predictor: return "× steady state"
            }
        }

        /// One phrase for legends and summaries.
        var label: String {
            switch self {
            case .simulator: return "virtual device simulation"
            case .predictor: return "compiler prediction (simulation not used)"
            }
        }
    }

    /// The columns; `acceleration` is from `accelerationSource`.
    var render: EnvelopeRender
    /// Where the acceleration column comes from.
    var accelerationSource: AccelerationSource
    /// Requested times of the haptic events, s, in time order.
    var eventTimes: [Double]
    /// The compiled program's length, s.
    var programDuration: Double

    /// Renders `pattern` for `profile` at `sampleRate` Hz, then plays the compiled program on a
    /// `VirtualRig` and resamples the chip's acceleration envelope onto the render's time grid.
    /// The longest program, s, whose acceleration the preview simulates: the virtual device runs
    /// in virtual time but its cost follows the simulated time, so longer patterns get the
    /// compiler's prediction instead (and the output says so).
    static let longestSimulated = 60.0

    static func make(pattern: HapticPattern, profile: ActuatorProfile, sampleRate: Double) -> PatternPreview {
        let renderer = EnvelopeRenderer(profile: profile)
        var render = renderer.render(pattern, sampleRate: sampleRate)
        let duration = render.programDuration
        let source: AccelerationSource
        if duration > longestSimulated {
            source = .predictor(
                reason: "the program lasts \(String(format: "%.1f", duration)) s; the virtual device simulates at most "
                    + "\(Int(longestSimulated)) s for a preview")
        } else {
            do {
                render.acceleration = try simulatedAcceleration(pattern: pattern, profile: profile, at: render.time)
                source = .simulator
            } catch {
                source = .predictor(reason: "\(error)")
            }
        }
        let times = pattern.events.filter(\.type.isHaptic).map(\.relativeTime).sorted()
        return PatternPreview(render: render, accelerationSource: source, eventTimes: times, programDuration: duration)
    }

    /// Plays `pattern` on a fresh virtual rig and returns the acceleration envelope (G) at `times`
    /// (s of pattern time), linearly interpolated between trace windows (taken at their centres).
    private static func simulatedAcceleration(
        pattern: HapticPattern, profile: ActuatorProfile, at times: [Double]
    ) throws -> [Double] {
        let rig = VirtualRig(profile: profile)
        let report = try rig.play(pattern)
        let start = rig.trueStartTime(of: report)
        let period = Double(rig.device.chip.trace.samplePeriodMicros)
        // Let the actuator ring down to the end of the render.
        if let last = times.last {
            let end = UInt64(max(0, start + last * 1e6 + 2 * period))
            if rig.device.now < end { rig.device.advance(to: end) }
        }
        let trace = rig.device.chip.trace.samples
        guard !trace.isEmpty else { return times.map { _ in 0 } }
        let centres = trace.map { (Double($0.time) + period / 2 - start) / 1e6 }
        var k = 0
        return times.map { t in
            while k + 1 < centres.count && centres[k + 1] <= t { k += 1 }
            if t <= centres[0] { return trace[0].accelerationEnvelopeG }
            guard k + 1 < centres.count else { return trace[trace.count - 1].accelerationEnvelopeG }
            let f = (t - centres[k]) / (centres[k + 1] - centres[k])
            return trace[k].accelerationEnvelopeG + (trace[k + 1].accelerationEnvelopeG - trace[k].accelerationEnvelopeG) * f
        }
    }
}
