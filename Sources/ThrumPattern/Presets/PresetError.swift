/// Why a system preset could not be resolved.
public enum PresetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No preset has this name; `suggestions` are the closest names (possibly empty).
    case unknownName(String, suggestions: [String])
    /// An intensity was given to a preset that takes none (only the impact styles do).
    case intensityNotAccepted(preset: String)
    /// The intensity is outside 0…1 (or not a number).
    case intensityOutOfRange(Float, preset: String)

    /// A one-line message, e.g. `no preset named 'impact.hevy'; did you mean 'impact.heavy'?`.
    public var description: String {
        switch self {
        case .unknownName(let name, let suggestions):
            var text = "no preset named '\(name)'"
            if !suggestions.isEmpty {
                let quoted = suggestions.map { "'\($0)'" }
                let list = quoted.count == 1
                    ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
                text += "; did you mean \(list)?"
            }
            return text
        case .intensityNotAccepted(let preset):
            return "preset '\(preset)' takes no intensity (only the impact styles do)"
        case .intensityOutOfRange(let value, let preset):
            return "intensity \(value) for preset '\(preset)' is outside 0…1"
        }
    }
}
