// Number literals (RFC 8259 grammar, converted without any locale).
extension JSONScanner {
    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        if let plain = parsePlainNumber() { return plain }
        let start = position
        let startIndex = index
        if current == UInt8(ascii: "-") { advance() }
        guard let first = current, isDigit(first) else {
            throw fail("expected a digit after '-', found \(describeCurrent())")
        }
        advance()
        if first == UInt8(ascii: "0"), let next = current, isDigit(next) {
            throw fail("leading zeros are not allowed in numbers", at: start)
        }
        while let b = current, isDigit(b) { advance() }
        if current == UInt8(ascii: ".") {
            advance()
            guard let b = current, isDigit(b) else {
                throw fail("expected a digit after '.', found \(describeCurrent())")
            }
            while let b = current, isDigit(b) { advance() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            advance()
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
            guard let b = current, isDigit(b) else {
                throw fail("expected a digit in the exponent, found \(describeCurrent())")
            }
            while let b = current, isDigit(b) { advance() }
        }
        if let exact = Self.fastDecimal(bytes[startIndex..<index]) { return exact }
        let text = String(decoding: bytes[startIndex..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw fail("number \(TextEscaping.excerpt(text)) is out of range", at: start)
        }
        return value
    }

    /// The common case in one pass over the bytes: `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most
    /// 15 digits, not followed by an exponent, converted as `fastDecimal` does (the same number).
    /// Nil, with the cursor not moved, for any other literal: the general path reads it then
    /// (and reports what is wrong with it).
    private mutating func parsePlainNumber() -> Double? {
        let begin = index
        let scanned: (end: Int, value: Double)? = bytes.withUnsafeBufferPointer { buffer in
            var i = begin
            let negative = buffer[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            var digits: UInt64 = 0
            var count = 0
            var fraction = 0
            let intStart = i
            while i < buffer.count, isDigit(buffer[i]) {
                digits = digits &* 10 &+ UInt64(buffer[i] &- UInt8(ascii: "0"))
                i += 1
            }
            count = i - intStart
            // One leading zero at most ("0", "0.5"), and at least one digit.
            guard count > 0, !(count > 1 && buffer[intStart] == UInt8(ascii: "0")) else { return nil }
            if i < buffer.count, buffer[i] == UInt8(ascii: ".") {
                i += 1
                let fractionStart = i
                while i < buffer.count, isDigit(buffer[i]) {
                    digits = digits &* 10 &+ UInt64(buffer[i] &- UInt8(ascii: "0"))
                    i += 1
                }
                fraction = i - fractionStart
                guard fraction > 0 else { return nil }
            }
            guard count + fraction <= 15 else { return nil }
            if i < buffer.count, buffer[i] == UInt8(ascii: "e") || buffer[i] == UInt8(ascii: "E") { return nil }
            let value = Double(digits) / Self.exactPowersOfTen[fraction]
            return (i, negative ? -value : value)
        }
        guard let (end, value) = scanned else { return nil }
        // ASCII digits, sign and point: one column each, no line break.
        skip(to: end, columns: end - begin)
        return value
    }

    /// Powers of ten exact in a `Double`.
    private static let exactPowersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { acc, _ in acc * 10 } }

    /// A well-formed number literal without exponent and with at most 15 digits, converted
    /// without text: its digits as an integer (below 2^53, so exact) divided by an exact power of
    /// ten is the correctly rounded value, the one `Double(String)` gives (Clinger's fast path).
    /// Nil for any other literal.
    static func fastDecimal(_ literal: ArraySlice<UInt8>) -> Double? {
        var digits: UInt64 = 0
        var count = 0
        var fraction = 0
        var inFraction = false
        var negative = false
        for b in literal {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits = digits &* 10 &+ UInt64(b &- UInt8(ascii: "0"))
                count += 1
                if inFraction { fraction += 1 }
                if count > 15 { return nil }
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "-"): negative = true
            default: return nil  // an exponent
            }
        }
        let value = Double(digits) / exactPowersOfTen[fraction]
        return negative ? -value : value
    }
}
