import ThrumPattern

/// The tables of docs/presets.md, from the preset catalogue.
public enum PresetDocTables {
    /// One event as the docs write it: `tap 0.1 I0.6 S0.5` or `hold 0–0.06 I0.7 S0.15 att0.015 rel0.03`.
    public static func describe(_ e: HapticEvent) -> String {
        let i = DocNumber.short(Double(e.value(of: .hapticIntensity) ?? 1))
        let s = DocNumber.short(Double(e.value(of: .hapticSharpness) ?? 0.5))
        if e.type == .hapticTransient { return "tap \(DocNumber.short(e.relativeTime)) I\(i) S\(s)" }
        var text = "hold \(DocNumber.short(e.relativeTime))–\(DocNumber.short(e.relativeTime + e.duration)) I\(i) S\(s)"
        if let a = e.value(of: .attackTime) { text += " att\(DocNumber.short(Double(a)))" }
        if let r = e.value(of: .releaseTime) { text += " rel\(DocNumber.short(Double(r)))" }
        return text
    }

    /// The envelope cell of a pattern preset: its events joined by `; `.
    public static func envelopeCell(_ p: HapticPattern) -> String { p.events.map(describe).joined(separator: "; ") }

    /// `| \`name\` | envelope or = \`other\` | ≈ ms |` for every Apple preset, in catalogue order:
    /// the first three cells of the docs' rows (the fourth, the rationale, is prose).
    public static func appleRows() -> [String] {
        SystemPresets.all.compactMap { preset in
            guard let p = preset.pattern else { return nil }
            let cell = preset.sameAs.map { "= `\($0)`" } ?? envelopeCell(p)
            return "| `\(preset.name)` | \(cell) | \(DocNumber.short(preset.approximateDuration * 1000)) |"
        }
    }

    /// The docs' row of a ROM effect.
    public static func romRow(_ e: ROMEffect) -> String {
        let shape: String
        switch e.envelope.shape {
        case .pulses(let n, let length, let every):
            shape =
                n == 1
                ? "1 pulse \(DocNumber.short(length * 1000)) ms"
                : "\(n) pulses \(DocNumber.short(length * 1000)) ms, every \(DocNumber.short(every * 1000)) ms"
        case .steady: shape = "steady"
        case .ramp(let a, let b): shape = "ramp \(DocNumber.short(Double(a)))→\(DocNumber.short(Double(b)))"
        }
        let ms = DocNumber.short(e.envelope.duration * 1000)
        return
            "| \(e.id) | \(e.name) | `rom.\(e.slug)` | \(e.kind.rawValue) | \(e.strengthPercent) | \(ms) | \(shape) | \(e.envelope.edges.rawValue) |"
    }

    /// The whole ROM table: header and one row per effect.
    public static func romTable() -> [String] {
        [
            "| ID | TI name | Slug name | Kind | Strength % | ≈ ms | Shape | Edges |",
            "|---|---|---|---|---|---|---|---|",
        ]
            + ROMEffect.all.map(romRow)
    }
}
