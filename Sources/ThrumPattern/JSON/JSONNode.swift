/// A parsed JSON value that remembers where it started in the source text.
///
/// Objects keep every member in document order, duplicates included; lookups by key return
/// the last member with that key (the rule most JSON parsers apply).
public struct JSONNode: Equatable, Sendable {
    /// The value itself.
    public enum Kind: Equatable, Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([JSONMember])
    }

    /// The value.
    public var kind: Kind
    /// Where the value's first character is.
    public var position: SourcePosition

    /// Creates a node.
    public init(_ kind: Kind, at position: SourcePosition = .unknown) {
        self.kind = kind
        self.position = position
    }

    /// The last member named `key` when this is an object.
    public subscript(key: String) -> JSONNode? {
        member(key)?.value
    }

    /// The last member named `key` (with its key's position) when this is an object.
    public func member(_ key: String) -> JSONMember? {
        guard case .object(let members) = kind else { return nil }
        return members.last(where: { $0.key == key })
    }

    /// The members of an object, in document order; nil for other kinds.
    public var members: [JSONMember]? {
        if case .object(let m) = kind { return m }
        return nil
    }

    /// The elements of an array; nil for other kinds.
    public var elements: [JSONNode]? {
        if case .array(let a) = kind { return a }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = kind { return s }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: Double? {
        if case .number(let d) = kind { return d }
        return nil
    }

    /// Whether this is JSON `null`.
    public var isNull: Bool { kind == .null }

    /// A short name of the value's JSON type, for messages ("number", "object", …).
    public var typeName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The value as an error message names what it found: `the string 'abc'` (escaped and cut
    /// as ``TextEscaping/quotedExcerpt(_:)`` does), `the number 2.5` (a whole number without a
    /// fraction: `the number 12`), `true`, `null`, `an array`, `an object`.
    public var valueDescription: String {
        switch kind {
        case .string(let s): return "the string \(TextEscaping.quotedExcerpt(s))"
        case .number(let d):
            return "the number \(d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : JSONNumberFormat.text(d))"
        case .bool(let b): return "\(b)"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value without positions.
    public var jsonValue: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let d): return .number(d)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(\.jsonValue))
        case .object(let m): return .object(m.map { (key: $0.key, value: $0.value.jsonValue) })
        }
    }
}

/// One member of a JSON object: its key, where the key starts, and its value.
public struct JSONMember: Equatable, Sendable {
    /// The member's key.
    public var key: String
    /// Where the key's opening quote is.
    public var keyPosition: SourcePosition
    /// The member's value.
    public var value: JSONNode

    /// Creates a member.
    public init(key: String, keyPosition: SourcePosition = .unknown, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}
