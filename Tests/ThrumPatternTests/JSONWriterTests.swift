import XCTest

@testable import ThrumPattern

final class JSONWriterTests: XCTestCase {
    func testPrettyPrintingAndOrder() {
        let v: JSONValue = .object([
            ("z", .number(1)), ("a", .array([.bool(true), .null])), ("e", .object([])), ("l", .array([])),
        ])
        XCTAssertEqual(
            JSONWriter(indentWidth: 2).string(v),
            "{\n  \"z\": 1.0,\n  \"a\": [\n    true,\n    null\n  ],\n  \"e\": {},\n  \"l\": []\n}\n")
        XCTAssertTrue(JSONWriter(indentWidth: 4).string(v).contains("\n    \"z\": 1.0"))
    }

    func testNumberFormattingIsShortestAndLocaleFree() {
        XCTAssertEqual(JSONNumberFormat.text(0.1), "0.1")
        XCTAssertEqual(JSONNumberFormat.text(0.20000000298023224), "0.20000000298023224")
        XCTAssertEqual(JSONNumberFormat.text(1e-5), "1e-05")
        XCTAssertEqual(JSONNumberFormat.text(-2), "-2.0")
        XCTAssertEqual(JSONNumberFormat.double(fromFloat: Float(0.6)), 0.6)
        // Everything written parses back to the same value.
        for d in [0.1, 1e-5, 123456789.125, 5e-324, 1.7976931348623157e308, -0.0] {
            let text = JSONNumberFormat.text(d)
            XCTAssertEqual(try JSONParser().parse(text).numberValue, d, text)
        }
    }

    func testStringEscaping() throws {
        let s = "q\"b\\n\n\t\u{01}é😀/"
        let text = JSONWriter().string(.string(s))
        XCTAssertEqual(text, "\"q\\\"b\\\\n\\n\\t\\u0001é😀/\"\n")
        XCTAssertEqual(try JSONParser().parse(text).stringValue, s)
    }
}
