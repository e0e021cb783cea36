/// Makes text from a file safe to echo on a terminal: control characters (NUL, ESC, newlines,
/// DEL, C1 controls) and bidirectional overrides become visible escapes, so a key or a path in a
/// pattern cannot move the cursor, recolour the terminal or print a fake line of output.
public enum TextEscaping {
    /// `text` with every control or bidi-override scalar written as `\n`, `\t`, `\r` or `\u{1B}`.
    /// A backslash is left as it is; text without such scalars is returned unchanged.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return out
    }

    /// C0 and C1 controls, DEL, and the bidi embedding, override and isolate controls.
    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
}
