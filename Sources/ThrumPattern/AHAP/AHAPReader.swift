import Foundation

/// Reads AHAP documents into `HapticPattern`s with Core Haptics' validation rules, reporting
/// errors with `CHHapticError` codes and source positions, and collecting warnings.
public struct AHAPReader: Sendable {
    /// How to read.
    public struct Options: Sendable, Equatable {
        /// Accept trailing commas (Core Haptics itself does not).
        public var lenient: Bool
        /// A directory searched for relative `EventWaveformPath`s, after the AHAP file's own
        /// directory (when reading a file) — the first and only one when reading data.
        public var baseDirectory: String?
        /// Warn when an `AudioCustom` event's audio file cannot be found.
        public var checksAudioFiles: Bool

        /// Creates options.
        public init(lenient: Bool = false, baseDirectory: String? = nil, checksAudioFiles: Bool = true) {
            self.lenient = lenient
            self.baseDirectory = baseDirectory
            self.checksAudioFiles = checksAudioFiles
        }

        /// Core Haptics' rules: strict JSON.
        public static let strict = Options()
        /// Strict rules but trailing commas accepted.
        public static let lenient = Options(lenient: true)
    }

    /// The options in use.
    public var options: Options

    /// Creates a reader.
    public init(options: Options = .strict) {
        self.options = options
    }

    /// Reads an AHAP file. Like `CHHapticPattern(contentsOf:)` the name must end in `.ahap` or
    /// `.json` (else `notSupported`, −4809); a file that cannot be read gives `fileNotFound` (−4851)
    /// with the reason: missing, a directory, a FIFO or device, no permission, larger than 1 GiB.
    public func read(contentsOf path: String) throws(PatternError) -> AHAPDocument {
        let name = (path as NSString).lastPathComponent
        let ext = (path as NSString).pathExtension.lowercased()
        var isDirectory: ObjCBool = false
        if ext != "ahap" && ext != "json", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            // `thrum validate examples/`: said as what it is, not "unsupported file type".
            let shown = TextEscaping.escaped(path.hasSuffix("/") ? String(path.dropLast()) : path)
            throw PatternError(
                code: .fileNotFound, file: name, line: 0, column: 0, path: "",
                message: "cannot read '\(TextEscaping.escaped(path))': it is a directory, not a regular file; give the files in it (\(shown)/*.ahap)")
        }
        guard ext == "ahap" || ext == "json" else {
            throw PatternError(
                code: .notSupported, file: name, line: 0, column: 0, path: "",
                message: path == "-"
                    ? "'-' (standard input) is not read: give the file's name, ending in .ahap or .json"
                    : ext.isEmpty
                        ? "unsupported file type (no extension): expected a file ending in .ahap or .json"
                        : "unsupported file type \(TextEscaping.quotedExcerpt("." + ext)): expected a file ending in .ahap or .json")
        }
        let directory = FilePathText.directory(of: path)
        var searched = [directory.isEmpty ? "." : directory]
        if let base = options.baseDirectory, base != searched[0] { searched.append(base) }
        switch PatternFile.bytes(at: path) {
        case .success(let bytes): return try read(bytes: bytes, sourceName: name, audioSearchDirectories: searched)
        case .failure(let failure):
            throw PatternError(
                code: .fileNotFound, file: name, line: 0, column: 0, path: "",
                message: "cannot read '\(TextEscaping.escaped(path))': \(failure.reason)")
        }
    }

    /// Reads AHAP bytes; `sourceName` names them in diagnostics.
    public func read(data: [UInt8], sourceName: String = "<data>") throws(PatternError) -> AHAPDocument {
        try read(bytes: data, sourceName: sourceName, audioSearchDirectories: options.baseDirectory.map { [$0] } ?? [])
    }

    /// Reads AHAP bytes held in `Data`.
    public func read(data: Data, sourceName: String = "<data>") throws(PatternError) -> AHAPDocument {
        try read(data: [UInt8](data), sourceName: sourceName)
    }

    /// Reads AHAP text.
    public func read(string: String, sourceName: String = "<string>") throws(PatternError) -> AHAPDocument {
        try read(data: Array(string.utf8), sourceName: sourceName)
    }

    /// Reads an AHAP-shaped dictionary, like `CHHapticPattern(dictionary:)`. Diagnostics name the
    /// source `<dictionary>` and carry line and column 0.
    public func read(dictionary: [String: Any]) throws(PatternError) -> AHAPDocument {
        let root = try JSONNode(anyValue: dictionary, path: "")
        return try read(json: root, sourceName: "<dictionary>")
    }

    /// Decodes an already parsed JSON tree.
    public func read(json root: JSONNode, sourceName: String) throws(PatternError) -> AHAPDocument {
        try decode(root, sourceName: sourceName, audioSearchDirectories: options.baseDirectory.map { [$0] } ?? [])
    }

    /// Parses and decodes in one pass: each `Pattern` element is decoded as soon as it is
    /// parsed onto the scanner's tape, in place, and then dropped from it, so memory follows the
    /// pattern, not the JSON of the file, and no element becomes a `JSONNode` tree.
    /// Diagnostics are those of `read(json:)` on the whole tree (a syntax error anywhere first,
    /// then the top level, then the elements in order): `StreamingReaderTests` compares them.
    private func read(bytes: [UInt8], sourceName: String, audioSearchDirectories: [String]) throws(PatternError)
        -> AHAPDocument
    {
        var decoder = AHAPDecoder(
            file: sourceName, audioSearchDirectories: audioSearchDirectories, checksAudioFiles: options.checksAudioFiles)
        var sink = AHAPElementSink(decoder: decoder)
        let tape: JSONTape
        do {
            var scanner = JSONScanner(bytes: bytes, options: options.lenient ? .lenient : .strict)
            scanner.vocabulary = AHAPDecoder.vocabulary
            tape = try scanner.parseTape(streaming: HapticPattern.Key.pattern.rawValue, into: &sink)
        } catch {
            throw syntaxError(error, sourceName: sourceName)
        }
        let pattern = try tape.withValue(at: 0) { (root) throws(PatternError) in try decoder.decode(root, streamed: sink) }
        return AHAPDocument(pattern: pattern, warnings: decoder.warnings)
    }

    /// `invalidPatternData` (−4813) at the syntax error.
    private func syntaxError(_ error: JSONSyntaxError, sourceName: String) -> PatternError {
        PatternError(
            code: .invalidPatternData, file: sourceName, line: error.position.line, column: error.position.column,
            path: error.path, message: "invalid JSON: \(error.message)")
    }

    private func decode(_ root: JSONNode, sourceName: String, audioSearchDirectories: [String]) throws(PatternError)
        -> AHAPDocument
    {
        var decoder = AHAPDecoder(
            file: sourceName, audioSearchDirectories: audioSearchDirectories, checksAudioFiles: options.checksAudioFiles)
        let pattern = try JSONTape(root, vocabulary: AHAPDecoder.vocabulary).withValue(at: 0) { (root) throws(PatternError) in try decoder.decode(root) }
        return AHAPDocument(pattern: pattern, warnings: decoder.warnings)
    }
}

/// A pattern read from AHAP, with the warnings found while reading it.
public struct AHAPDocument: Equatable, Sendable {
    /// The pattern.
    public var pattern: HapticPattern
    /// Warnings in document order.
    public var warnings: [PatternWarning]

    /// Creates a document.
    public init(pattern: HapticPattern, warnings: [PatternWarning]) {
        self.pattern = pattern
        self.warnings = warnings
    }
}
