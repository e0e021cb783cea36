// Number literals (RFC 8259 grammar, converted without any locale).
extension JSONScanner {
    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
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
