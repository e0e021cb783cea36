import Foundation
import ThrumPattern

/// `thrum presets`: list the system presets (Apple's semantic haptics and the DRV2605L ROM
/// effects) by family.
enum PresetsCommand: Subcommand {
    static let name = "presets"
    static let summary = "list the system presets (UIKit, SwiftUI, watchOS, macOS, DRV2605L ROM)"
    static let usage = """
        Usage: thrum presets [options]

        Lists every system preset with a one-line description, grouped by family. Play or render
        one as preset:NAME (e.g. `thrum render preset:impact.heavy`). The Apple presets are
        Thrum's designs, not Apple's waveforms; ROM effect envelopes are approximations
        (see docs/presets.md).

        Options:
          --family F   only one family: uikit, swiftui, watchos, macos or rom
          --json       print a JSON array
        """

    /// The `--family` words.
    static let familyWords: [(word: String, family: SystemPreset.Family, title: String)] = [
        ("uikit", .uiKit, "UIKit feedback generators"),
        ("swiftui", .swiftUI, "SwiftUI SensoryFeedback"),
        ("watchos", .watchOS, "watchOS WKHapticType"),
        ("macos", .macOS, "macOS NSHapticFeedbackManager"),
        ("rom", .drv2605lROM, "DRV2605L ROM effects (approximate envelopes; played by the driver)"),
    ]

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let familyWord = try arguments.option("family")
        let json = arguments.flag("json")
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()

        var families = familyWords
        if let familyWord {
            let key = familyWord.lowercased()
            guard let match = familyWords.first(where: { $0.word == key }) else {
                let words = familyWords.map(\.word).joined(separator: ", ")
                throw UsageError(message: "unknown family '\(familyWord)' (known: \(words))")
            }
            families = [match]
        }

        if json {
            JSONOutput.print(families.flatMap { entry in SystemPresets.presets(in: entry.family).map { jsonObject($0, word: entry.word) } })
            return 0
        }
        var blocks: [String] = []
        for entry in families {
            let presets = SystemPresets.presets(in: entry.family)
            let width = min(28, presets.map(\.name.count).max() ?? 0)
            var lines = ["\(entry.title) [\(entry.word)], \(presets.count) presets:"]
            for preset in presets {
                let name = preset.name.padding(toLength: max(width, preset.name.count), withPad: " ", startingAt: 0)
                let length = String(format: "%5.0f ms", preset.approximateDuration * 1000)
                lines.append("  \(name)  \(length)  \(describe(preset))")
            }
            blocks.append(lines.joined(separator: "\n"))
        }
        print(blocks.joined(separator: "\n\n"))
        return 0
    }

    /// The one-line description: the summary, plus what the preset shares or takes.
    static func describe(_ preset: SystemPreset) -> String {
        var text = preset.summary
        if let sameAs = preset.sameAs { text += " (= \(sameAs))" }
        if preset.acceptsIntensity { text += " [intensity 0…1]" }
        if let effect = preset.romEffect { text += " — \(ROMPreview.describe(effect.envelope))" }
        return text
    }

    /// One preset as JSON.
    static func jsonObject(_ preset: SystemPreset, word: String) -> [String: Any] {
        var object: [String: Any] = [
            "name": preset.name,
            "aliases": preset.aliases,
            "family": word,
            "summary": preset.summary,
            "api": preset.api,
            "same_as": JSONOutput.orNull(preset.sameAs),
            "accepts_intensity": preset.acceptsIntensity,
            "approximate_duration_s": preset.approximateDuration,
            "kind": preset.romEffect == nil ? "pattern" : "rom",
        ]
        if let effect = preset.romEffect {
            object["rom_id"] = Int(effect.id)
            object["rom_kind"] = effect.kind.rawValue
            object["strength_percent"] = Int(effect.strengthPercent)
            object["envelope"] = ROMPreview.describe(effect.envelope)
        } else {
            object["events"] = preset.pattern?.events.filter(\.type.isHaptic).count ?? 0
        }
        return object
    }
}
