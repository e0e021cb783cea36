// String literals and escapes.
extension JSONScanner {
    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position
        advance()  // opening quote
        if let plain = try parsePlainString(from: start) { return plain }
        var buffer: [UInt8] = []
        var runStart = index
        while true {
            guard let b = current else {
                throw fail("unterminated string (expected '\"' before end of input)", at: start)
            }
            if b == UInt8(ascii: "\"") {
                buffer.append(contentsOf: bytes[runStart..<index])
                advance()
                break
            }
            if b < 0x20 {
                throw fail("expected '\"' or more characters in string, found \(describeCurrent()) (escape it)")
            }
            if b == UInt8(ascii: "\\") {
                buffer.append(contentsOf: bytes[runStart..<index])
                try parseEscape(into: &buffer)
                runStart = index
                continue
            }
            advance()
        }
        guard let s = String(validating: buffer, as: UTF8.self) else {
            throw fail("string is not valid UTF-8", at: start)
        }
        lastWord = vocabulary?.id(of: s) ?? -1
        return s
    }

    /// The common case, without copying into a buffer: a string with no escape and no control
    /// character up to its closing quote (so no line break either). Nil, with the cursor not
    /// moved, for any other string; the general loop then reports what is wrong in the same order.
    private mutating func parsePlainString(from start: SourcePosition) throws(JSONSyntaxError) -> String? {
        let begin = index
        let scanned: (end: Int, characters: Int, ascii: Bool)? = bytes.withUnsafeBufferPointer { buffer in
            var end = begin
            var characters = 0
            var high = 0 as UInt8
            while end < buffer.count {
                let b = buffer[end]
                if b == UInt8(ascii: "\"") { return (end, characters, high < 0x80) }
                if b == UInt8(ascii: "\\") || b < 0x20 { return nil }
                if b & 0xC0 != 0x80 { characters += 1 }
                high |= b
                end += 1
            }
            return nil
        }
        guard let (end, characters, ascii) = scanned else { return nil }
        let text: String?
        lastWord = -1
        if ascii {
            // ASCII is valid UTF-8: no validation, no generic code path; a word of the vocabulary
            // is not made again.
            let found = bytes.withUnsafeBufferPointer { vocabulary?.lookup(UnsafeBufferPointer(rebasing: $0[begin..<end])) }
            if let found {
                lastWord = found.id
                text = found.text
            } else {
                text = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[begin..<end]), as: UTF8.self) }
            }
        } else {
            text = String(validating: bytes[begin..<end], as: UTF8.self)
        }
        guard let s = text else { throw fail("string is not valid UTF-8", at: start) }
        // As `advance()` would have counted: one column per character, the closing quote too.
        skip(to: end + 1, columns: characters + 1)
        return s
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONSyntaxError) {
        let escapeStart = position
        advance()  // backslash
        guard let e = current else { throw fail("unterminated escape sequence") }
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A,
            UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let byte = simple[e] {
            advance()
            buffer.append(byte)
            return
        }
        guard e == UInt8(ascii: "u") else {
            throw fail("invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", at: escapeStart)
        }
        advance()
        var scalar = try parseHex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
            else {
                throw fail("expected a low surrogate \\uDC00–\\uDFFF after high surrogate", at: escapeStart)
            }
            advance()
            advance()
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw fail("expected a low surrogate \\uDC00–\\uDFFF after high surrogate", at: escapeStart)
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw fail("unpaired low surrogate in \\u escape", at: escapeStart)
        }
        guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape", at: escapeStart) }
        buffer.append(contentsOf: Array(String(Character(u)).utf8))
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = current, let digit = hexValue(b) else {
                throw fail("expected 4 hexadecimal digits after \\u, found \(describeCurrent())")
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }
}
