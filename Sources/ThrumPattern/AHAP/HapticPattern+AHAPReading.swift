import Foundation

extension HapticPattern {
    /// Reads an AHAP file, like `CHHapticPattern(contentsOf:)`. Use `AHAPReader` to get warnings too.
    public init(contentsOf path: String, options: AHAPReader.Options = .strict) throws(PatternError) {
        self = try AHAPReader(options: options).read(contentsOf: path).pattern
    }

    /// Reads an AHAP file given by a file URL; other URLs give `fileNotFound` (−4851), as in Core Haptics.
    public init(contentsOf url: URL, options: AHAPReader.Options = .strict) throws(PatternError) {
        guard url.isFileURL else {
            throw PatternError(
                code: .fileNotFound, file: url.absoluteString, line: 0, column: 0, path: "",
                message: "not a file URL: expected a file:// URL of an .ahap or .json file")
        }
        try self.init(contentsOf: url.path, options: options)
    }

    /// Reads AHAP bytes; `sourceName` names them in diagnostics.
    public init(data: [UInt8], sourceName: String = "<data>", options: AHAPReader.Options = .strict) throws(PatternError) {
        self = try AHAPReader(options: options).read(data: data, sourceName: sourceName).pattern
    }

    /// Reads AHAP bytes held in `Data`.
    public init(data: Data, sourceName: String = "<data>", options: AHAPReader.Options = .strict) throws(PatternError) {
        self = try AHAPReader(options: options).read(data: data, sourceName: sourceName).pattern
    }

    /// Reads an AHAP-shaped dictionary (keys are `HapticPattern.Key` raw values), like
    /// `CHHapticPattern(dictionary:)`.
    public init(dictionary: [String: Any]) throws(PatternError) {
        self = try AHAPReader().read(dictionary: dictionary).pattern
    }

    /// Reads a dictionary keyed by `HapticPattern.Key` (nested dictionaries may use either key
    /// type; values may be `HapticEvent.EventType`, `HapticEvent.ParameterID` or
    /// `HapticDynamicParameter.ID`), like Core Haptics code written against `CHHapticPattern.Key`.
    public init(dictionary: [Key: Any]) throws(PatternError) {
        var plain: [String: Any] = [:]
        for (k, v) in dictionary { plain[k.rawValue] = v }
        try self.init(dictionary: plain)
    }
}
