import Foundation
import ThrumPattern

/// What a command-line pattern argument names: an AHAP file or a system preset (`preset:NAME`).
///
/// Shared by the commands that take a pattern (`render`, later `play`), so that they all accept
/// the same spellings and fail with the same messages.
struct PatternSource {
    /// What to play.
    enum Content {
        /// A Core Haptics pattern: read from a file, or an Apple preset's design.
        case pattern(HapticPattern)
        /// A DRV2605L ROM library effect, played by the driver's own sequencer.
        case romEffect(ROMEffect)
    }

    /// The prefix that selects a system preset.
    static let presetPrefix = "preset:"

    /// What to play.
    var content: Content
    /// How to name the source in output: the file path as given, or `preset:NAME` with the
    /// preset's canonical name.
    var displayName: String
    /// The preset, when the argument named one.
    var preset: SystemPreset?
    /// Warnings from reading an AHAP file (empty for presets).
    var warnings: [PatternWarning]
    /// How the AHAP file was read (nil for presets): to find an event in it again.
    var readOptions: AHAPReader.Options? = nil

    /// Where `events[index]` of the pattern was written, to start a one-line message about the
    /// `field` asked for: `file:line:column: Pattern[i].Event.EventDuration` for a file (the
    /// event's first key of `keys` it has, else the event), the model's field path
    /// (`preset:NAME: events[3].duration`) for a preset or a file that no longer reads.
    func place(ofEvent index: Int, field: String, keys: [HapticPattern.Key]) -> String {
        if let readOptions, let source = AHAPReader(options: readOptions).source(ofEvent: index, member: keys, inFileAt: displayName) {
            return "\(displayName):\(source)"
        }
        return "\(displayName): events[\(index)].\(field)"
    }

    /// Takes the pattern out of the source (nil for ROM effects), leaving an empty one in its
    /// place, so that the caller holds the only reference to a large pattern and can free it.
    mutating func takePattern() -> HapticPattern? {
        guard case .pattern(let pattern) = content else { return nil }
        content = .pattern(HapticPattern(events: [], parameters: [], parameterCurves: []))
        return pattern
    }

    /// The pattern, when the source is one (nil for ROM effects).
    var pattern: HapticPattern? {
        if case .pattern(let pattern) = content { return pattern }
        return nil
    }

    /// Whether `argument` names a preset rather than a file.
    static func isPreset(_ argument: String) -> Bool { argument.hasPrefix(presetPrefix) }

    /// Loads `argument`: `preset:NAME` resolves a system preset (see `SystemPresets`), anything
    /// else is read as an AHAP file.
    ///
    /// - Parameters:
    ///   - lenient: accept trailing commas in an AHAP file.
    ///   - intensity: 0…1 for the impact presets (like `impactOccurred(intensity:)`); nil for the
    ///     default. Giving it for a file or another preset is an error.
    /// - Throws: `CommandFailure` with a one-line message: the reader's diagnostic for a file
    ///   (`file:line:column: error[-4822]: …`), an unknown preset with suggestions, or an
    ///   intensity the preset does not take.
    static func load(argument: String, lenient: Bool, intensity: Float? = nil) throws(CommandFailure) -> PatternSource {
        if isPreset(argument) {
            return try loadPreset(named: String(argument.dropFirst(presetPrefix.count)), intensity: intensity)
        }
        if intensity != nil {
            throw CommandFailure(message: "--intensity applies only to the impact presets (preset:impact.*), not to a file")
        }
        do {
            let options = AHAPReader.Options(lenient: lenient)
            let document = try AHAPReader(options: options).read(contentsOf: argument)
            let name = lastPathComponent(argument)
            let warnings = document.warnings.map { warning in
                var located = warning
                if located.file == name { located.file = argument }
                return located
            }
            return PatternSource(
                content: .pattern(document.pattern), displayName: argument, preset: nil, warnings: warnings, readOptions: options)
        } catch {
            var located = error
            if located.file == lastPathComponent(argument) { located.file = argument }
            throw CommandFailure(message: located.description)
        }
    }

    /// Resolves one preset by name (aliases and letter case accepted).
    private static func loadPreset(named name: String, intensity: Float?) throws(CommandFailure) -> PatternSource {
        guard !name.isEmpty else {
            throw CommandFailure(message: "'\(presetPrefix)' needs a preset name, e.g. preset:impact.heavy (see `thrum presets`)")
        }
        do {
            let preset = try SystemPresets.preset(named: name)
            let display = presetPrefix + preset.name
            switch try preset.content(intensity: intensity) {
            case .pattern(let pattern):
                return PatternSource(content: .pattern(pattern), displayName: display, preset: preset, warnings: [])
            case .romEffect(let id):
                guard let effect = ROMEffect.effect(id: id) else {
                    throw CommandFailure(message: "preset '\(preset.name)' names ROM effect \(id), which does not exist")
                }
                return PatternSource(content: .romEffect(effect), displayName: display, preset: preset, warnings: [])
            }
        } catch let error as PresetError {
            var message = error.description
            if case .unknownName = error { message += " (run `thrum presets` for the list)" }
            throw CommandFailure(message: message)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }
}

/// The last component of a path (what `AHAPReader` names a file in its diagnostics).
private func lastPathComponent(_ path: String) -> String { (path as NSString).lastPathComponent }
