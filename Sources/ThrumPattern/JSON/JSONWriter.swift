/// Writes a `JSONValue` as pretty-printed UTF-8 JSON: members in their stored order, one per
/// line, indented by `indentWidth` spaces, `"key": value` separators, a final newline.
///
/// Numbers use `JSONNumberFormat` (shortest round trip, no locale). Strings escape `"`, `\`
/// and control characters; everything else is written as UTF-8.
public struct JSONWriter: Sendable {
    /// Spaces per nesting level (2 or 4 are customary).
    public var indentWidth: Int

    /// Creates a writer.
    public init(indentWidth: Int = 2) {
        self.indentWidth = indentWidth
    }

    /// The document's bytes, ending in a newline.
    public func bytes(_ value: JSONValue) -> [UInt8] {
        var out = ""
        write(value, level: 0, into: &out)
        out += "\n"
        return Array(out.utf8)
    }

    /// The document as a string, ending in a newline.
    public func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    private func write(_ value: JSONValue, level: Int, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d): out += JSONNumberFormat.text(d)
        case .string(let s): JSONWriter.writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "[\n"
            for (i, e) in elements.enumerated() {
                indent(level + 1, &out)
                write(e, level: level + 1, into: &out)
                out += i + 1 < elements.count ? ",\n" : "\n"
            }
            indent(level, &out)
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            for (i, m) in members.enumerated() {
                indent(level + 1, &out)
                JSONWriter.writeString(m.key, into: &out)
                out += ": "
                write(m.value, level: level + 1, into: &out)
                out += i + 1 < members.count ? ",\n" : "\n"
            }
            indent(level, &out)
            out += "}"
        }
    }

    private func indent(_ level: Int, _ out: inout String) {
        out += String(repeating: " ", count: level * indentWidth)
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if u.value < 0x20 {
                    out += "\\u" + hex4(u.value)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
