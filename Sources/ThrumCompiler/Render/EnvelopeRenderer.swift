import ThrumPattern

/// Sampled preview columns of a compiled pattern, for CSV and plots.
public struct EnvelopeRender: Equatable, Sendable {
    /// Column names, in CSV order.
    public static let columnNames = ["time_s", "intensity", "sharpness", "drive", "acceleration"]
    /// Samples per second.
    public var sampleRate: Double
    /// Sample times, s from pattern time 0 (starts before 0 when onsets are pre-shifted).
    public var time: [Double]
    /// Requested intensity envelope at requested times (event envelopes × intensity × control, mixed).
    public var intensity: [Double]
    /// Requested sharpness (event sharpness + control, clamped), weighted by the contributions of
    /// the events playing; 0 when nothing plays.
    public var sharpness: [Double]
    /// Drive amplitude 0…1 from the program's segments (pre-shifted).
    public var drive: [Double]
    /// Predicted acceleration envelope (1 = steady state at the rated voltage).
    public var acceleration: [Double]

    /// Number of rows.
    public var count: Int { time.count }

    /// The columns as CSV with a header row.
    public func csv() -> String {
        var s = Self.columnNames.joined(separator: ",") + "\n"
        s.reserveCapacity(count * 40)
        for i in 0..<count {
            s += "\(fmt(time[i])),\(fmt(intensity[i])),\(fmt(sharpness[i])),\(fmt(drive[i])),\(fmt(acceleration[i]))\n"
        }
        return s
    }

    private func fmt(_ x: Double) -> String {
        let r = (x * 1e6).rounded() / 1e6
        return r == 0 ? "0" : "\(r)"
    }
}

/// Renders a pattern's requested envelope, its drive envelope and a predicted acceleration
/// envelope on a common time grid.
public struct EnvelopeRenderer: Sendable {
    /// The compiler used (its profile and options).
    public let compiler: PatternCompiler

    /// Creates a renderer for an actuator.
    public init(profile: ActuatorProfile, options: CompileOptions = .init()) {
        self.compiler = PatternCompiler(profile: profile, options: options)
    }

    /// Samples the pattern at `sampleRate` Hz, from the earliest drive (or 0) to the program's
    /// end plus five actuator time constants.
    public func render(_ pattern: HapticPattern, sampleRate: Double = 1000) -> EnvelopeRender {
        let program = compiler.compile(pattern)
        var plain = compiler.options
        plain.feltOnsetCompensation = false
        let requested = PatternCompiler(profile: compiler.profile, options: plain).compileDetailed(pattern)

        let first = min(0, Double(program.segments.first?.start ?? 0) * 1e-6)
        let startIndex = Int((first * sampleRate).rounded(.down))
        let end = program.duration + 5 * compiler.response.timeConstant
        let endIndex = Int((end * sampleRate).rounded(.up))
        let times = (startIndex...max(startIndex, endIndex)).map { Double($0) / sampleRate }

        let intensity = sample(requested.mixed, at: times)
        let drive = times.map { program.drive(at: $0) }
        let sharpness = sharpnessColumn(requested, at: times)
        let accel = EnvelopePredictor(response: compiler.response).predict(program: program, times: times)
        return EnvelopeRender(sampleRate: sampleRate, time: times, intensity: intensity, sharpness: sharpness,
                              drive: drive, acceleration: accel)
    }

    /// Samples sorted, non-overlapping pieces at increasing times (0 in gaps).
    private func sample(_ pieces: [Piece], at times: [Double]) -> [Double] {
        var k = 0
        return times.map { t in
            let us = micros(t)
            while k < pieces.count && pieces[k].t1 <= us { k += 1 }
            guard k < pieces.count, pieces[k].t0 <= us else { return 0 }
            return pieces[k].value(at: us)
        }
    }

    private func sharpnessColumn(_ c: PatternCompiler.Compilation, at times: [Double]) -> [Double] {
        let evs = c.eventPieces.filter { !$0.pieces.isEmpty }
            .sorted { $0.pieces[0].t0 < $1.pieces[0].t0 }
        var active: [Int] = []
        var next = 0
        return times.map { t in
            let us = micros(t)
            while next < evs.count && evs[next].pieces[0].t0 <= us { active.append(next); next += 1 }
            active.removeAll { evs[$0].pieces[evs[$0].pieces.count - 1].t1 <= us }
            var num = 0.0, den = 0.0, plain = 0.0
            let control = c.controls.sharpness.value(at: t)
            for j in active {
                let s = HapticSemantics.clamp01(evs[j].shape.baseSharpness + control)
                let w = evs[j].pieces.first { $0.t0 <= us && us < $0.t1 }?.value(at: us) ?? 0
                num += s * w
                den += w
                plain += s
            }
            if active.isEmpty { return 0 }
            return den > 0 ? num / den : plain / Double(active.count)
        }
    }
}
