/// The catalogue of system presets: Apple's semantic haptics (UIKit, SwiftUI, watchOS, macOS) and
/// the DRV2605L ROM effects, found by command-line name.
///
/// Names: `impact.light|medium|heavy|soft|rigid`, `selection`, `notification.success|warning|error`,
/// `canvas.alignment|pathComplete`, `sensory.*`, `watch.*`, `mac.generic|alignment|levelChange`,
/// and `rom.1` … `rom.123` (also `rom.<slug of TI's name>`, e.g. `rom.strong-click-100`).
/// Lookup ignores letter case. The table is a constant; nothing here is mutable.
public enum SystemPresets {
    /// Every preset, Apple presets first (in the order of the families), then `rom.1` … `rom.123`.
    public static let all: [SystemPreset] = applePresets + ROMEffect.all.map(romPreset)

    /// Every name and alias a preset can be found by, in catalogue order.
    public static let names: [String] = all.flatMap { [$0.name] + $0.aliases }

    /// Lower-cased name or alias → index into `all`.
    static let index: [String: Int] = {
        var map: [String: Int] = [:]
        for (i, preset) in all.enumerated() {
            for name in [preset.name] + preset.aliases { map[name.lowercased()] = i }
        }
        return map
    }()

    /// The preset called `name` (or one of its aliases; letter case ignored).
    ///
    /// - Throws: `PresetError.unknownName` with the closest names as suggestions.
    public static func preset(named name: String) throws(PresetError) -> SystemPreset {
        let key = name.trimmingWhitespace().lowercased()
        if let i = index[key] { return all[i] }
        throw .unknownName(name, suggestions: suggestions(for: name))
    }

    /// What to play for preset `name` at `intensity` (0…1; nil means the preset's default, full
    /// intensity). Only the impact styles take an intensity, as with `impactOccurred(intensity:)`.
    ///
    /// - Throws: `PresetError.unknownName` (with suggestions), `.intensityNotAccepted`,
    ///   `.intensityOutOfRange`.
    public static func pattern(for name: String, intensity: Float? = nil) throws(PresetError) -> SystemPreset.Content {
        try preset(named: name).content(intensity: intensity)
    }

    /// The presets of one family, in catalogue order.
    public static func presets(in family: SystemPreset.Family) -> [SystemPreset] {
        all.filter { $0.family == family }
    }

    /// Up to `limit` known names closest to `name` (edit distance, letter case ignored), best first;
    /// empty when nothing is reasonably close.
    public static func suggestions(for name: String, limit: Int = 3) -> [String] {
        let query = name.trimmingWhitespace().lowercased()
        guard !query.isEmpty else { return [] }
        // A name that some known names start with (e.g. `impact`, `watch.nav`) suggests those.
        let prefixed = names.filter { $0.lowercased().hasPrefix(query) }
        if !prefixed.isEmpty { return Array(prefixed.prefix(limit)) }
        let tolerance = max(2, query.count / 3)
        var scored: [(name: String, distance: Int, order: Int)] = []
        for (order, candidate) in names.enumerated() {
            let d = editDistance(query, candidate.lowercased(), limit: tolerance)
            if d <= tolerance { scored.append((candidate, d, order)) }
        }
        scored.sort { ($0.distance, $0.order) < ($1.distance, $1.order) }
        guard let best = scored.first?.distance else { return [] }
        // Keep only the best-scoring names, so one clear match stands alone.
        return Array(scored.filter { $0.distance == best }.prefix(limit).map(\.name))
    }

    /// Levenshtein distance between `a` and `b`, stopping early once it exceeds `limit`
    /// (then any value above `limit` is returned).
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if abs(x.count - y.count) > limit { return limit + 1 }
        var previous = Array(0...y.count)
        var current = Array(repeating: 0, count: y.count + 1)
        for i in 1...max(x.count, 1) where !x.isEmpty {
            current[0] = i
            var rowMin = current[0]
            for j in stride(from: 1, through: y.count, by: 1) {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return x.isEmpty ? y.count : previous[y.count]
    }

    /// The preset for one ROM effect: `rom.<id>`, alias `rom.<slug>`.
    static func romPreset(_ effect: ROMEffect) -> SystemPreset {
        SystemPreset(
            name: "rom.\(effect.id)", aliases: ["rom." + effect.slug], family: .drv2605lROM,
            summary: effect.name, api: "DRV2605L ROM waveform \(effect.id) (library 6 for LRA)",
            content: .romEffect(id: effect.id))
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
