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

    /// How many characters of an offending value or key an error message shows.
    public static let excerptLength = 80

    /// `text` escaped (``escaped(_:)``) and, when longer than ``excerptLength`` characters, cut
    /// there and marked `…(N characters)`: an error echoes a key or number the input got wrong
    /// without echoing megabytes of it back.
    public static func excerpt(_ text: String) -> String {
        let (head, note) = cut(text)
        return head + note
    }

    /// ``excerpt(_:)`` in single quotes (the quote closes before the length note).
    public static func quotedExcerpt(_ text: String) -> String {
        let (head, note) = cut(text)
        return "'\(head)'\(note)"
    }

    /// `message` with every run of more than `limit` characters without a space or a quote cut
    /// to its first ``excerptLength`` and marked `…(N characters)`: the last guard of a program
    /// that prints messages naming what it was given (a 100 kB option value, a path, a preset
    /// name), so that no message echoes megabytes back. The text is not escaped again.
    public static func shorteningLongRuns(_ message: String, longerThan limit: Int = 200) -> String {
        guard message.utf8.count > limit else { return message }
        var out = ""
        var run = ""
        var runLength = 0
        func flush() {
            if runLength > limit {
                out += String(run.prefix(excerptLength)) + "…(\(runLength) characters)"
            } else {
                out += run
            }
            run = ""
            runLength = 0
        }
        for character in message {
            if character.isWhitespace || character == "'" || character == "\"" {
                flush()
                out.append(character)
            } else {
                run.append(character)
                runLength += 1
            }
        }
        flush()
        return out
    }

    /// The escaped first ``excerptLength`` characters of `text`, and the length note ("" when whole).
    private static func cut(_ text: String) -> (String, String) {
        guard let end = text.index(text.startIndex, offsetBy: excerptLength, limitedBy: text.endIndex), end < text.endIndex else {
            return (escaped(text), "")
        }
        return (escaped(String(text[..<end])), "…(\(text.count) characters)")
    }

    /// C0 and C1 controls, DEL, and the bidi embedding, override and isolate controls.
    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
}
