/// The path of a value in the document (`Pattern[3].Event.Time`), rendered only when a
/// diagnostic names it: a valid document never builds the text of its paths. Passed as a
/// non-escaping closure, it costs nothing to hand down.
typealias LazyPath = () -> String

/// Turns a parsed JSON document (on a `JSONTape`) into a `HapticPattern`, applying Core Haptics' rules (reference §6)
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

    mutating func decode(_ root: JSONTapeValue) throws(PatternError) -> HapticPattern {
        let (patternMember, items, header) = try decodeTopLevel(root)
        var pattern = header
        for (i, item) in items.enumerated() {
            try decodeElement(item, path: { "Pattern[\(i)]" }, into: &pattern)
        }
        try requireElements(pattern, patternMember)
        return pattern
    }

    /// Decodes a document parsed with `JSONScanner.parseTape(streaming: "Pattern", into:)`:
    /// `streamed` decoded the elements of the last `Pattern` array while it was parsed. The
    /// checks, warnings and errors come in the same order as `decode(_:)` gives them for the
    /// whole tree (top level first, then the elements in order, then the empty-pattern check).
    mutating func decode(_ root: JSONTapeValue, streamed: AHAPElementSink) throws(PatternError) -> HapticPattern {
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
    private mutating func decodeTopLevel(_ root: JSONTapeValue) throws(PatternError)
        -> (JSONTapeMember, JSONTapeElements, HapticPattern)
    {
        guard root.members != nil else { throw notAnObjectError(root) }
        guard let patternMember = root.member(HapticPattern.Key.pattern.rawValue) else {
            throw missingPatternError(root)
        }
        let top = fields(of: root, path: { "" }, allowed: Self.topLevelKeys, context: "top level")
        let version = try decodeVersion(top[.version])
        let metadata = top[.metadata]?.value.jsonValue

        guard let items = patternMember.value.elements else {
            throw error(
                .invalidPatternDictionary, patternMember.value.position, "Pattern",
                "'Pattern' must be an array of elements, found \(article(patternMember.value.typeName))")
        }
        let pattern = HapticPattern(events: [], parameters: [], parameterCurves: [], version: version, metadata: metadata)
        return (patternMember, items, pattern)
    }

    private func requireElements(_ pattern: HapticPattern, _ patternMember: JSONTapeMember) throws(PatternError) {
        if pattern.events.isEmpty && pattern.parameters.isEmpty && pattern.parameterCurves.isEmpty {
            throw error(
                .invalidPatternDictionary, patternMember.value.position, "Pattern",
                "empty pattern: expected at least one Event, Parameter or ParameterCurve element")
        }
    }

    private mutating func decodeVersion(_ member: JSONTapeMember?) throws(PatternError) -> Double {
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
    mutating func decodeElement(_ item: JSONTapeValue, path: LazyPath, into pattern: inout HapticPattern)
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
        if let unique = deduplicatedMembers(of: item, path: path) {
            for member in unique { try decodeElementMember(member, path: path, into: &pattern) }
        } else {
            for member in members { try decodeElementMember(member, path: path, into: &pattern) }
        }
    }

    private mutating func decodeElementMember(_ member: JSONTapeMember, path: LazyPath, into pattern: inout HapticPattern)
        throws(PatternError)
    {
        switch Key(member) {
        case .event:
            let event = try decodeEvent(member.value, path: { path() + ".Event" })
            noteEventOrder(event, member, path: path)
            pattern.events.append(event)
        case .parameter: pattern.parameters.append(try decodeParameter(member.value, path: { path() + ".Parameter" }))
        case .parameterCurve:
            pattern.parameterCurves.append(try decodeCurve(member.value, path: { path() + ".ParameterCurve" }))
        default:
            warnUnknownKey(member, path: path() + "." + member.key, known: Self.elementKeys.texts, context: "pattern element")
        }
    }
}

extension AHAPDecoder {
    /// AHAP files may list events in any order (tools write them so, and Core Haptics sorts
    /// them); the API throws for the same pattern (−4822). One warning per document, at the first
    /// event earlier than one before it.
    fileprivate mutating func noteEventOrder(_ event: HapticEvent, _ member: JSONTapeMember, path: LazyPath) {
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
/// only one element is on the tape at a time. The first error stops the decoding (the parse goes
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

    mutating func element(_ node: JSONTapeValue, index: Int) {
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

    /// The members of an object, one per key (the last occurrence wins), warning about
    /// duplicates; nil when no key repeats (the members are unique as they are).
    mutating func deduplicatedMembers(of node: JSONTapeValue, path: LazyPath) -> [JSONTapeMember]? {
        guard let members = node.members, Self.hasDuplicateKeys(members) else { return nil }
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
    static func hasDuplicateKeys(_ members: JSONTapeMembers) -> Bool {
        guard members.count > 1 else { return false }
        guard members.count <= 16 else { return Set(members.map(\.key)).count != members.count }
        var i = members.index(after: members.startIndex)
        while i != members.endIndex {
            let member = members[i]
            var j = members.startIndex
            while j != i {
                if sameKey(members[j], member) { return true }
                j = members.index(after: j)
            }
            i = members.index(after: i)
        }
        return false
    }

    /// An object's members by key (last wins, nulls count as absent), warning about duplicate and
    /// unknown keys. `allowed` holds at most `Fields.capacity` keys.
    mutating func fields(of node: JSONTapeValue, path: LazyPath, allowed: KeySet, context: String) -> Fields {
        var f = Fields()
        guard let members = node.members else { return f }
        if let unique = deduplicatedMembers(of: node, path: path) {
            for m in unique { keep(m, in: &f, path: path, allowed: allowed, context: context) }
        } else {
            for m in members { keep(m, in: &f, path: path, allowed: allowed, context: context) }
        }
        return f
    }

    /// Adds a unique member to `f` when its key is allowed and its value is not null; warns about
    /// an unknown key.
    private mutating func keep(_ m: JSONTapeMember, in f: inout Fields, path: LazyPath, allowed: KeySet, context: String) {
        guard let key = Key(m), allowed.contains(key) else {
            warnUnknownKey(m, path: join(path(), m.key), known: allowed.texts, context: context)
            return
        }
        guard !m.value.isNull else { return }
        f.append(m, key)
    }

    /// An object's known, non-null members with unique keys, looked up by key with a linear scan
    /// (AHAP objects have a handful of members; a dictionary per object costs more than it saves).
    /// Held in place, without an allocation: each allowed key is kept at most once.
    struct Fields {
        /// The most members kept: the longest list of allowed keys (an `Event`'s).
        static let capacity = 8
        /// The tape the members are on, their entries' indices and their keys.
        private var tape: UnsafeBufferPointer<JSONTape.Entry>?
        private var slots = SIMD8<Int>()
        private var keys = SIMD8<Int16>()
        private var count = 0

        fileprivate mutating func append(_ m: JSONTapeMember, _ key: Key) {
            precondition(count < Self.capacity, "more allowed keys than Fields holds")
            tape = m.value.entries
            slots[count] = m.value.index
            keys[count] = key.rawValue
            count += 1
        }

        subscript(key: Key) -> JSONTapeMember? {
            guard let tape else { return nil }
            for i in 0..<count where keys[i] == key.rawValue {
                return JSONTapeMember(value: JSONTapeValue(tape, slots[i]))
            }
            return nil
        }
    }

    mutating func warnUnknownKey(_ member: JSONTapeMember, path: String, known: [String], context: String) {
        var message = "unknown key \(TextEscaping.quotedExcerpt(member.key)) in \(context); ignored"
        if let guess = closeMatch(member.key, among: known) { message += " (did you mean '\(guess)'?)" }
        warn(.unknownKey, member.keyPosition, path, message)
    }

    /// A number, reading booleans as 0 and 1 (as `NSNumber` does for Core Haptics).
    func number(_ node: JSONTapeValue) -> Double? {
        node.numberValue ?? node.boolValue.map { $0 ? 1 : 0 }
    }

    /// Clamps `value` into `range`, warning when it had to.
    mutating func clamp(_ value: Double, to range: ClosedRange<Float>, what: String, at member: JSONTapeMember, path: LazyPath)
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

/// Whether two members have the same key: by their ids when either is a word of the vocabulary
/// (the same text has the same id), else by their text.
@inline(__always)
func sameKey(_ a: JSONTapeMember, _ b: JSONTapeMember) -> Bool {
    a.keyWord >= 0 || b.keyWord >= 0 ? a.keyWord == b.keyWord : sameKey(a.key, b.key)
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
