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
    /// The compiled program's length, s (`DriveProgram.duration`).
    public var programDuration: Double = 0

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

    /// The silence, s, beyond which the renderer stops sampling: a stretch longer than this with
    /// nothing requested, nothing driven and the actuator rung down keeps only its two end rows.
    public static let longestSampledSilence = 1.0
    /// The sample rates `render` accepts, Hz; others are clamped into this range.
    public static let sampleRates: ClosedRange<Double> = 1...1_000_000

    /// Samples the pattern at `sampleRate` Hz (clamped into `sampleRates`), from the earliest drive
    /// (or 0) to the program's end plus five actuator time constants.
    ///
    /// The grid is the sample grid with long silences left out (`longestSampledSilence`), so the
    /// cost follows the events and curve points, not the timeline's length: an event at 3600 s
    /// renders as fast as one at 1 s. Every row's time is still a whole multiple of the sample period.
    public func render(_ pattern: HapticPattern, sampleRate: Double = 1000) -> EnvelopeRender {
        let sampleRate = sampleRate.isNaN ? 1000 : min(Self.sampleRates.upperBound, max(Self.sampleRates.lowerBound, sampleRate))
        let program = compiler.compile(pattern)
        var plain = compiler.options
        plain.feltOnsetCompensation = false
        let requested = PatternCompiler(profile: compiler.profile, options: plain).compileDetailed(pattern)

        let first = min(0, Double(program.segments.first?.start ?? 0) * 1e-6)
        let startIndex = Int((first * sampleRate).rounded(.down))
        let ringDown = 5 * compiler.response.timeConstant
        let end = program.duration + ringDown
        let endIndex = max(startIndex, Int((end * sampleRate).rounded(.up)))
        var spans: [(Double, Double)] = program.segments.map { (Double($0.start) * 1e-6, Double($0.end) * 1e-6 + ringDown) }
        for e in requested.eventPieces {
            for p in e.pieces { spans.append((Double(p.t0) * 1e-6, Double(p.t1) * 1e-6)) }
        }
        let times = Self.grid(from: startIndex, to: endIndex, active: spans, sampleRate: sampleRate)

        let intensity = sample(requested.mixed, at: times)
        let drive = Self.driveColumn(program.segments, at: times)
        let sharpness = sharpnessColumn(requested, at: times)
        let accel = EnvelopePredictor(response: compiler.response).predict(program: program, times: times, spacing: 1 / sampleRate)
        return EnvelopeRender(sampleRate: sampleRate, time: times, intensity: intensity, sharpness: sharpness,
                              drive: drive, acceleration: accel, programDuration: program.duration)
    }

    /// `program.drive(at:)` at each of `times` (increasing): the same numbers, found by walking
    /// the segments once instead of a binary search and a libm floor per row.
    static func driveColumn(_ segments: [DriveSegment], at times: [Double]) -> [Double] {
        var started = 0  // segments whose start is at or before the row
        return times.map { t in
            let us = floorMicros(t)
            while started < segments.count && segments[started].start <= us { started += 1 }
            guard started > 0 else { return 0 }
            let s = segments[started - 1]
            return (us < s.end ? s.amplitude(at: us) : 0) / 255
        }
    }

    /// Sample times from index `start` to `end` (of period 1/`sampleRate`) covering every active
    /// span (s) with a sample of margin, with silences longer than `longestSampledSilence`
    /// reduced to their end rows.
    static func grid(from start: Int, to end: Int, active spans: [(Double, Double)], sampleRate: Double) -> [Double] {
        let gap = max(2, Int((longestSampledSilence * sampleRate).rounded()))
        var ranges: [(Int, Int)] = spans.compactMap { span in
            guard span.0.isFinite, span.1.isFinite else { return nil }
            let a = max(start, Int((span.0 * sampleRate).rounded(.down)) - 1)
            let b = min(end, Int((span.1 * sampleRate).rounded(.up)) + 1)
            return a <= b ? (a, b) : nil
        }
        ranges.append((start, start))
        ranges.append((end, end))
        ranges.sort { $0.0 < $1.0 }
        var times: [Double] = []
        var last = Int.min  // last index emitted
        for (a, b) in ranges {
            var from = a
            if last != .min {
                if b <= last { continue }
                // Fill short silences; leave long ones out.
                from = a - last <= gap ? last + 1 : max(a, last + 1)
            }
            for i in from...b { times.append(Double(i) / sampleRate) }
            last = b
        }
        return times
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
        // Flat arrays per event, in onset order (no tuple copies in the per-sample loop).
        var order = c.eventPieces.indices.filter { !c.eventPieces[$0].pieces.isEmpty }
        // The sort compares the same keys as before, read once (not two struct copies a comparison).
        let firstStart = c.eventPieces.map { $0.pieces.first?.t0 ?? 0 }
        order.sort { firstStart[$0] < firstStart[$1] }
        let starts = order.map { c.eventPieces[$0].pieces[0].t0 }
        let ends = order.map { c.eventPieces[$0].pieces[c.eventPieces[$0].pieces.count - 1].t1 }
        let base = order.map { c.eventPieces[$0].shape.baseSharpness }
        let pieces = order.map { c.eventPieces[$0].pieces }
        var active: [Int] = []
        var next = 0
        var out = [Double](repeating: 0, count: times.count)
        for (i, t) in times.enumerated() {
            let us = micros(t)
            while next < starts.count && starts[next] <= us { active.append(next); next += 1 }
            if !active.isEmpty { active.removeAll { ends[$0] <= us } }
            if active.isEmpty { continue }
            var num = 0.0, den = 0.0, plain = 0.0
            let control = c.controls.sharpness.value(at: t)
            for j in active {
                let s = HapticSemantics.clamp01(base[j] + control)
                var w = 0.0
                for p in pieces[j] where p.t0 <= us && us < p.t1 {
                    w = p.value(at: us)
                    break
                }
                num += s * w
                den += w
                plain += s
            }
            out[i] = den > 0 ? num / den : plain / Double(active.count)
        }
        return out
    }
}
