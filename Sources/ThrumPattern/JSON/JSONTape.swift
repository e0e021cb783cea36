/// A JSON value flattened into one array of entries, in document order: each value is one entry,
/// an object's members and an array's elements follow their container's entry, and each entry
/// knows where its own subtree ends. The scanner writes into it without one allocation per value
/// (the array keeps its capacity from one pattern element to the next), and the AHAP decoder
/// reads it in place (`JSONTapeValue`). A `JSONNode` tree converts to and from it.
struct JSONTape {
    /// One value, with its key when it is an object's member.
    struct Entry {
        enum Kind: UInt8 {
            case null, bool, number, string, array, object
        }
        var kind: Kind
        /// An object's members or an array's elements (0 for other kinds).
        var count = 0
        /// The index just past this value's subtree.
        var end = 0
        var position: SourcePosition
        /// Where the member's key starts (`.unknown` for an element or the root).
        var keyPosition = SourcePosition.unknown
        /// The number, or 1 / 0 for `true` / `false`.
        var number = 0.0
        var string = ""
        /// The member's key (empty for an element or the root).
        var key = ""
        /// The id of the key in the scanner's vocabulary; −1 when it is not a word of it (or the
        /// value is not a member).
        var keyWord: Int16 = -1
    }

    /// The entries; those from `count` on are left over from values dropped (`truncate(to:)`)
    /// and are overwritten by the next ones, so that a tape reused for one pattern element after
    /// another neither allocates nor frees.
    private var entries: [Entry] = []
    /// The number of entries in use.
    private(set) var count = 0

    /// Stores `entry` at `count`.
    @inline(__always)
    private mutating func push(_ entry: Entry) -> Int {
        if count < entries.count {
            entries[count] = entry
        } else {
            entries.append(entry)
        }
        count += 1
        return count - 1
    }

    /// Appends a scalar value; returns its index.
    @discardableResult
    mutating func appendScalar(_ kind: Entry.Kind, at position: SourcePosition, number: Double = 0, string: String = "") -> Int {
        push(Entry(kind: kind, end: count + 1, position: position, number: number, string: string))
    }

    /// Opens an object or array at `position`; its members or elements are appended next, and
    /// `close(_:count:)` ends it. Returns its index.
    mutating func open(_ kind: Entry.Kind, at position: SourcePosition) -> Int {
        push(Entry(kind: kind, position: position))
    }

    /// Ends the container at `index` with `count` members or elements (the entries after it).
    mutating func close(_ index: Int, count: Int) {
        entries[index].count = count
        entries[index].end = self.count
    }

    /// Names the value at `index` as an object's member; `word` is the key's id in the
    /// vocabulary (−1: none).
    mutating func setKey(_ index: Int, _ key: String, at position: SourcePosition, word: Int16) {
        entries[index].key = key
        entries[index].keyPosition = position
        entries[index].keyWord = word
    }

    /// Drops the entries from `index` on.
    mutating func truncate(to index: Int) {
        count = index
    }

    /// Calls `body` with the value at `index` (< `count`), which is valid only inside `body`.
    func withValue<R, E: Error>(at index: Int, _ body: (JSONTapeValue) throws(E) -> R) throws(E) -> R {
        precondition(index < count, "no value at \(index)")
        return try entries.withUnsafeBufferPointer { (buffer) throws(E) -> R in try body(JSONTapeValue(buffer, index)) }
    }

    // MARK: Trees

    /// The tape of a tree; its keys get their ids in `vocabulary`, as the scanner gives them.
    init(_ node: JSONNode, vocabulary: JSONVocabulary) {
        append(node, key: "", keyPosition: .unknown, vocabulary: vocabulary)
    }

    /// An empty tape.
    init() {}

    private mutating func append(_ node: JSONNode, key: String, keyPosition: SourcePosition, vocabulary: JSONVocabulary) {
        let index: Int
        switch node.kind {
        case .null: index = appendScalar(.null, at: node.position)
        case .bool(let b): index = appendScalar(.bool, at: node.position, number: b ? 1 : 0)
        case .number(let d): index = appendScalar(.number, at: node.position, number: d)
        case .string(let s): index = appendScalar(.string, at: node.position, string: s)
        case .array(let elements):
            index = open(.array, at: node.position)
            for e in elements { append(e, key: "", keyPosition: .unknown, vocabulary: vocabulary) }
            close(index, count: elements.count)
        case .object(let members):
            index = open(.object, at: node.position)
            for m in members { append(m.value, key: m.key, keyPosition: m.keyPosition, vocabulary: vocabulary) }
            close(index, count: members.count)
        }
        setKey(index, key, at: keyPosition, word: vocabulary.id(of: key))
    }

    /// The tree of the value at `index`.
    func node(at index: Int) -> JSONNode {
        withValue(at: index) { $0.node }
    }
}

/// A value on a `JSONTape`, read in place. Valid only while the tape is not changed (see
/// `JSONTape.withValue`); never stored.
struct JSONTapeValue {
    /// The tape.
    let entries: UnsafeBufferPointer<JSONTape.Entry>
    /// Its entry's index on the tape.
    let index: Int

    init(_ entries: UnsafeBufferPointer<JSONTape.Entry>, _ index: Int) {
        self.entries = entries
        self.index = index
    }

    var kind: JSONTape.Entry.Kind { entries[index].kind }
    /// Where the value's first character is.
    var position: SourcePosition { entries[index].position }

    /// The members of an object, in document order; nil for other kinds.
    var members: JSONTapeMembers? {
        kind == .object ? JSONTapeMembers(entries: entries, container: index) : nil
    }

    /// The elements of an array; nil for other kinds.
    var elements: JSONTapeElements? {
        kind == .array ? JSONTapeElements(entries: entries, container: index) : nil
    }

    /// The last member named `key` when this is an object.
    subscript(key: String) -> JSONTapeValue? {
        member(key)?.value
    }

    /// The last member named `key` (with its key's position) when this is an object.
    func member(_ key: String) -> JSONTapeMember? {
        members?.reversed().first(where: { $0.key == key })
    }

    var stringValue: String? { kind == .string ? entries[index].string : nil }
    var numberValue: Double? { kind == .number ? entries[index].number : nil }
    var boolValue: Bool? { kind == .bool ? entries[index].number != 0 : nil }
    var isNull: Bool { kind == .null }

    /// A short name of the value's JSON type, for messages ("number", "object", …).
    var typeName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The value as a tree.
    var node: JSONNode {
        let e = entries[index]
        switch e.kind {
        case .null: return JSONNode(.null, at: e.position)
        case .bool: return JSONNode(.bool(e.number != 0), at: e.position)
        case .number: return JSONNode(.number(e.number), at: e.position)
        case .string: return JSONNode(.string(e.string), at: e.position)
        case .array: return JSONNode(.array(elements!.map(\.node)), at: e.position)
        case .object:
            return JSONNode(
                .object(members!.map { JSONMember(key: $0.key, keyPosition: $0.keyPosition, value: $0.value.node) }),
                at: e.position)
        }
    }

    /// The value without positions.
    var jsonValue: JSONValue { node.jsonValue }

    fileprivate func entry(_ i: Int) -> JSONTapeValue { JSONTapeValue(entries, i) }
    fileprivate var end: Int { entries[index].end }
    fileprivate var count: Int { entries[index].count }
    fileprivate var key: String { entries[index].key }
    fileprivate var keyWord: Int16 { entries[index].keyWord }
    fileprivate var keyPosition: SourcePosition { entries[index].keyPosition }
}

/// One member of an object on a tape.
struct JSONTapeMember {
    /// The member's value (its entry holds the key).
    let value: JSONTapeValue
    /// The member's key.
    var key: String { value.key }
    /// The key's id in the vocabulary; −1 when it is not a word of it. Two keys with ids ≥ 0
    /// are the same text exactly when their ids are equal.
    var keyWord: Int16 { value.keyWord }
    /// Where the key's opening quote is.
    var keyPosition: SourcePosition { value.keyPosition }
}

/// An object's members on a tape, in document order.
struct JSONTapeMembers: Collection {
    fileprivate let entries: UnsafeBufferPointer<JSONTape.Entry>
    fileprivate let container: Int

    var startIndex: Int { container + 1 }
    var endIndex: Int { entries[container].end }
    var count: Int { entries[container].count }
    var isEmpty: Bool { count == 0 }
    func index(after i: Int) -> Int { entries[i].end }
    subscript(i: Int) -> JSONTapeMember { JSONTapeMember(value: JSONTapeValue(entries, i)) }
}

/// An array's elements on a tape, in document order.
struct JSONTapeElements: Collection {
    fileprivate let entries: UnsafeBufferPointer<JSONTape.Entry>
    fileprivate let container: Int

    var startIndex: Int { container + 1 }
    var endIndex: Int { entries[container].end }
    var count: Int { entries[container].count }
    var isEmpty: Bool { count == 0 }
    func index(after i: Int) -> Int { entries[i].end }
    subscript(i: Int) -> JSONTapeValue { JSONTapeValue(entries, i) }

    /// The element at 0-based position `n` (a walk over the elements before it).
    func element(_ n: Int) -> JSONTapeValue {
        self[index(startIndex, offsetBy: n)]
    }
}
