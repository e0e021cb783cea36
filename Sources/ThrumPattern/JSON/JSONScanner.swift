/// The parser's cursor and grammar: one instance per parse, never shared.
struct JSONScanner {
    let bytes: [UInt8]
    private let options: JSONParser.Options
    private(set) var index = 0
    private var line = 1
    private var column = 1
    private var path = JSONPath()
    private var depth = 0
    /// The values parsed so far.
    private var tape = JSONTape()
    /// Strings the document is expected to repeat, handed out without building them again.
    var vocabulary: JSONVocabulary?
    /// The vocabulary id of the last string parsed (−1: not a word of it).
    var lastWord: Int16 = -1

    init(bytes: [UInt8], options: JSONParser.Options) {
        self.bytes = bytes
        self.options = options
    }

    // MARK: Document

    /// Parses one JSON text into a tree.
    mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        var none = NoElementSink()
        return try parseTape(streaming: nil, into: &none).node(at: 0)
    }

    /// Parses one JSON text onto a tape (the top-level value at index 0). When the top level is
    /// an object and `key` is given, the elements of each of its arrays named `key` go to `sink`
    /// one at a time, as soon as each is parsed, and are not kept: such a member is an empty
    /// array (at the array's position) on the returned tape. The tape of a large document then
    /// never exists whole. `sink` hears `beginArray()` for every such array (the last one is the
    /// one that counts) and every element is complete and well-formed; a syntax error anywhere
    /// still throws.
    mutating func parseTape<Sink: JSONElementSink>(streaming key: String?, into sink: inout Sink)
        throws(JSONSyntaxError) -> JSONTape
    {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        if current == UInt8(ascii: "{") {
            try parseObject(streaming: key, into: &sink)
        } else {
            try parseValue()
        }
        skipWhitespace()
        if index < bytes.count {
            throw fail("expected end of input after the top-level value, found \(describeCurrent())")
        }
        return tape
    }

    // MARK: Cursor

    var position: SourcePosition { SourcePosition(line: line, column: column) }
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func advance() {
        let b = bytes[index]
        index += 1
        if b == 0x0A {
            line += 1
            column = 1
        } else if b == 0x0D {
            if current != 0x0A {
                line += 1
                column = 1
            }
        } else if b & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// Moves the cursor to `end` across bytes known to hold no line break, `columns` characters.
    mutating func skip(to end: Int, columns: Int) {
        index = end
        column += columns
    }

    /// Moves the cursor past one ASCII character that is not a line break (a structural
    /// character the caller has just checked).
    @inline(__always)
    mutating func advanceASCII() {
        index += 1
        column += 1
    }

    /// Skips spaces, tabs and line breaks, counting lines and columns as `advance()` does (a CR
    /// followed by LF is one line break), in one pass over the bytes.
    private mutating func skipWhitespace() {
        let (end, line, column) = bytes.withUnsafeBufferPointer { buffer in
            var i = index, line = self.line, column = self.column
            while i < buffer.count {
                let b = buffer[i]
                if b == 0x20 || b == 0x09 {
                    column += 1
                } else if b == 0x0A {
                    line += 1
                    column = 1
                } else if b == 0x0D {
                    if !(i + 1 < buffer.count && buffer[i + 1] == 0x0A) {
                        line += 1
                        column = 1
                    }
                } else {
                    break
                }
                i += 1
            }
            return (i, line, column)
        }
        index = end
        self.line = line
        self.column = column
    }

    func fail(_ message: String, at where_: SourcePosition? = nil) -> JSONSyntaxError {
        JSONSyntaxError(position: where_ ?? position, path: path.rendered, message: message)
    }

    /// "'x'", "end of input", or the character at the cursor.
    func describeCurrent() -> String {
        guard let b = current else { return "end of input" }
        if b < 0x20 { return "control character U+" + hex4(UInt32(b)) }
        if b < 0x80 { return "'" + String(UnicodeScalar(b)) + "'" }
        var end = index + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80, end - index < 4 { end += 1 }
        if let s = String(validating: bytes[index..<end], as: UTF8.self) { return "'\(s)'" }
        return "invalid UTF-8 byte 0x" + String(b, radix: 16, uppercase: true)
    }

    // MARK: Values

    /// Parses one value onto the tape; returns its entry's index.
    @discardableResult
    private mutating func parseValue() throws(JSONSyntaxError) -> Int {
        let start = position
        guard let b = current else {
            throw fail("expected a value, found end of input")
        }
        switch b {
        case UInt8(ascii: "{"):
            var none = NoElementSink()
            return try parseObject(streaming: nil, into: &none)
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return tape.appendScalar(.string, at: start, string: try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return tape.appendScalar(.number, at: start, number: try parseNumber())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return tape.appendScalar(.bool, at: start, number: 1)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return tape.appendScalar(.bool, at: start, number: 0)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return tape.appendScalar(.null, at: start)
        default:
            throw fail(
                "expected a value (object, array, string, number, true, false or null), found \(describeCurrent())")
        }
    }

    private mutating func expectLiteral(_ word: String) throws(JSONSyntaxError) {
        let start = position
        for expected in word.utf8 {
            guard current == expected else {
                throw fail("invalid literal: expected '\(word)'", at: start)
            }
            advance()
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > options.maxDepth {
            throw fail("nesting deeper than \(options.maxDepth) levels")
        }
    }

    /// An object onto the tape; with `key`, arrays under that key go element by element to
    /// `sink`. Returns its entry's index.
    @discardableResult
    private mutating func parseObject<Sink: JSONElementSink>(streaming key: String?, into sink: inout Sink)
        throws(JSONSyntaxError) -> Int
    {
        let object = tape.open(.object, at: position)
        try enter()
        advanceASCII()  // {
        var count = 0
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            advanceASCII()
            depth -= 1
            tape.close(object, count: 0)
            return object
        }
        while true {
            guard current == UInt8(ascii: "\"") else {
                if count == 0 {
                    throw fail("expected a string key or '}' after '{', found \(describeCurrent())")
                }
                if current == UInt8(ascii: "}") {
                    throw fail(
                        "expected a string key after ',', found '}' (a trailing comma is accepted only by the lenient reader)")
                }
                throw fail("expected a string key after ',', found \(describeCurrent())")
            }
            let keyPosition = position
            let name = try parseString()
            let nameWord = lastWord
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw fail("expected ':' after object key \"\(name)\", found \(describeCurrent())")
            }
            advanceASCII()
            skipWhitespace()
            path.push(.key(name))
            let value: Int
            if let key, name == key, current == UInt8(ascii: "[") {
                value = tape.open(.array, at: position)
                sink.beginArray()
                try parseArray(streamingInto: &sink)
                tape.close(value, count: 0)
            } else {
                value = try parseValue()
            }
            path.pop()
            tape.setKey(value, name, at: keyPosition, word: nameWord)
            count += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                advanceASCII()
                break
            }
            guard current == UInt8(ascii: ",") else {
                throw fail("expected ',' or '}' after object member, found \(describeCurrent())")
            }
            advanceASCII()
            skipWhitespace()
            if options.allowsTrailingCommas, current == UInt8(ascii: "}") {
                advanceASCII()
                break
            }
        }
        depth -= 1
        tape.close(object, count: count)
        return object
    }

    /// An array onto the tape; returns its entry's index.
    private mutating func parseArray() throws(JSONSyntaxError) -> Int {
        let array = tape.open(.array, at: position)
        var none = NoElementSink()
        let count = try parseArray(streaming: false, into: &none)
        tape.close(array, count: count)
        return array
    }

    /// An array's elements, each handed to `sink` as soon as it is complete and then dropped
    /// from the tape.
    private mutating func parseArray<Sink: JSONElementSink>(streamingInto sink: inout Sink) throws(JSONSyntaxError) {
        try parseArray(streaming: true, into: &sink)
    }

    /// An array's elements onto the tape (after the array's entry), or with `streaming` to
    /// `sink` one at a time. Returns the number of elements.
    @discardableResult
    private mutating func parseArray<Sink: JSONElementSink>(streaming: Bool, into sink: inout Sink)
        throws(JSONSyntaxError) -> Int
    {
        try enter()
        advanceASCII()  // [
        var count = 0
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            advanceASCII()
            depth -= 1
            return 0
        }
        while true {
            if count > 0, current == UInt8(ascii: "]") {
                throw fail(
                    "expected a value after ',', found ']' (a trailing comma is accepted only by the lenient reader)")
            }
            path.push(.index(count))
            let value = try parseValue()
            path.pop()
            if streaming {
                tape.withValue(at: value) { sink.element($0, index: count) }
                tape.truncate(to: value)
            }
            count += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                advanceASCII()
                break
            }
            guard current == UInt8(ascii: ",") else {
                throw fail("expected ',' or ']' after array element, found \(describeCurrent())")
            }
            advanceASCII()
            skipWhitespace()
            if options.allowsTrailingCommas, current == UInt8(ascii: "]") {
                advanceASCII()
                break
            }
        }
        depth -= 1
        return count
    }
}

/// Receives the elements of a streamed array (see `JSONScanner.parseDocument(streaming:into:)`).
protocol JSONElementSink {
    /// A streamed array starts (a later one replaces what an earlier one delivered).
    mutating func beginArray()
    /// The array's element at `index`, complete; valid only during the call.
    mutating func element(_ value: JSONTapeValue, index: Int)
}

/// For objects parsed without streaming: never called.
private struct NoElementSink: JSONElementSink {
    mutating func beginArray() {}
    mutating func element(_ value: JSONTapeValue, index: Int) {}
}

func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

func hexValue(_ b: UInt8) -> UInt32? {
    switch b {
    case 0x30...0x39: return UInt32(b - 0x30)
    case 0x41...0x46: return UInt32(b - 0x41 + 10)
    case 0x61...0x66: return UInt32(b - 0x61 + 10)
    default: return nil
    }
}

func hex4(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}
