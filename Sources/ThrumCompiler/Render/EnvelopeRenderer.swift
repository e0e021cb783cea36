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

    /// Creates a render from its columns (of equal length).
    public init(
        sampleRate: Double, time: [Double] = [], intensity: [Double] = [], sharpness: [Double] = [], drive: [Double] = [],
        acceleration: [Double] = [], programDuration: Double = 0
    ) {
        self.sampleRate = sampleRate
        self.time = time
        self.intensity = intensity
        self.sharpness = sharpness
        self.drive = drive
        self.acceleration = acceleration
        self.programDuration = programDuration
    }

    /// The columns as CSV with a header row.
    public func csv() -> String {
        Self.columnNames.joined(separator: ",") + "\n" + csvRows()
    }

    /// The rows as CSV lines, without the header (a chunk of a longer CSV).
    public func csvRows() -> String {
        var s = ""
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
        var rows = self.rows(pattern, sampleRate: sampleRate)
        var all = EnvelopeRender(
            sampleRate: rows.sampleRate, time: [], intensity: [], sharpness: [], drive: [], acceleration: [],
            programDuration: rows.programDuration)
        all.reserveCapacity(rows.count)
        while let chunk = rows.next() { all.append(chunk) }
        return all
    }

    /// The rows of `render(_:sampleRate:)`, produced a chunk at a time (`EnvelopeRows.next`), so
    /// that memory follows the pattern and the chunk, not the number of rows. The pattern is
    /// consumed: given the only reference to its events (`rows(consume pattern)`), they are freed
    /// once compiled, before the compiled program is built, instead of being held beside it.
    public func rows(_ pattern: consuming HapticPattern, sampleRate: Double = 1000) -> EnvelopeRows {
        let sampleRate = sampleRate.isNaN ? 1000 : min(Self.sampleRates.upperBound, max(Self.sampleRates.lowerBound, sampleRate))
        // One compilation: the drive program (pre-shifted) and the requested envelope (the same
        // events at their requested times, mixed as the rows read it).
        let compilation = compiler.compileDetailed(releasing: &pattern, keepEventPieces: false, requestedEnvelope: true)
        let segments = compilation.program.segments, duration = compilation.program.duration

        let first = min(0, Double(segments.first?.start ?? 0) * 1e-6)
        let startIndex = Int((first * sampleRate).rounded(.down))
        let ringDown = 5 * compiler.response.timeConstant
        let end = duration + ringDown
        let endIndex = max(startIndex, Int((end * sampleRate).rounded(.up)))
        // Active spans: each drive segment with its ring-down, each event's requested envelope.
        var spans = SpanRuns(from: startIndex, to: endIndex, sampleRate: sampleRate)
        for s in segments { spans.add(Double(s.start) * 1e-6, Double(s.end) * 1e-6 + ringDown) }
        for p in compilation.pieces { spans.add(Double(p.t0) * 1e-6, Double(p.t1) * 1e-6) }
        let runs = spans.grid(gap: max(2, Int((Self.longestSampledSilence * sampleRate).rounded())))
        return EnvelopeRows(
            sampleRate: sampleRate, programDuration: duration, runs: runs,
            intensity: PieceSampler(Mixer.Sweep(compiler.mixer, compilation.pieces)), drive: DriveSampler(segments),
            sharpness: SharpnessSampler(compilation),
            acceleration: EnvelopePredictor.Stepper(
                EnvelopePredictor(response: compiler.response), segments: segments, spacing: 1 / sampleRate))
    }
}

/// The sample indices a render covers: the union of the active spans (each widened by a sample
/// either side, clipped to the render's range) and the render's two ends, with holes of at most
/// `gap` samples filled. Spans that arrive in order (drive segments, events in onset order) are
/// merged as they come, so memory follows the runs, not the spans.
struct SpanRuns {
    let start: Int
    let end: Int
    let sampleRate: Double
    /// Merged index ranges (inclusive), in the order they were built.
    private var runs: [(from: Int, to: Int)] = []

    init(from start: Int, to end: Int, sampleRate: Double) {
        self.start = start
        self.end = end
        self.sampleRate = sampleRate
        runs.append((start, start))
    }

    /// Adds the span [`a`, `b`] s.
    mutating func add(_ a: Double, _ b: Double) {
        guard a.isFinite, b.isFinite else { return }
        let from = max(start, Int((a * sampleRate).rounded(.down)) - 1)
        let to = min(end, Int((b * sampleRate).rounded(.up)) + 1)
        guard from <= to else { return }
        // Touching or overlapping the last run (and not before it): merge in place.
        if let last = runs.last, from >= last.from, from <= last.to + 1 {
            if to > last.to { runs[runs.count - 1].to = to }
            return
        }
        runs.append((from, to))
    }

    /// The runs of sample indices, increasing and disjoint, with holes of at most `gap` filled.
    func grid(gap: Int) -> [(from: Int, to: Int)] {
        var all = runs
        all.append((end, end))
        if !isSorted(all, by: { $0.from < $1.from }) { all.sort { $0.from < $1.from } }
        var out: [(from: Int, to: Int)] = []
        for r in all {
            guard let last = out.last else {
                out.append(r)
                continue
            }
            if r.to <= last.to { continue }
            if r.from - last.to <= gap {
                out[out.count - 1].to = r.to  // a short silence (or an overlap) is sampled
            } else {
                out.append(r)
            }
        }
        return out
    }
}

extension EnvelopeRender {
    /// Reserves room for `rows` rows in every column.
    mutating func reserveCapacity(_ rows: Int) {
        time.reserveCapacity(rows)
        intensity.reserveCapacity(rows)
        sharpness.reserveCapacity(rows)
        drive.reserveCapacity(rows)
        acceleration.reserveCapacity(rows)
    }

    /// Appends the rows of `chunk` (taken at the same sample rate).
    public mutating func append(_ chunk: EnvelopeRender) {
        time.append(contentsOf: chunk.time)
        intensity.append(contentsOf: chunk.intensity)
        sharpness.append(contentsOf: chunk.sharpness)
        drive.append(contentsOf: chunk.drive)
        acceleration.append(contentsOf: chunk.acceleration)
    }
}
