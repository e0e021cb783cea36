// Errors for documents that are not AHAP at all: fragments, other formats, wrong top level.
extension AHAPDecoder {
    /// The top level is not an object: a bare Pattern array (fragment) or something else.
    func notAnObjectError(_ root: JSONTapeValue) -> PatternError {
        if let items = root.elements, !items.isEmpty,
            items.allSatisfy({ item in
                item.members?.contains(where: { ["Event", "Parameter", "ParameterCurve"].contains($0.key) }) ?? false
            })
        {
            return error(
                .invalidPatternDictionary, root.position, "",
                "this is a fragment: a bare 'Pattern' array of \(items.count) element(s) without the enclosing object; "
                    + "expected an object such as { \"Version\": 1.0, \"Pattern\": [ … ] }")
        }
        return error(
            .invalidPatternDictionary, root.position, "",
            "the top level of an AHAP file must be an object with a 'Pattern' array, found \(article(root.typeName))")
    }

    /// The top level is an object without `Pattern`: say what it looks like instead.
    func missingPatternError(_ root: JSONTapeValue) -> PatternError {
        let keys = root.members.map { $0.map(\.key) } ?? []
        let keySet = Set(keys)
        if keySet.contains("signals") || (keySet.contains("version") && keySet.contains("metadata")) {
            return error(
                .invalidPatternDictionary, root.position, "",
                "not an AHAP file: this looks like a Lofelt/Meta Haptics Studio .haptic clip "
                    + "(keys \(Self.listed(keys))); expected a 'Pattern' array — convert the clip to AHAP first"
            )
        }
        if let near = keys.first(where: { closeMatch($0, among: ["Pattern"]) != nil }) {
            return error(
                .invalidPatternDictionary, root.position, "",
                "missing 'Pattern' (found \(TextEscaping.quotedExcerpt(near)); AHAP keys are case-sensitive)")
        }
        let found = keys.isEmpty ? "an empty object" : "keys " + Self.listed(keys)
        return error(
            .invalidPatternDictionary, root.position, "",
            "missing 'Pattern': expected a top-level 'Pattern' array of Event, Parameter and ParameterCurve elements (found \(found))"
        )
    }

    /// Keys as a message lists them: the first ten, each quoted by its first characters
    /// (`TextEscaping.quotedExcerpt`), then how many more, so a document with a 10 MB key or a
    /// million keys gives a message of one short line.
    static func listed(_ keys: [String]) -> String {
        let shown = keys.prefix(10).map { TextEscaping.quotedExcerpt($0) }.joined(separator: ", ")
        return keys.count > 10 ? shown + " and \(keys.count - 10) more" : shown
    }
}
