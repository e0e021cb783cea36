import ThrumCompiler
import ThrumPattern
import ThrumTime

/// The two costs that grow with a file: reading a large AHAP document (what `thrum validate`
/// does) and rendering a long pattern (the sampling behind `thrum render`). Wall clock, so
/// meaningful in a release build; each is the median of a few runs, reported with its spread.
/// Peak memory is a process-wide figure (`getrusage` cannot isolate one call), so it is measured
/// on the command with `/usr/bin/time` and kept in docs/robustness.md.
public enum LargePatternBench {
    /// The timed runs of one case.
    public struct Result: Sendable, Equatable {
        /// Events in the pattern.
        public var events: Int
        /// Seconds of each timed run, in run order.
        public var durations: [Double]
        /// Seconds of each run of the baseline (empty when the case has none).
        public var baselineDurations: [Double]

        /// The median run, s (nil without runs).
        public var median: Double? { Percentiles(durations).p50 }
        /// The baseline's median run, s.
        public var baselineMedian: Double? { Percentiles(baselineDurations).p50 }
        /// "min–max s over N runs".
        public var spread: String { LargePatternBench.spread(durations) }
    }

    /// Reads an AHAP document of `events` transients `runs` times with `AHAPReader` (which
    /// decodes each element as it parses) and `baselineRuns` times the former way: the whole
    /// JSON tree first (`JSONParser`), then the decoder over it (`read(json:)`).
    public static func validate(
        events: Int, runs: Int, baselineRuns: Int, clock: any HostClock = MonotonicClock()
    ) throws -> Result {
        let bytes = ahap(events: events, spacing: 0.05)
        let reader = AHAPReader()
        var durations: [Double] = []
        for _ in 0..<runs {
            let start = clock.now()
            let document = try reader.read(data: bytes)
            durations.append((clock.now() - start).seconds)
            precondition(document.pattern.events.count == events)
        }
        var baseline: [Double] = []
        for _ in 0..<baselineRuns {
            let start = clock.now()
            let document = try reader.read(json: try JSONParser().parse(bytes), sourceName: "<data>")
            baseline.append((clock.now() - start).seconds)
            precondition(document.pattern.events.count == events)
        }
        return Result(events: events, durations: durations, baselineDurations: baseline)
    }

    /// Renders `events` transients every 50 ms (5 000 s of pattern at 10⁵ events: 5 million rows
    /// at 1 kHz, the case `thrum render` found hardest) `runs` times with `EnvelopeRenderer`: the
    /// compiles, the grid, the requested, drive and predicted acceleration columns. Reading the
    /// file and drawing the plots are not included.
    public static func render(events: Int, runs: Int, clock: any HostClock = MonotonicClock()) -> Result {
        let pattern = transients(events: events, spacing: 0.05)
        let renderer = EnvelopeRenderer(profile: .default)
        var durations: [Double] = []
        for _ in 0..<runs {
            let start = clock.now()
            let render = renderer.render(pattern, sampleRate: 1000)
            durations.append((clock.now() - start).seconds)
            precondition(render.count > events)
        }
        return Result(events: events, durations: durations, baselineDurations: [])
    }

    /// What `thrum render FILE.ahap` does with a pattern of `events` transients every 50 ms
    /// (10⁶: 50 000 s of pattern, 50 million rows at 1 kHz), in process, `runs` times: reads the
    /// AHAP document from memory, then makes the rows a chunk at a time (`EnvelopeRows`) and
    /// folds them into the peaks, as the command's text summary does. The rows are never all
    /// held; the result's `rows` is how many were made.
    public static func renderDocument(events: Int, runs: Int, clock: any HostClock = MonotonicClock()) throws -> Result {
        let bytes = ahap(events: events, spacing: 0.05)
        let renderer = EnvelopeRenderer(profile: .default)
        var durations: [Double] = []
        for _ in 0..<runs {
            let start = clock.now()
            // As `thrum render` does: the renderer gets the only reference to the pattern and
            // frees its parsed events once compiled.
            let pattern = try AHAPReader().read(data: bytes).pattern
            var rows = renderer.rows(consume pattern, sampleRate: 1000)
            var made = 0, peak = 0.0
            while let chunk = rows.next() {
                made += chunk.count
                peak = max(peak, chunk.acceleration.max() ?? 0, chunk.drive.max() ?? 0)
            }
            durations.append((clock.now() - start).seconds)
            precondition(made == rows.count && made > events && peak > 0)
        }
        return Result(events: events, durations: durations, baselineDurations: [])
    }

    /// An AHAP document of `events` transients `spacing` s apart with varying intensity and
    /// sharpness, one element a line (the shape `tools/gen-large-pattern.py` writes).
    public static func ahap(events: Int, spacing: Double) -> [UInt8] {
        var text = "{\n\"Version\": 1.0,\n\"Pattern\": [\n"
        text.reserveCapacity(events * 200 + 64)
        for i in 0..<events {
            let (intensity, sharpness) = levels(i)
            text += "{\"Event\": {\"Time\": \(Double(i) * spacing), \"EventType\": \"HapticTransient\", \"EventParameters\": ["
            text += "{\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": \(intensity)}, "
            text += "{\"ParameterID\": \"HapticSharpness\", \"ParameterValue\": \(sharpness)}]}}"
            text += i + 1 < events ? ",\n" : "\n"
        }
        text += "]\n}\n"
        return Array(text.utf8)
    }

    /// The same pattern as `ahap(events:spacing:)`, built in code.
    static func transients(events: Int, spacing: Double) -> HapticPattern {
        HapticPattern(
            events: (0..<events).map { i in
                let (intensity, sharpness) = levels(i)
                return HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [
                        HapticEventParameter(parameterID: .hapticIntensity, value: Float(intensity)),
                        HapticEventParameter(parameterID: .hapticSharpness, value: Float(sharpness)),
                    ], relativeTime: Double(i) * spacing)
            }, parameters: [], parameterCurves: [])
    }

    private static func levels(_ i: Int) -> (Double, Double) {
        (Double(30 + 7 * (i % 10)) / 100, Double(i % 7) / 10)
    }

    static func spread(_ durations: [Double]) -> String {
        guard let low = durations.min(), let high = durations.max() else { return "no runs" }
        return "\(seconds(low))–\(seconds(high)) s over \(durations.count) run\(durations.count == 1 ? "" : "s")"
    }

    static func seconds(_ x: Double) -> String {
        let hundredths = Int((x * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    /// `1e6` for 1 000 000, the power of ten of an exact power, else the number.
    public static func sizeName(_ n: Int) -> String {
        var k = 0, m = n
        while m >= 10 && m % 10 == 0 {
            m /= 10
            k += 1
        }
        return m == 1 && k > 0 ? "1e\(k)" : "\(n)"
    }
}
