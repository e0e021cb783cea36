/// The path of a value in the document (`Pattern[3].Event.Time`), rendered only when a
/// diagnostic names it: a valid document never builds the text of its paths. Passed as a
/// non-escaping closure, it costs nothing to hand down.
typealias LazyPath = () -> String

/// Turns a parsed JSON tree into a `HapticPattern`, applying Core Haptics' rules (reference §6)
/// and collecting warnings. One instance per document.
struct AHAPDecoder {
    let file: String
    /// Directories searched, in order, for relative `EventWaveformPath`s.
    let audioSearchDirectories: [String]
    let checksAudioFiles: Bool
    private(set) var warnings: [PatternWarning] = []
    /// The latest event time so far, and whether an earlier one was already reported out of order.
    private var latestEventTime: Double?
    private var reportedUnsortedEvents = false

    init(file: String, audioSearchDirectories: [String], checksAudioFiles: Bool) {
        self.file = file
        self.audioSearchDirectories = audioSearchDirectories
        self.checksAudioFiles = checksAudioFiles
    }

    mutating func decode(_ root: JSONNode) throws(PatternError) -> HapticPattern {
        let (patternMember, items, header) = try decodeTopLevel(root)
        var pattern = header
        for (i, item) in items.enumerated() {
            try decodeElement(item, path: { "Pattern[\(i)]" }, into: &pattern)
        }
        try requireElements(pattern, patternMember)
        return pattern
    }

    /// Decodes a document parsed with `JSONScanner.parseDocument(streaming: "Pattern", into:)`:
    /// `streamed` decoded the elements of the last `Pattern` array while it was parsed. The
    /// checks, warnings and errors come in the same order as `decode(_:)` gives them for the
    /// whole tree (top level first, then the elements in order, then the empty-pattern check).
    mutating func decode(_ root: JSONNode, streamed: AHAPElementSink) throws(PatternError) -> HapticPattern {
        let (patternMember, _, header) = try decodeTopLevel(root)
        warnings += streamed.decoder.warnings
        if let failure = streamed.failure { throw failure }
        var pattern = header
        pattern.events = streamed.body.events
        pattern.parameters = streamed.body.parameters
        pattern.parameterCurves = streamed.body.parameterCurves
        try requireElements(pattern, patternMember)
        return pattern
    }

    /// The top-level checks: an object with a `Pattern` array, its keys, `Version` and
    /// `Metadata`. Returns the `Pattern` member, its elements and a pattern without elements.
    private mutating func decodeTopLevel(_ root: JSONNode) throws(PatternError)
        -> (JSONMember, [JSONNode], HapticPattern)
    {
        guard root.members != nil else { throw notAnObjectError(root) }
        guard let patternMember = root.member(HapticPattern.Key.pattern.rawValue) else {
            throw missingPatternError(root)
        }
        let top = fields(of: root, path: { "" }, allowed: Self.topLevelKeys, context: "top level")
        let version = try decodeVersion(top["Version"])
        let metadata = top["Metadata"]?.value.jsonValue

        guard let items = patternMember.value.elements else {
            throw error(
                .invalidPatternDictionary, patternMember.value.position, "Pattern",
                "'Pattern' must be an array of elements, found \(article(patternMember.value.typeName))")
        }
        let pattern = HapticPattern(events: [], parameters: [], parameterCurves: [], version: version, metadata: metadata)
        return (patternMember, items, pattern)
    }

    private func requireElements(_ pattern: HapticPattern, _ patternMember: JSONMember) throws(PatternError) {
        if pattern.events.isEmpty && pattern.parameters.isEmpty && pattern.parameterCurves.isEmpty {
            throw error(
                .invalidPatternDictionary, patternMember.value.position, "Pattern",
                "empty pattern: expected at least one Event, Parameter or ParameterCurve element")
        }
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

    /// Decodes one element of the `Pattern` array into `pattern`.
    mutating func decodeElement(_ item: JSONNode, path: LazyPath, into pattern: inout HapticPattern)
        throws(PatternError)
    {
        guard let members = item.members else {
            warn(
                .ignoredValue, item.position, path(),
                "pattern element is \(article(item.typeName)), expected an object holding an Event, Parameter or ParameterCurve; ignored"
            )
            return
        }
        if members.isEmpty {
            warn(.ignoredValue, item.position, path(), "empty pattern element; ignored")
        }
        for member in uniqueMembers(of: item, path: path) {
            switch member.key {
            case "Event":
                let event = try decodeEvent(member.value, path: { path() + ".Event" })
                noteEventOrder(event, member, path: path)
                pattern.events.append(event)
            case "Parameter": pattern.parameters.append(try decodeParameter(member.value, path: { path() + ".Parameter" }))
            case "ParameterCurve":
                pattern.parameterCurves.append(try decodeCurve(member.value, path: { path() + ".ParameterCurve" }))
            default:
                warnUnknownKey(member, path: path() + "." + member.key, known: Self.elementKeys, context: "pattern element")
            }
        }
    }
}

extension AHAPDecoder {
    /// AHAP files may list events in any order (tools write them so, and Core Haptics sorts
    /// them); the API throws for the same pattern (−4822). One warning per document, at the first
    /// event earlier than one before it.
    fileprivate mutating func noteEventOrder(_ event: HapticEvent, _ member: JSONMember, path: LazyPath) {
        defer { latestEventTime = max(latestEventTime ?? event.relativeTime, event.relativeTime) }
        guard !reportedUnsortedEvents, let latest = latestEventTime, event.relativeTime < latest else { return }
        reportedUnsortedEvents = true
        let time = member.value.members?.first { $0.key == "Time" }
        warn(
            .unsortedEvents, time?.value.position ?? member.value.position, path() + ".Event" + (time == nil ? "" : ".Time"),
            "events are not in time order: this one at \(JSONNumberFormat.text(event.relativeTime)) s follows one at "
                + "\(JSONNumberFormat.text(latest)) s (played sorted, as Core Haptics does; HapticPattern(events:parameters:) "
                + "throws -4822 for the same events)")
    }
}

/// Decodes the elements of the top-level `Pattern` array as the parser delivers them, so that
/// only one element's tree exists at a time. The first error stops the decoding (the parse goes
/// on: a syntax error later in the file is what the reader reports then, as for a whole tree).
struct AHAPElementSink: JSONElementSink {
    private let blank: AHAPDecoder
    /// The elements' decoder; its warnings are the elements' warnings.
    private(set) var decoder: AHAPDecoder
    /// The elements decoded so far.
    private(set) var body = HapticPattern(events: [], parameters: [], parameterCurves: [])
    /// The first error, after which elements are no longer decoded.
    private(set) var failure: PatternError?

    init(decoder: AHAPDecoder) {
        blank = decoder
        self.decoder = decoder
    }

    mutating func beginArray() {
        decoder = blank
        body = HapticPattern(events: [], parameters: [], parameterCurves: [])
        failure = nil
    }

    mutating func element(_ node: JSONNode, index: Int) {
        guard failure == nil else { return }
        do {
            try decoder.decodeElement(node, path: { "Pattern[\(index)]" }, into: &body)
        } catch {
            failure = error
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
    mutating func uniqueMembers(of node: JSONNode, path: LazyPath) -> [JSONMember] {
        let members = node.members ?? []
        if !Self.hasDuplicateKeys(members) { return members }
        var lastIndex: [String: Int] = [:]
        for (i, m) in members.enumerated() {
            if lastIndex[m.key] != nil {
                warn(
                    .duplicateKey, m.keyPosition, join(path(), m.key),
                    "duplicate key \(TextEscaping.quotedExcerpt(m.key)); the last occurrence wins")
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
            for j in 0..<i where sameKey(members[j].key, members[i].key) { return true }
        }
        return false
    }

    /// An object's members by key (last wins, nulls count as absent), warning about duplicate and
    /// unknown keys.
    mutating func fields(of node: JSONNode, path: LazyPath, allowed: [String], context: String) -> Fields {
        let unique = uniqueMembers(of: node, path: path)
        var kept = 0 as UInt64
        var overflow: [JSONMember] = []
        for (i, m) in unique.enumerated() {
            guard allowed.contains(where: { sameKey($0, m.key) }) else {
                warnUnknownKey(m, path: join(path(), m.key), known: allowed, context: context)
                continue
            }
            guard !m.value.isNull else { continue }
            if unique.count <= UInt64.bitWidth {
                kept |= 1 << UInt64(i)
            } else {
                overflow.append(m)
            }
        }
        if unique.count <= UInt64.bitWidth { return Fields(members: unique, kept: kept) }
        // Kept members have unique allowed keys: far fewer than 64.
        return Fields(members: overflow, kept: overflow.count == 64 ? .max : (1 << UInt64(overflow.count)) - 1)
    }

    /// An object's known, non-null members with unique keys, looked up by key with a linear scan
    /// (AHAP objects have a handful of members; a dictionary per object costs more than it saves).
    /// The object's own member array is shared, with a bit set marking the members kept.
    struct Fields {
        let members: [JSONMember]
        /// Bit `i` set: `members[i]` is kept.
        let kept: UInt64

        subscript(key: String) -> JSONMember? {
            var bits = kept
            while bits != 0 {
                let i = bits.trailingZeroBitCount
                if sameKey(members[i].key, key) { return members[i] }
                bits &= bits - 1
            }
            return nil
        }
    }

    static let topLevelKeys = ["Version", "Metadata", "Pattern"]
    /// Every key and name the decoder knows, for the scanner to hand out without making them again.
    static let vocabulary = JSONVocabulary(
        topLevelKeys + elementKeys + eventKeys + eventParameterKeys + parameterKeys + curveKeys + controlPointKeys
            + HapticEvent.EventType.allKnown.map(\.rawValue) + HapticEvent.ParameterID.allKnown.map(\.rawValue)
            + HapticDynamicParameter.ID.allKnown.map(\.rawValue))
    static let elementKeys = ["Event", "Parameter", "ParameterCurve"]

    mutating func warnUnknownKey(_ member: JSONMember, path: String, known: [String], context: String) {
        var message = "unknown key \(TextEscaping.quotedExcerpt(member.key)) in \(context); ignored"
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
    mutating func clamp(_ value: Double, to range: ClosedRange<Float>, what: String, at member: JSONMember, path: LazyPath)
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
            .valueClamped, member.value.position, path(),
            "\(what) \(JSONNumberFormat.text(value)) is outside \(rangeText(range)); clamped to \(clamped.description)")
        return clamped
    }

    func rangeText(_ r: ClosedRange<Float>) -> String { "\(r.lowerBound.description)…\(r.upperBound.description)" }

    func article(_ typeName: String) -> String {
        typeName == "object" || typeName == "array" ? "an \(typeName)" : "a \(typeName)"
    }
}

/// Whether two keys are equal, deciding most unequal pairs by their length alone (`==` on two
/// different strings takes the slow comparison path; AHAP keys mostly differ in length).
@inline(__always)
func sameKey(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a == b
}

/// `path.key`, or `key` at the top level.
/// `path.key`, the key cut to ``TextEscaping/excerptLength`` characters (a diagnostic's path, for display).
func join(_ path: String, _ key: String) -> String {
    let shown = key.count > TextEscaping.excerptLength ? TextEscaping.excerpt(key) : key
    return path.isEmpty ? shown : path + "." + shown
}

/// A known key that differs from `key` only in case or a trailing "s".
func closeMatch(_ key: String, among known: [String]) -> String? {
    let k = key.lowercased()
    return known.first { candidate in
        let c = candidate.lowercased()
        return c == k || c + "s" == k || c == k + "s"
    }
}
