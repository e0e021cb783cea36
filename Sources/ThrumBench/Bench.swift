import ThrumEngine
import ThrumSim
import ThrumHarness
import Foundation
/// What `thrum bench` runs.
public struct BenchOptions: Sendable {
    /// Fewer runs and events (for tests).
    public var quick: Bool
    /// The smallest runs that still yield every figure of the quick bench, under the same keys
    /// (for tests of the output's shape; the figures are too noisy to mean anything). Implies `quick`.
    public var smoke: Bool
    /// Run the link matrix on this link only (a ``LinkCatalogue`` name); nil runs every link.
    public var link: String?
    /// Run only this group of figures (one of ``Bench/figureGroups``); nil runs all of them.
    public var only: String?

    /// Creates options.
    public init(quick: Bool = false, smoke: Bool = false, link: String? = nil, only: String? = nil) {
        self.quick = quick || smoke
        self.smoke = smoke
        self.link = link
        self.only = only
    }
}

/// Runs every figure of DESIGN.md §6 that lives on the host side, in virtual time, in one run.
public enum Bench {
    /// The figure groups `BenchOptions.only` can select (figures that need no link matrix).
    public static let figureGroups = ["compile", "envelope"]

    /// Runs the bench.
    public static func run(_ options: BenchOptions) throws -> BenchReport {
        var report = BenchReport()
        switch options.only {
        case nil: break
        case "compile":
            compileFigures(options, into: &report)
            return report
        case "envelope":
            try envelopeFigures(options, into: &report)
            return report
        case let other?: throw BenchError.unknownFigureGroup(other)
        }
        report.notes.append(
            "virtual time; the shipped defaults of HapticEngine, DeviceSession and the clock model; device crystal ±100 ppm; "
                + "truth = the simulated chip's first non-zero RTP_INPUT write (true time); single-link figures on usb-fs")
        let profiles: [LinkProfile]
        if let name = options.link {
            guard let profile = LinkCatalogue.profile(named: name) else { throw BenchError.unknownLink(name) }
            profiles = [profile]
        } else {
            profiles = LinkCatalogue.all
        }
        for profile in profiles {
            report.links.append(try LinkMatrixBench.run(link: profile, plan: LinkMatrixBench.Plan(quick: options.quick, smoke: options.smoke)))
        }
        let main = report.links.first { $0.link == LinkCatalogue.usbFullSpeed.name } ?? report.links[0]
        onsetFigures(main, into: &report)
        try clockFigures(options, into: &report)
        try startFigures(options, main: main, into: &report)
        try firstPlayFigures(options, into: &report)
        try lossFigures(options, into: &report)
        try wireFigures(options, into: &report)
        try libraryFigures(options, into: &report)
        try feltFigures(options, into: &report)
        try envelopeFigures(options, into: &report)
        compileFigures(options, into: &report)
        try largePatternFigures(options, into: &report)
        try twoDeviceFigures(options, into: &report)
        try audioFigures(options, into: &report)
        return report
    }

    static func twoDeviceFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var atOnce = TwoDeviceBench.Result(), later = TwoDeviceBench.Result(), ownModels = TwoDeviceBench.Result()
        let count = planned(options, full: 60, quick: 20, smoke: 4)
        let laterStart = twoDeviceLaterStart(options)
        for pair in seeds(options, full: 16, quick: 1) {
            try TwoDeviceBench.run(link: LinkCatalogue.usbFullSpeed, seed: 2 * pair - 1, count: count, into: &atOnce)
            try TwoDeviceBench.run(
                link: LinkCatalogue.usbFullSpeed, seed: 2 * pair - 1, count: count, startAfter: laterStart, into: &later)
        }
        for pair in seeds(options, full: 8, quick: 1) {
            try TwoDeviceBench.run(link: LinkCatalogue.usbFullSpeed.withoutStartOfFrames, seed: 2 * pair - 1, count: count, into: &ownModels)
        }
        func p50(_ skew: Percentiles) -> String { skew.p50.map { String(Int($0.rounded())) } ?? "–" }
        let skew = Percentiles(atOnce.skews.map(abs)), laterSkew = Percentiles(later.skews.map(abs))
        report.figures.append(BenchFigure(
            key: "two_device_skew_p99_us", label: "two devices on one timeline, onset skew p99 (usb-fs, ±100 ppm opposite)",
            value: skew.p99, unit: "µs", target: "≤ 100", met: skew.p99.map { $0 <= 100 },
            note: "true skew between the two chips' first non-zero drive, started at once after connecting; p50 \(p50(skew)) µs; "
                + "\(atOnce.compared) events, \(atOnce.missing) not reported by both"))
        report.figures.append(BenchFigure(
            key: "two_device_skew_later_p99_us",
            label: "two devices, started \(String(format: "%g", laterStart)) s after connecting, onset skew p99", value: laterSkew.p99, unit: "µs",
            target: "≤ 100", met: laterSkew.p99.map { $0 <= 100 },
            note: "the group's links ping every \(Int((HapticEngineGroup.defaultProbeInterval.seconds * 1000).rounded())) ms without traffic; p50 \(p50(laterSkew)) µs; "
                + "\(later.compared) events, \(later.missing) not reported by both"))
        let own = Percentiles(ownModels.skews.map(abs))
        report.figures.append(BenchFigure(
            key: "two_device_skew_without_frame_times_p99_us",
            label: "two devices without frame times (each on its own clock model), onset skew p99", value: own.p99, unit: "µs",
            note: "usb-fs with the start-of-frame times hidden from the devices, as for devices behind serial bridges or of protocol "
                + "version 2, started at once; p50 \(p50(own)) µs; mean ± \(ownModels.bounds.isEmpty ? "–" : String(Int((ownModels.bounds.reduce(0, +) / Double(ownModels.bounds.count)).rounded()))) µs; "
                + "bound held \(ownModels.contained) of \(ownModels.compared)"))
        let both = atOnce.bounds + later.bounds
        report.figures.append(BenchFigure(
            key: "two_device_skew_bound_mean_us", label: "two devices: mean ± of the reported skew",
            value: both.isEmpty ? nil : both.reduce(0, +) / Double(both.count), unit: "µs"))
        let compared = atOnce.compared + later.compared, contained = atOnce.contained + later.contained
        report.figures.append(BenchFigure(
            key: "two_device_skew_bound_contains_truth_ratio", label: "two devices: reported skew's bound holds the true skew",
            value: compared > 0 ? Double(contained) / Double(compared) : nil, unit: "", target: "1",
            met: compared > 0 && contained == compared))
        report.figures.append(BenchFigure(
            key: "two_device_probing_host_bytes_per_s", label: "two devices: the group's probing while waiting, host → device per device",
            value: Percentiles(later.waitingHostBytesPerSecond).p50, unit: "B/s"))
        report.figures.append(BenchFigure(
            key: "two_device_probing_device_bytes_per_s", label: "two devices: the group's probing while waiting, device → host per device",
            value: Percentiles(later.waitingDeviceBytesPerSecond).p50, unit: "B/s"))
    }

    /// When the second two-device run starts, s after connecting: the startup probing long over
    /// (with `smoke`, just over).
    static func twoDeviceLaterStart(_ options: BenchOptions) -> Double {
        options.smoke ? BenchSetup.startupProbingEnd + 0.5 : 6
    }

    /// A developer's first play on the default (virtual) device, on the wall clock (``FirstPlayBench``).
    static func firstPlayFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var completions: [Double] = [], starts: [Double] = []
        for _ in 0..<(options.quick ? 1 : 5) {
            guard let r = try FirstPlayBench.run() else { continue }
            completions.append(r.completion)
            starts.append(r.start)
        }
        let p = Percentiles(completions), s = Percentiles(starts)
        report.figures.append(BenchFigure(
            key: "first_play_completion_s",
            label: "first play on the default virtual device: player.start → completion handler (wall clock, 0.5 s pattern)",
            value: p.p50, unit: "s", baseline: FirstPlayBench.patternLength, baselineLabel: "Core Haptics (the pattern's length)",
            target: "≤ 0.6 (debug build)", met: p.p50.map { $0 <= 0.6 },
            note: "median of \(completions.count) runs, each on a fresh device; max \(p.max.map { String(format: "%.3f", $0) } ?? "–") s; "
                + "engine.start() \(s.p50.map { String(format: "%.3f", $0) } ?? "–") s (connect, configure, converge, calibrate)"))
    }

    static func seeds(_ options: BenchOptions, full: Int, quick: Int) -> [UInt64] {
        (1...(options.smoke ? 1 : options.quick ? quick : full)).map(UInt64.init)
    }

    /// `full`, `quick` or `smoke` as the options ask.
    static func planned(_ options: BenchOptions, full: Int, quick: Int, smoke: Int) -> Int {
        options.smoke ? smoke : options.quick ? quick : full
    }

    /// The headline timing figures (today's top-level keys), from one link of the matrix.
    static func onsetFigures(_ row: LinkMatrixBench.Row, into report: inout BenchReport) {
        let o = Percentiles(row.alignment.map(abs)), n = Percentiles(row.naive.map(abs)), y = Percentiles(row.symmetric.map(abs))
        let p99 = o.p99
        let on = " on \(row.link)"
        report.figures.append(BenchFigure(
            key: "onset_error_p50_us", label: "alignment error p50" + on, value: o.p50, unit: "µs", baseline: n.p50,
            baselineLabel: "send-when-due"))
        report.figures.append(BenchFigure(
            key: "onset_error_p99_us", label: "alignment error p99 (intent → first non-zero drive)" + on, value: p99, unit: "µs",
            baseline: n.p99, baselineLabel: "send-when-due", target: "≤ 250, ≥ 10× send-when-due, ≥ 2× symmetric pings",
            met: p99.flatMap { p in n.p99.flatMap { np in y.p99.map { yp in p <= 250 && np / max(p, 1) >= 10 && yp / max(p, 1) >= 2 } } }))
        report.figures.append(BenchFigure(key: "onset_error_max_us", label: "alignment error max" + on, value: o.max, unit: "µs"))
        report.figures.append(BenchFigure(key: "naive_onset_error_p99_us", label: "send-when-due alignment error p99" + on, value: n.p99, unit: "µs"))
        report.figures.append(BenchFigure(
            key: "symmetric_onset_error_p99_us", label: "symmetric-ping scheduler alignment error p99" + on, value: y.p99, unit: "µs"))
        report.figures.append(BenchFigure(
            key: "onset_events_missing", label: "events the chip never started" + on, value: Double(row.missing), unit: "",
            target: "0", met: row.missing == 0, note: "\(row.events) events through HapticEngine, as `thrum play` plays them"))
        report.figures.append(BenchFigure(
            key: "engine_onset_error_p99_us", label: "alignment error p99 through HapticEngine" + on, value: p99, unit: "µs",
            note: "the one playback path: the same figure as onset_error_p99_us"))
        report.figures.append(BenchFigure(
            key: "drive_onset_error_p99_us", label: "first non-zero drive error p99" + on, value: p99, unit: "µs",
            note: "truth is the first non-zero drive: the same figure as onset_error_p99_us"))
        let r = Percentiles(row.interOnset.map(abs))
        report.figures.append(BenchFigure(
            key: "inter_onset_error_p99_us", label: "inter-onset interval error p99" + on, value: r.p99, unit: "µs", target: "≤ 10",
            met: r.p99.map { $0 <= 10 }))
        let settled = Percentiles(row.settledInterOnset.map(abs))
        report.figures.append(BenchFigure(
            key: "settled_inter_onset_error_p99_us",
            label: "inter-onset interval error p99, \(LinkMatrixBench.settleTime) s after connecting" + on, value: settled.p99,
            unit: "µs", target: "≤ 10", met: settled.p99.map { $0 <= 10 },
            note: "before then the host plays at the device's nominal rate: it cannot yet tell the crystal's error from the link's jitter"))
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
            let wire = JitteredLink(
                base: UsbFullSpeedLink(outboundLanding: LinkCatalogue.usbLanding, seed: seed &+ 201), jitter: BenchSetup.jitter,
                placement: .wire, seed: seed &+ 200)
            stress += try ClockBench.run(seed: seed, link: wire, measure: 0.5).errors
        }
        let e = Percentiles(errors), s = Percentiles(symmetric), d = Percentiles(drift)
        report.figures.append(BenchFigure(
            key: "clock_offset_error_p99_us", label: "clock offset error p99 (after 2 s, ±100 ppm)", value: e.p99, unit: "µs",
            baseline: s.p99, baselineLabel: "NTP-style min-RTT offset",
            note: "the model's estimate is the middle of its bracket: what it is off by is the link's delay asymmetry, which round trips cannot see (docs/timing.md)"))
        report.figures.append(BenchFigure(key: "clock_offset_error_p50_us", label: "clock offset error p50", value: e.p50, unit: "µs"))
        report.figures.append(BenchFigure(key: "clock_drift_error_ppm", label: "clock drift error (max over runs)", value: d.max, unit: "ppm"))
        report.figures.append(BenchFigure(
            key: "clock_offset_error_p99_wire_jitter_us", label: "clock offset error p99, jitter on the wire", value: Percentiles(stress).p99, unit: "µs",
            note: "stress model: jitter between the host's timestamp and the bytes leaving, both ways; the outbound floor then includes the jitter floor, which no round-trip method can see"))
    }

    static func startFigures(_ options: BenchOptions, main row: LinkMatrixBench.Row, into report: inout BenchReport) throws {
        var unprepared: [Double] = [], writes: [Double] = [], lapsed: [Double] = [], cold: [Double] = []
        var goStarts = 0, late = 0
        let on = " on \(row.link)"
        for seed in seeds(options, full: 4, quick: 1) {
            let r = try StartLatencyBench.run(seed: seed &+ 300, trials: planned(options, full: 40, quick: 8, smoke: 3))
            unprepared += r.unprepared
            writes += r.preparedSegmentStart
            lapsed += r.lapsed
            cold += r.cold
            late += r.preparedLate
        }
        let prepared = row.prepared
        goStarts = row.preparedGoStarts
        let u = Percentiles(unprepared), p = Percentiles(prepared), w = Percentiles(writes), l = Percentiles(lapsed)
        let c = Percentiles(cold)
        let note = "engine.prepare(pattern) (awake, calibrated, transient preloaded); start() sends a GO for the next USB frame + 0.2 ms; "
            + "call → chip's first non-zero drive, true time; \(goStarts)/\(prepared.count) starts were a GO, \(late) reported late. "
            + String(format: "segment start (first RTP write) p50/p99 %.2f/%.2f ms (a separate run on usb-fs)", w.p50 ?? .nan, w.p99 ?? .nan)
        report.figures.append(BenchFigure(
            key: "prepared_start_latency_p50_ms", label: "prepared start latency p50" + on, value: p.p50, unit: "ms",
            baseline: u.p50, baselineLabel: "unprepared", target: "≤ 1.5", met: p.p50.map { $0 <= 1.5 }, note: note))
        report.figures.append(BenchFigure(
            key: "prepared_start_latency_p99_ms", label: "prepared start latency p99" + on, value: p.p99, unit: "ms",
            baseline: u.p99, baselineLabel: "unprepared", target: "≤ 3", met: p.p99.map { $0 <= 3 }))
        report.figures.append(BenchFigure(
            key: "prepared_segment_start_p50_ms", label: "prepared start, call → segment start p50", value: w.p50, unit: "ms"))
        report.figures.append(BenchFigure(
            key: "lapsed_start_latency_p50_ms", label: "start after the prepared state lapsed p50", value: l.p50, unit: "ms",
            note: "driver in standby (device idle timeout); WAKE rides in the GO's frame and the start waits out the 500 µs standby exit"))
        report.figures.append(BenchFigure(
            key: "unprepared_start_latency_p50_ms", label: "unprepared start latency p50", value: u.p50, unit: "ms",
            note: "connected and synchronised; play() with the adaptive lead (1.5·(SRTT+4·RTTVAR)+3 ms, ≥ 10 ms)"))
        report.figures.append(BenchFigure(key: "unprepared_start_latency_p99_ms", label: "unprepared start latency p99", value: u.p99, unit: "ms"))
        report.figures.append(BenchFigure(key: "cold_start_latency_p50_ms", label: "cold start latency p50 (open+sync+play)", value: c.p50, unit: "ms"))
    }

    static func lossFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var total = LossBench.Result()
        for seed in seeds(options, full: 3, quick: 1) {
            let r = try LossBench.run(seed: seed &+ 400, count: planned(options, full: 80, quick: 25, smoke: 10))
            total.events += r.events
            total.lost += r.lost
            total.reportsMissing += r.reportsMissing
            total.retransmissions += r.retransmissions
            total.errors += r.errors.map(abs)
            total.chunksLost += r.chunksLost
            total.chunksCorrupted += r.chunksCorrupted
            total.framesSent += r.framesSent
        }
        let e = Percentiles(total.errors)
        report.figures.append(BenchFigure(
            key: "loss_retransmissions", label: "retransmissions at 5 % loss + 5 % corruption", value: Double(total.retransmissions), unit: "",
            note: "\(total.events) events; \(total.chunksLost) chunks lost, \(total.chunksCorrupted) corrupted (both ways)"))
        report.figures.append(BenchFigure(
            key: "loss_lost_events", label: "lost events at 5 % loss + 5 % corruption", value: Double(total.lost), unit: "",
            target: "0", met: total.lost == 0))
        report.figures.append(BenchFigure(
            key: "lost_events_at_faults", label: "lost events at faults (5 % loss + 5 % corruption)", value: Double(total.lost),
            unit: "", target: "0", met: total.lost == 0))
        report.figures.append(BenchFigure(
            key: "retransmit_ratio_at_faults", label: "retransmitted frames ÷ frames sent at faults",
            value: total.framesSent > 0 ? Double(total.retransmissions) / Double(total.framesSent) : nil, unit: ""))
        report.figures.append(BenchFigure(
            key: "loss_onset_error_p99_us", label: "alignment error p99 under loss", value: e.p99, unit: "µs",
            target: "timing held (as on usb-fs)", met: e.p99.map { p in p <= (report["onset_error_p99_us"]?.value ?? 0) * 1.5 + 50 }))
        report.figures.append(BenchFigure(
            key: "loss_onset_reports_missing", label: "onset reports lost on the way back", value: Double(total.reportsMissing), unit: "",
            note: "device frames are not retransmitted, so an ONSET in a lost device frame is not re-sent; the event itself played"))
    }

    static func wireFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        let patterns = try BenchPatterns.all()
        let r = WireBytesBench.run(patterns: patterns)
        let ratio = r.compactBytesPerSecond > 0 ? WireBytesBench.rtpBytesPerSecond / r.compactBytesPerSecond : nil
        report.figures.append(BenchFigure(
            key: "wire_bytes_per_second", label: "bytes on the wire per s of pattern", value: r.patterns > 0 ? r.compactBytesPerSecond : nil, unit: "B/s",
            baseline: WireBytesBench.rtpBytesPerSecond, baselineLabel: "1 kHz RTP",
            note: "the bench's \(r.patterns) patterns (examples and built ones, BenchPatterns), \(Int(r.seconds.rounded())) s in all, \(r.skipped) skipped (silent); the compact stream (protocol version 2) host→device, framing and shapes included, one connection; as SEGMENTs (versions 0 and 1) \(Int(r.bytesPerSecond.rounded())) B/s"))
        report.figures.append(BenchFigure(
            key: "wire_bytes_ratio_vs_rtp", label: "wire bytes, RTP stream ÷ ours", value: ratio, unit: "×", target: "≥ 50",
            met: ratio.map { $0 >= 50 }))
        let split = WireSplitBench.run(patterns: patterns)
        report.figures.append(BenchFigure(
            key: "wire_bytes_per_transient", label: "bytes on the wire per transient event (compact stream)", value: split.wirePerTransient, unit: "B",
            baseline: split.streamPerTransient, baselineLabel: "as SEGMENTs",
            target: "≤ 8", met: split.wirePerTransient.map { $0 <= 8 },
            note: "\(split.transients) transients of the transient-only patterns, played on one connection: frames packed full, framing and the \(split.shapesDefined) SHAPEs of the whole set included (each sent once); a stored library takes \(split.compactPerTransient.map { String(format: "%.1f", $0) } ?? "-") B of program per transient"))
        report.figures.append(BenchFigure(
            key: "wire_bytes_per_segment", label: "bytes on the wire per drive segment, continuous (compact stream)", value: split.wirePerSegment, unit: "B",
            baseline: split.streamPerSegment, baselineLabel: "as SEGMENTs", target: "≤ 4", met: split.wirePerSegment.map { $0 <= 4 },
            note: "\(split.segments) segments of the patterns without transients (FOLLOW runs), framing included"))
    }

    static func libraryFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var latencies: [Double] = []
        var flash: LibraryBench.Flash?
        var size = 0
        var readLatencies: [Double] = []
        var events = 0, cut = 0
        for seed in seeds(options, full: 2, quick: 1) {
            let r = try LibraryBench.run(seed: seed &+ 900, trials: planned(options, full: 40, quick: 8, smoke: 2))
            latencies += r.playLatencies
            readLatencies += r.storageReadLatencies
            events += r.events
            cut += r.cutEvents
            flash = flash ?? r.flash
            size = r.imageBytes
        }
        let l = Percentiles(latencies)
        report.figures.append(BenchFigure(
            key: "library_image_bytes", label: "preset library image (the 44 Apple presets)", value: Double(size), unit: "B",
            target: "≤ 4096 (examples/library with the 3 examples: tested)", met: size <= 4096))
        report.figures.append(BenchFigure(
            key: "play_by_id_start_latency_p50_ms", label: "play stored preset by id, start latency p50 on usb-fs", value: l.p50, unit: "ms",
            target: "≤ 1.5", met: l.p50.map { $0 <= 1.5 },
            note: "the preset played last again (the device keeps it decoded); one any-lane PLAY_PRESET with the prepared-start lead; call → chip's first non-zero drive, true time"))
        report.figures.append(BenchFigure(
            key: "play_by_id_start_latency_p99_ms", label: "play stored preset by id, start latency p99", value: l.p99, unit: "ms"))
        let r = Percentiles(readLatencies)
        report.figures.append(BenchFigure(
            key: "play_by_id_storage_read_latency_p50_ms", label: "play by id, another preset (read from storage first), start latency p50",
            value: r.p50, unit: "ms",
            note: "p99 \(r.p99.map { String(format: "%.2f", $0) } ?? "–") ms; the device scans the index and decodes the first entries from its 24LC256-class EEPROM at 400 kHz before it starts the preset, whole"))
        report.figures.append(BenchFigure(
            key: "play_by_id_cut_events", label: "stored preset events started trimmed or dropped", value: Double(cut), unit: "",
            target: "0", met: cut == 0, note: "of \(events) events"))
        if let f = flash {
            report.figures.append(BenchFigure(
                key: "flash_rate_bytes_per_s", label: "library flash rate (write, verify, switch)", value: f.bytesPerSecond, unit: "B/s",
                baseline: f.boundBytesPerSecond, baselineLabel: "what the \(f.limitedBy) allows",
                note: String(format: "limited by the %@: storage allows %.0f B/s (64-byte pages, 5 ms write cycle, read-back at 400 kHz), the link %.0f B/s (usb-fs, 52 data bytes per 64-byte frame)", f.limitedBy, f.storageBytesPerSecond, f.linkBytesPerSecond)))
            report.figures.append(BenchFigure(
                key: "flash_rate_fraction_of_limit", label: "flash rate ÷ the limit", value: f.fraction, unit: "",
                target: "≥ 0.70", met: f.fraction >= 0.7))
        }
    }

    static func feltFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var with: [Double] = [], without: [Double] = []
        for seed in seeds(options, full: 2, quick: 1) {
            let r = try FeltOnsetBench.run(seed: seed &+ 500, count: planned(options, full: 24, quick: 6, smoke: 3))
            with += r.compensated
            without += r.uncompensated
        }
        let w = Percentiles(with.map(abs)), n = Percentiles(without.map(abs))
        report.figures.append(BenchFigure(
            key: "felt_onset_error_max_ms", label: "felt onset − requested, transients, max |error|", value: w.max, unit: "ms",
            baseline: n.max, baselineLabel: "no pre-shift", target: "within ±2", met: w.max.map { $0 <= 2 }))
        report.figures.append(BenchFigure(
            key: "felt_onset_error_p50_ms", label: "felt onset − requested, median |error|", value: w.p50, unit: "ms",
            baseline: n.p50, baselineLabel: "no pre-shift"))
    }

    static func envelopeFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        let patterns = options.quick ? Array(EnvelopeErrorBench.syntheticPatterns().prefix(options.smoke ? 1 : 2)) : nil
        let r = try EnvelopeErrorBench.run(patterns: patterns)
        let ratio = r.ours > 0 ? r.ratio : nil
        let perPattern = r.patterns.map { String(format: "%@ %.1f/%.1f %%", $0.name, 100 * $0.ours, 100 * $0.baseline) }.joined(separator: ", ")
        report.figures.append(BenchFigure(
            key: "envelope_error_rms_pct", label: "envelope error, requested intensity vs LRA acceleration, RMS", value: 100 * r.ours, unit: "% FS",
            baseline: 100 * r.baseline, baselineLabel: "plain RTP, no overdrive/brake",
            note: EnvelopeErrorBench.note(r) + "; per pattern ours/baseline: " + perPattern))
        report.figures.append(BenchFigure(
            key: "envelope_error_ratio", label: "envelope error, plain RTP ÷ ours", value: ratio, unit: "×", target: "≥ 2",
            met: ratio.map { $0 >= 2 }, note: EnvelopeErrorBench.verdict(r)))
    }

    static func compileFigures(_ options: BenchOptions, into report: inout BenchReport) {
        let sizes = options.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]
        let results = CompileThroughputBench.run(sizes: sizes)
        func millions(_ x: Double) -> String { String(format: "%.2f", x / 1e6) }
        for r in results {
            report.figures.append(BenchFigure(
                key: "compile_events_per_second_\(r.events)", label: "compile throughput, \(r.events) events (median)", value: r.median,
                unit: "events/s", target: "≥ 2 M", met: r.median >= 2e6,
                note: "median of \(r.runs) runs; p25–p75 \(millions(r.p25))–\(millions(r.p75)) M/s, min–max \(millions(r.min))–\(millions(r.max)) M/s"))
        }
        for r in results {
            report.figures.append(BenchFigure(
                key: "compile_cpu_events_per_second_\(r.events)", label: "compile throughput on CPU time, \(r.events) events (median)",
                value: r.cpuMedian, unit: "events/s", target: "≥ 2 M", met: r.cpuMedian >= 2e6,
                note: "the same runs timed on the thread's CPU time (not counting other processes' turns on the core); p25–p75 \(millions(r.cpuP25))–\(millions(r.cpuP75)) M/s"))
        }
        if let first = results.first, let last = results.last, last.events > first.events {
            report.figures.append(BenchFigure(
                key: "compile_throughput_ratio_largest_to_smallest", label: "median throughput at largest ÷ smallest size",
                value: last.median / first.median, unit: "×", target: "≈ 1 (linear)", note: "wall clock; debug builds are several times slower"))
        }
    }
}

extension Bench {
    /// Reading 10⁶ events, rendering 10⁵ and reading and rendering 10⁶ (10⁴, 10³ and 10⁴ with
    /// `quick`), each beside its target; the read beside the former whole-tree reader.
    static func largePatternFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        let readEvents = options.quick ? 10_000 : 1_000_000
        let read = try LargePatternBench.validate(events: readEvents, runs: options.quick ? 1 : 3, baselineRuns: 1)
        let full = !options.quick
        report.figures.append(BenchFigure(
            key: "validate_\(LargePatternBench.sizeName(readEvents))_events_s",
            label: "read \(readEvents) AHAP events (the reading of `thrum validate`), median", value: read.median, unit: "s",
            baseline: read.baselineMedian, baselineLabel: "whole JSON tree first, then the same decoder (the reader's former path)",
            target: full ? "≤ 5" : "", met: full ? read.median.map { $0 <= 5 } : nil,
            note: "\(read.spread); transients every 50 ms, about 200 bytes an event; wall clock (release builds only); "
                + "peak memory of `thrum validate` is in docs/robustness.md (/usr/bin/time)"))
        let renderEvents = options.quick ? 1_000 : 100_000
        let render = LargePatternBench.render(events: renderEvents, runs: options.quick ? 1 : 3)
        report.figures.append(BenchFigure(
            key: "render_\(LargePatternBench.sizeName(renderEvents))_events_s",
            label: "render \(renderEvents) transients every 50 ms at 1 kHz (EnvelopeRenderer), median", value: render.median,
            unit: "s", target: full ? "≤ 2" : "", met: full ? render.median.map { $0 <= 2 } : nil,
            note: "\(render.spread); \(renderEvents / 20) s of pattern, a row per ms; the command adds reading and plotting "
                + "(docs/robustness.md); wall clock (release builds only)"))
        let documentEvents = options.quick ? 10_000 : 1_000_000
        let document = try LargePatternBench.renderDocument(events: documentEvents, runs: options.quick ? 1 : 3)
        report.figures.append(BenchFigure(
            key: "render_\(LargePatternBench.sizeName(documentEvents))_events_s",
            label: "read and render \(documentEvents) transients every 50 ms at 1 kHz, rows a chunk at a time, median",
            value: document.median, unit: "s", target: full ? "≤ 5" : "", met: full ? document.median.map { $0 <= 5 } : nil,
            note: "\(document.spread); \(documentEvents / 20) s of pattern, \(documentEvents / 20) thousand rows folded into "
                + "their peaks as `thrum render`'s summary does, never all held; peak memory (≤ 500 MB) is measured on the "
                + "command with /usr/bin/time (docs/robustness.md); wall clock (release builds only)"))
    }
}

/// Why the bench could not run.
public enum BenchError: Error, CustomStringConvertible {
    /// `--link NAME` named no link model.
    case unknownLink(String)
    /// `--only NAME` named no figure group.
    case unknownFigureGroup(String)

    public var description: String {
        switch self {
        case .unknownLink(let name):
            "no link model named '\(name)' (known: \(LinkCatalogue.all.map(\.name).joined(separator: ", ")))"
        case .unknownFigureGroup(let name):
            "no figure group named '\(name)' (known: \(Bench.figureGroups.joined(separator: ", ")))"
        }
    }
}
