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
        let text = String(decoding: bytes[startIndex..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw fail("number \(text) is out of range", at: start)
        }
        return value
    }
}
