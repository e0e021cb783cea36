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

    /// Where the acceleration column comes from.
    var accelerationSource: AccelerationSource
    /// Requested times of the haptic events, s, in time order.
    var eventTimes: [Double]
    /// The compiled program's length, s.
    var programDuration: Double
    /// Samples per second.
    var sampleRate: Double { rows.sampleRate }
    /// Number of rows in all.
    var count: Int { rows.count }
    /// The first and the last row's time, s.
    var firstTime: Double { rows.firstTime }
    var lastTime: Double { rows.lastTime }

    /// The rows still to come (the requested, drive and predicted columns).
    private var rows: EnvelopeRows
    /// The simulated acceleration, when `accelerationSource` is `.simulator`.
    private var simulated: SimulatedAcceleration?

    /// The longest program, s, whose acceleration the preview simulates: the virtual device runs
    /// in virtual time but its cost follows the simulated time, so longer patterns get the
    /// compiler's prediction instead (and the output says so).
    static let longestSimulated = 60.0

    /// Prepares the preview of `pattern` for `profile` at `sampleRate` Hz: compiles it (rows come
    /// later, a chunk at a time, from `next`) and, for a program up to `longestSimulated`, plays
    /// the compiled program on a `VirtualRig` to resample the chip's acceleration envelope onto
    /// the render's time grid.
    ///
    /// The pattern is consumed: given the only reference to it (`make(pattern: consume p, …)`),
    /// a pattern too long to simulate has its parsed events freed once they are compiled.
    static func make(pattern: consuming HapticPattern, profile: ActuatorProfile, sampleRate: Double) -> PatternPreview {
        let renderer = EnvelopeRenderer(profile: profile)
        let times = pattern.events.lazy.filter(\.type.isHaptic).map(\.relativeTime).sorted()
        let rows: EnvelopeRows
        var kept: HapticPattern?
        if outlastsSimulation(pattern) {
            rows = renderer.rows(consume pattern, sampleRate: sampleRate)
        } else {
            kept = copy pattern
            rows = renderer.rows(consume pattern, sampleRate: sampleRate)
        }
        let duration = rows.programDuration
        let source: AccelerationSource
        var simulated: SimulatedAcceleration?
        if duration > longestSimulated || kept == nil {
            source = .predictor(
                reason: "the program lasts \(String(format: "%.1f", duration)) s; the virtual device simulates at most "
                    + "\(Int(longestSimulated)) s for a preview")
        } else {
            do {
                simulated = try SimulatedAcceleration(pattern: kept!, profile: profile, until: rows.lastTime)
                source = .simulator
            } catch {
                source = .predictor(reason: "\(error)")
            }
        }
        return PatternPreview(
            accelerationSource: source, eventTimes: times, programDuration: duration, rows: rows, simulated: simulated)
    }

    /// Whether the compiled program is sure to outlast `longestSimulated`, from the pattern alone:
    /// an event starting after it, at a time and with a duration the compiler plays or counts
    /// (the program lasts at least until every such event's start), so the pattern is not needed
    /// after compiling.
    static func outlastsSimulation(_ pattern: borrowing HapticPattern) -> Bool {
        pattern.events.contains { e in
            e.relativeTime > longestSimulated && e.relativeTime <= HapticPattern.maximumTime
                && e.duration >= 0 && e.duration <= HapticPattern.maximumDuration
        }
    }

    /// The next chunk of rows (at most `maxRows`), with the acceleration from `accelerationSource`;
    /// nil after the last row.
    mutating func next(maxRows: Int = 65_536) -> EnvelopeRender? {
        guard var chunk = rows.next(maxRows: maxRows) else { return nil }
        if simulated != nil { chunk.acceleration = chunk.time.map { simulated!.envelope(at: $0) } }
        return chunk
    }

    /// A render with no rows yet, to append chunks to.
    var emptyRender: EnvelopeRender {
        EnvelopeRender(
            sampleRate: sampleRate, time: [], intensity: [], sharpness: [], drive: [], acceleration: [],
            programDuration: programDuration)
    }
}

/// The acceleration envelope (G) of a program played on a fresh virtual rig, read at increasing
/// times (s of pattern time), linearly interpolated between trace windows (taken at their centres).
private struct SimulatedAcceleration {
    /// The trace windows' centres, s of pattern time, and their acceleration envelopes, G.
    let centres: [Double]
    let values: [Double]
    private var k = 0

    /// Plays `pattern` and lets the actuator ring down to `end` (s of pattern time).
    init(pattern: HapticPattern, profile: ActuatorProfile, until end: Double) throws {
        let rig = VirtualRig(profile: profile)
        let report = try rig.play(pattern)
        let start = rig.trueStartTime(of: report)
        let period = Double(VirtualRig.accelerationEnvelope(of: rig.device).windowMicros)
        let until = UInt64(max(0, start + end * 1e6 + 2 * period))
        if rig.device.now < until { rig.device.advance(to: until) }
        let trace = VirtualRig.accelerationEnvelope(of: rig.device).samples
        centres = trace.map { (Double($0.time) + period / 2 - start) / 1e6 }
        values = trace.map(\.g)
    }

    mutating func envelope(at t: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        while k + 1 < centres.count && centres[k + 1] <= t { k += 1 }
        if t <= centres[0] { return values[0] }
        guard k + 1 < centres.count else { return values[values.count - 1] }
        let f = (t - centres[k]) / (centres[k + 1] - centres[k])
        return values[k] + (values[k + 1] - values[k]) * f
    }
}
