/// Turns a parsed JSON tree into a `HapticPattern`, applying Core Haptics' rules (reference §6)
/// and collecting warnings. One instance per document.
struct AHAPDecoder {
    let file: String
    /// Directories searched, in order, for relative `EventWaveformPath`s.
    let audioSearchDirectories: [String]
    let checksAudioFiles: Bool
    private(set) var warnings: [PatternWarning] = []

    init(file: String, audioSearchDirectories: [String], checksAudioFiles: Bool) {
        self.file = file
        self.audioSearchDirectories = audioSearchDirectories
        self.checksAudioFiles = checksAudioFiles
    }

    mutating func decode(_ root: JSONNode) throws(PatternError) -> HapticPattern {
        guard root.members != nil else { throw notAnObjectError(root) }
        guard let patternMember = root.member(HapticPattern.Key.pattern.rawValue) else {
            throw missingPatternError(root)
        }
        let top = fields(of: root, path: "", allowed: ["Version", "Metadata", "Pattern"], context: "top level")
        let version = try decodeVersion(top["Version"])
        let metadata = top["Metadata"]?.value.jsonValue

        guard let items = patternMember.value.elements else {
            throw error(
                .invalidPatternDictionary, patternMember.value.position, "Pattern",
                "'Pattern' must be an array of elements, found \(article(patternMember.value.typeName))")
        }
        var pattern = HapticPattern(events: [], parameters: [], parameterCurves: [], version: version, metadata: metadata)
        for (i, item) in items.enumerated() {
            try decodeElement(item, path: "Pattern[\(i)]", into: &pattern)
        }
        if pattern.events.isEmpty && pattern.parameters.isEmpty && pattern.parameterCurves.isEmpty {
            throw error(
                .invalidPatternDictionary, patternMember.value.position, "Pattern",
                "empty pattern: expected at least one Event, Parameter or ParameterCurve element")
        }
        return pattern
    }

    private mutating func decodeVersion(_ member: JSONMember?) throws(PatternError) -> Double {
        guard let member else { return 1.0 }
        guard let v = member.value.numberValue else {
            warn(
                .versionAssumed, member.value.position, "Version",
                "'Version' is \(article(member.value.typeName)), expected a number; 1.0 assumed")
            return 1.0
        }
        guard v >= 1.0 && v <= 1.1 else {
            throw error(
                .notSupported, member.value.position, "Version",
                "unsupported Version \(JSONNumberFormat.text(v)): expected a number from 1.0 to 1.1")
        }
        return v
    }

    private mutating func decodeElement(_ item: JSONNode, path: String, into pattern: inout HapticPattern)
        throws(PatternError)
    {
        guard let members = item.members else {
            warn(
                .ignoredValue, item.position, path,
                "pattern element is \(article(item.typeName)), expected an object holding an Event, Parameter or ParameterCurve; ignored"
            )
            return
        }
        if members.isEmpty {
            warn(.ignoredValue, item.position, path, "empty pattern element; ignored")
        }
        for member in uniqueMembers(of: item, path: path) {
            let p = path + "." + member.key
            switch member.key {
            case "Event": pattern.events.append(try decodeEvent(member.value, path: p))
            case "Parameter": pattern.parameters.append(try decodeParameter(member.value, path: p))
            case "ParameterCurve": pattern.parameterCurves.append(try decodeCurve(member.value, path: p))
            default:
                warnUnknownKey(member, path: p, known: ["Event", "Parameter", "ParameterCurve"], context: "pattern element")
            }
        }
    }
}

// MARK: - Diagnostics helpers

extension AHAPDecoder {
    func error(_ code: HapticErrorCode, _ at: SourcePosition, _ path: String, _ message: String) -> PatternError {
        PatternError(code: code, file: file, line: at.line, column: at.column, path: path, message: message)
    }

    mutating func warn(_ kind: PatternWarning.Kind, _ at: SourcePosition, _ path: String, _ message: String) {
        warnings.append(
            PatternWarning(kind: kind, file: file, line: at.line, column: at.column, path: path, message: message))
    }

    /// The members of an object, one per key (the last occurrence wins), warning about duplicates.
    mutating func uniqueMembers(of node: JSONNode, path: String) -> [JSONMember] {
        let members = node.members ?? []
        if !Self.hasDuplicateKeys(members) { return members }
        var lastIndex: [String: Int] = [:]
        for (i, m) in members.enumerated() {
            if lastIndex[m.key] != nil {
                warn(
                    .duplicateKey, m.keyPosition, join(path, m.key),
                    "duplicate key '\(m.key)'; the last occurrence wins")
            }
            lastIndex[m.key] = i
        }
        return members.enumerated().filter { lastIndex[$0.element.key] == $0.offset }.map(\.element)
    }

    /// Whether two members share a key (a pairwise scan for the small objects AHAP is made of).
    static func hasDuplicateKeys(_ members: [JSONMember]) -> Bool {
        guard members.count > 1 else { return false }
        guard members.count <= 16 else { return Set(members.map(\.key)).count != members.count }
        for i in 1..<members.count {
            for j in 0..<i where members[j].key == members[i].key { return true }
        }
        return false
    }

    /// An object's members by key (last wins, nulls count as absent), warning about duplicate and
    /// unknown keys.
    mutating func fields(of node: JSONNode, path: String, allowed: [String], context: String) -> Fields {
        var result = Fields()
        for m in uniqueMembers(of: node, path: path) {
            guard allowed.contains(m.key) else {
                warnUnknownKey(m, path: join(path, m.key), known: allowed, context: context)
                continue
            }
            if !m.value.isNull { result.members.append(m) }
        }
        return result
    }

    /// An object's known, non-null members with unique keys, looked up by key with a linear scan
    /// (AHAP objects have a handful of members; a dictionary per object costs more than it saves).
    struct Fields {
        var members: [JSONMember] = []

        subscript(key: String) -> JSONMember? {
            members.first { $0.key == key }
        }
    }

    mutating func warnUnknownKey(_ member: JSONMember, path: String, known: [String], context: String) {
        var message = "unknown key '\(member.key)' in \(context); ignored"
        if let guess = closeMatch(member.key, among: known) { message += " (did you mean '\(guess)'?)" }
        warn(.unknownKey, member.keyPosition, path, message)
    }

    /// A number, reading booleans as 0 and 1 (as `NSNumber` does for Core Haptics).
    func number(_ node: JSONNode) -> Double? {
        switch node.kind {
        case .number(let d): return d
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// Clamps `value` into `range`, warning when it had to.
    mutating func clamp(_ value: Double, to range: ClosedRange<Float>, what: String, at member: JSONMember, path: String)
        -> Float
    {
        let clamped: Float
        if value < Double(range.lowerBound) {
            clamped = range.lowerBound
        } else if value > Double(range.upperBound) {
            clamped = range.upperBound
        } else {
            return Float(value)
        }
        warn(
            .valueClamped, member.value.position, path,
            "\(what) \(JSONNumberFormat.text(value)) is outside \(rangeText(range)); clamped to \(clamped.description)")
        return clamped
    }

    func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func rangeText(_ r: ClosedRange<Float>) -> String { "\(r.lowerBound.description)…\(r.upperBound.description)" }

    func article(_ typeName: String) -> String {
        typeName == "object" || typeName == "array" ? "an \(typeName)" : "a \(typeName)"
    }
}

/// A known key that differs from `key` only in case or a trailing "s".
func closeMatch(_ key: String, among known: [String]) -> String? {
    let k = key.lowercased()
    return known.first { candidate in
        let c = candidate.lowercased()
        return c == k || c + "s" == k || c == k + "s"
    }
}
