/// What `thrum bench` runs.
public struct BenchOptions: Sendable {
    /// Fewer runs and events (for tests).
    public var quick: Bool
    /// The AHAP corpus for the wire-bytes figure; nil skips it with a note.
    public var corpusDirectory: String?

    /// Creates options.
    public init(quick: Bool = false, corpusDirectory: String? = nil) {
        self.quick = quick
        self.corpusDirectory = corpusDirectory
    }
}

/// Runs every figure of DESIGN.md §6 that lives on the host side, in virtual time, in one run.
public enum Bench {
    /// Runs the bench.
    public static func run(_ options: BenchOptions) throws -> BenchReport {
        var report = BenchReport()
        report.notes.append("virtual time; USB full-speed link model (1 ms frames) with 0.5–8 ms uniform OS scheduling jitter on host wake-ups and reads; device crystal ±100 ppm")
        try onsetFigures(options, into: &report)
        try clockFigures(options, into: &report)
        return report
    }

    static func seeds(_ options: BenchOptions, full: Int, quick: Int) -> [UInt64] {
        (1...(options.quick ? quick : full)).map(UInt64.init)
    }

    static func onsetFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var ours: [Double] = []
        var naive: [Double] = []
        var missing = 0
        var naiveMissing = 0
        let count = options.quick ? 20 : 100
        for seed in seeds(options, full: 4, quick: 1) {
            let a = try OnsetBench.scheduled(seed: seed, count: count, link: BenchSetup.jitteredUSB(seed: seed))
            ours += a.errors.map(abs)
            missing += a.missing
            let b = try OnsetBench.naive(seed: seed, count: count, link: BenchSetup.jitteredUSB(seed: seed))
            naive += b.errors.map(abs)
            naiveMissing += b.missing
        }
        let o = Percentiles(ours), n = Percentiles(naive)
        let p99 = o.p99, np99 = n.p99
        report.figures.append(BenchFigure(key: "onset_error_p50_us", label: "onset error p50", value: o.p50, unit: "µs", baseline: n.p50, baselineLabel: "naive send-when-due"))
        report.figures.append(BenchFigure(
            key: "onset_error_p99_us", label: "onset error p99", value: p99, unit: "µs", baseline: np99, baselineLabel: "naive send-when-due",
            target: "≤ 50, ≥ 40× better", met: p99.flatMap { p in np99.map { p <= 50 && $0 / max(p, 1) >= 40 } }))
        report.figures.append(BenchFigure(key: "onset_error_max_us", label: "onset error max", value: o.max, unit: "µs", baseline: n.max, baselineLabel: "naive send-when-due"))
        report.figures.append(BenchFigure(key: "naive_onset_error_p99_us", label: "naive host onset error p99", value: np99, unit: "µs"))
        report.figures.append(BenchFigure(
            key: "onset_events_missing", label: "events without a drive onset", value: Double(missing), unit: "",
            baseline: Double(naiveMissing), baselineLabel: "naive", target: "0", met: missing == 0,
            note: "\(o.count) events measured (|error|, device drive onset vs host intent, true time)"))
    }

    static func clockFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var errors: [Double] = []
        var symmetric: [Double] = []
        var drift: [Double] = []
        for seed in seeds(options, full: 8, quick: 2) {
            let r = try ClockBench.run(seed: seed, link: BenchSetup.jitteredUSB(seed: seed &+ 100), measure: options.quick ? 0.5 : 1)
            errors += r.errors
            symmetric += r.symmetricErrors
            drift += r.driftErrors
        }
        var stress: [Double] = []
        for seed in seeds(options, full: 2, quick: 1) {
            stress += try ClockBench.run(seed: seed, link: BenchSetup.jitteredUSB(seed: seed &+ 200, placement: .wire), measure: 0.5).errors
        }
        let e = Percentiles(errors), s = Percentiles(symmetric), d = Percentiles(drift)
        report.figures.append(BenchFigure(
            key: "clock_offset_error_p99_us", label: "clock offset error p99 (after 2 s, ±100 ppm)", value: e.p99, unit: "µs",
            baseline: s.p99, baselineLabel: "symmetric legs assumed", target: "≤ 20", met: e.p99.map { $0 <= 20 }))
        report.figures.append(BenchFigure(key: "clock_offset_error_p50_us", label: "clock offset error p50", value: e.p50, unit: "µs"))
        report.figures.append(BenchFigure(key: "clock_drift_error_ppm", label: "clock drift error (max over runs)", value: d.max, unit: "ppm"))
        report.figures.append(BenchFigure(
            key: "clock_offset_error_p99_wire_jitter_us", label: "clock offset error p99, jitter on the wire", value: Percentiles(stress).p99, unit: "µs",
            note: "stress model: jitter between the host's timestamp and the bytes leaving, both ways; the outbound floor then includes the jitter floor, which no round-trip method can see"))
    }
}
