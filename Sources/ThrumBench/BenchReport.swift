import ThrumSim
import ThrumHarness
/// One measured figure of `thrum bench`, beside its baseline and target.
public struct BenchFigure: Sendable {
    /// JSON key (snake case), e.g. `onset_error_p99_us`.
    public var key: String
    /// What was measured, for the table.
    public var label: String
    /// The measured value (nil when it could not be measured; `note` says why).
    public var value: Double?
    /// Unit for the table (`µs`, `ms`, `ppm`, `B/s`, `events/s`, `×`, count).
    public var unit: String
    /// The baseline's value, if the figure has one.
    public var baseline: Double?
    /// What the baseline is.
    public var baselineLabel: String
    /// The target in words, e.g. `≤ 50`.
    public var target: String
    /// Whether the target is met (nil: no target).
    public var met: Bool?
    /// An honest qualifier, printed under the table.
    public var note: String?

    /// Creates a figure.
    public init(key: String, label: String, value: Double?, unit: String, baseline: Double? = nil,
                baselineLabel: String = "", target: String = "", met: Bool? = nil, note: String? = nil) {
        self.key = key
        self.label = label
        self.value = value
        self.unit = unit
        self.baseline = baseline
        self.baselineLabel = baselineLabel
        self.target = target
        self.met = met
        self.note = note
    }
}

/// Everything one bench run measured.
public struct BenchReport: Sendable {
    /// The figures, in reporting order.
    public var figures: [BenchFigure] = []
    /// Notes that apply to the run as a whole.
    public var notes: [String] = []
    /// The link matrix: every timing figure per link model.
    public var links: [LinkMatrixBench.Row] = []

    /// Creates an empty report.
    public init() {}

    /// The figure with `key`.
    public subscript(key: String) -> BenchFigure? { figures.first { $0.key == key } }

    /// One JSON object: every figure's value under its key, baselines under `<key>_baseline`,
    /// and `notes` as an array of strings.
    public var json: String {
        var parts: [String] = []
        for f in figures {
            parts.append("\"\(f.key)\": \(Self.number(f.value))")
            if let b = f.baseline { parts.append("\"\(f.key)_baseline\": \(Self.number(b))") }
            if let met = f.met { parts.append("\"\(f.key)_met\": \(met)") }
        }
        let notes = (notes + figures.compactMap { f in f.note.map { "\(f.key): \($0)" } }).map(Self.quoted)
        parts.append("\"notes\": [\(notes.joined(separator: ", "))]")
        let links = links.map { row in
            Self.quoted(row.link) + ": {" + Self.linkFigures(row).map { "\"\($0.key)\": \(Self.number($0.value))" }.joined(separator: ", ") + "}"
        }
        parts.append("\"links\": {\(links.joined(separator: ", "))}")
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// The figures of one link, by JSON key (the contract of `thrum bench --json`'s `links`).
    public static func linkFigures(_ row: LinkMatrixBench.Row) -> [(key: String, label: String, value: Double?)] {
        let halfWidths = row.boundHalfWidths
        return [
            ("inter_onset_error_p99_us", "inter-onset error p99 µs", Percentiles(row.interOnset.map(abs)).p99),
            ("inter_onset_error_p50_us", "inter-onset error p50 µs", Percentiles(row.interOnset.map(abs)).p50),
            ("settled_inter_onset_error_p99_us", "inter-onset p99 µs, settled", Percentiles(row.settledInterOnset.map(abs)).p99),
            ("start_drift_bound_ppm", "drift ± at start ppm (median)", Percentiles(row.startDriftBound).p50),
            ("alignment_error_p50_us", "alignment error p50 µs", Percentiles(row.alignment.map(abs)).p50),
            ("alignment_error_p99_us", "alignment error p99 µs", row.alignmentP99),
            ("naive_alignment_error_p99_us", "send-when-due p99 µs", Percentiles(row.naive.map(abs)).p99),
            ("symmetric_alignment_error_p99_us", "symmetric pings p99 µs", Percentiles(row.symmetric.map(abs)).p99),
            ("bound_contains_truth_ratio", "bound holds truth", row.containment),
            ("bound_width_mean_us", "bound ± mean µs", halfWidths.isEmpty ? nil : halfWidths.reduce(0, +) / Double(halfWidths.count)),
            ("prepared_start_latency_p50_ms", "prepared start p50 ms", Percentiles(row.prepared).p50),
            ("prepared_start_latency_p99_ms", "prepared start p99 ms", Percentiles(row.prepared).p99),
            ("late_events_in_stall", "late in 100 ms stall", row.stallEvents > 0 ? Double(row.lateInStall) : nil),
            ("parameter_change_latency_p99_ms", "parameter change p99 ms", Percentiles(row.parameterLatency).p99),
            ("stop_latency_p99_ms", "stop p99 ms", Percentiles(row.stopLatency).p99),
            ("idle_overhead_host_bytes_per_s", "idle host → device B/s", row.idleHostBytesPerSecond),
            ("idle_overhead_device_bytes_per_s", "idle device → host B/s", row.idleDeviceBytesPerSecond),
            ("events", "events", Double(row.events)),
            ("events_missing", "events missing", Double(row.missing)),
        ]
    }

    /// The link matrix as a table: one row per figure, one column per link.
    public var linkTable: String {
        guard let first = links.first else { return "" }
        let keys = Self.linkFigures(first)
        var rows: [[String]] = [["figure"] + links.map(\.link)]
        for (i, k) in keys.enumerated() {
            rows.append([k.label] + links.map { Self.linkFigures($0)[i].value.map(Self.format) ?? "n/a" })
        }
        var widths = Array(repeating: 0, count: rows[0].count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.enumerated().map { n, row in
            let line = row.enumerated().map { i, cell in cell + String(repeating: " ", count: widths[i] - cell.count) }.joined(separator: "  ")
            return n == 0 ? line + "\n" + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") : line
        }.joined(separator: "\n")
    }

    /// A readable table: figure, value, baseline, target, met.
    public var table: String {
        let header = ["figure", "value", "baseline", "target", "met?"]
        var rows: [[String]] = [header]
        for f in figures {
            let baseline = f.baseline.map { "\(Self.format($0)) \(f.unit) (\(f.baselineLabel))" } ?? (f.baselineLabel.isEmpty ? "—" : f.baselineLabel)
            let met = f.met.map { $0 ? "yes" : "NO" } ?? "—"
            rows.append([f.label, f.value.map { "\(Self.format($0)) \(f.unit)" } ?? "n/a", baseline, f.target.isEmpty ? "—" : f.target, met])
        }
        var widths = Array(repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var lines: [String] = []
        for (n, row) in rows.enumerated() {
            lines.append(row.enumerated().map { i, cell in cell + String(repeating: " ", count: widths[i] - cell.count) }.joined(separator: "  "))
            if n == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        if !links.isEmpty { lines.append(""); lines.append("link matrix (shipped defaults, truth from the chip):"); lines.append(linkTable) }
        let notes = notes + figures.compactMap { f in f.note.map { "\(f.label): \($0)" } }
        if !notes.isEmpty { lines.append(""); lines += notes.map { "note: " + $0 } }
        return lines.joined(separator: "\n")
    }

    static func format(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let magnitude = abs(x)
        let decimals = magnitude >= 1000 ? 0 : magnitude >= 10 ? 1 : magnitude >= 0.1 ? 2 : 3
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (x * scale).rounded() / scale
        var text = "\(rounded)"
        if decimals == 0, text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    static func number(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "null" }
        return format(x)
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if c.value < 0x20 { out += "\\u00" + (c.value < 0x10 ? "0" : "") + String(c.value, radix: 16) } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }
}
