import XCTest

@testable import ThrumPattern

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String, lenient: Bool = false) throws(JSONSyntaxError) -> JSONNode {
        try JSONParser(options: lenient ? .lenient : .strict).parse(text)
    }

    private func syntaxError(_ text: String, lenient: Bool = false) -> JSONSyntaxError? {
        do {
            _ = try parse(text, lenient: lenient)
            XCTFail("expected a syntax error for \(text)")
            return nil
        } catch { return error }
    }

    func testValuesAndPositions() throws {
        let root = try parse("{\n  \"a\": [1, -2.5e3, true],\n  \"é\": \"x\", \"b\": null\n}")
        XCTAssertEqual(root.position, SourcePosition(line: 1, column: 1))
        let a = try XCTUnwrap(root["a"])
        XCTAssertEqual(a.position, SourcePosition(line: 2, column: 8))
        XCTAssertEqual(a.elements?.map(\.position.column), [9, 12, 20])
        XCTAssertEqual(a.elements?[1].numberValue, -2500)
        XCTAssertEqual(root.member("é")?.keyPosition, SourcePosition(line: 3, column: 3))
        // Columns count characters: "é" is two bytes but one column.
        XCTAssertEqual(root["é"]?.position, SourcePosition(line: 3, column: 8))
        XCTAssertEqual(root.member("b")?.keyPosition, SourcePosition(line: 3, column: 13))
        XCTAssertTrue(root["b"]?.isNull ?? false)
    }

    /// What a reader's message says it found (a profile's and a kept calibration's "found …").
    func testValueDescriptionNamesWhatWasFound() throws {
        let root = try parse(#"["two", "a\nb", 12, 2.5, 1e300, true, null, [1], {"k": 1}]"#)
        XCTAssertEqual(root.elements?.map(\.valueDescription), [
            "the string 'two'", "the string 'a\\nb'", "the number 12", "the number 2.5", "the number 1e+300",
            "true", "null", "an array", "an object",
        ])
        let long = try parse("\"" + String(repeating: "x", count: 100) + "\"")
        XCTAssertEqual(long.valueDescription, "the string '" + String(repeating: "x", count: 80) + "'…(100 characters)")
    }

    func testDuplicateKeysKeptLastWins() throws {
        let root = try parse(#"{"k": 1, "z": 0, "k": 2}"#)
        XCTAssertEqual(root.members?.map(\.key), ["k", "z", "k"])
        XCTAssertEqual(root["k"]?.numberValue, 2)
    }

    func testStringsAndEscapes() throws {
        let root = try parse(#"["a\"b\\c\/d\n\t\u00e9\ud83d\ude00", "plain ü"]"#)
        XCTAssertEqual(root.elements?[0].stringValue, "a\"b\\c/d\n\té😀")
        XCTAssertEqual(root.elements?[1].stringValue, "plain ü")
    }

    func testNumbersAreLocaleIndependentAndExact() throws {
        XCTAssertEqual(try parse("0.1").numberValue, 0.1)
        XCTAssertEqual(try parse("-0").numberValue, 0)
        XCTAssertEqual(try parse("1E2").numberValue, 100)
        XCTAssertEqual(try parse("0.20000000298023224").numberValue, 0.20000000298023224)
    }

    func testCRLFAndBOM() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\r\n\"a\":\r\n 1}".utf8)
        let root = try JSONParser().parse(bytes)
        XCTAssertEqual(root["a"]?.position, SourcePosition(line: 3, column: 2))
    }

    func testTrailingCommas() throws {
        let e1 = try XCTUnwrap(syntaxError("{\"a\": 1,\n}"))
        XCTAssertEqual(e1.position, SourcePosition(line: 2, column: 1))
        XCTAssertTrue(e1.message.contains("trailing comma"), e1.message)
        let e2 = try XCTUnwrap(syntaxError("[1, 2, ]"))
        XCTAssertEqual(e2.position, SourcePosition(line: 1, column: 8))
        XCTAssertEqual(try parse("{\"a\": [1, 2,],}", lenient: true)["a"]?.elements?.count, 2)
        // Lenient is only about trailing commas.
        XCTAssertNotNil(syntaxError("[,]", lenient: true))
        XCTAssertNotNil(syntaxError("{,}", lenient: true))
    }

    func testErrorMessagesSayWhatWasExpected() throws {
        let cases: [(String, Int, Int, String)] = [
            ("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}' after object member, found '\"'"),
            ("[1 2]", 1, 4, "expected ',' or ']' after array element, found '2'"),
            ("{\"a\" 1}", 1, 6, "expected ':' after object key \"a\", found '1'"),
            ("{a: 1}", 1, 2, "expected a string key or '}' after '{', found 'a'"),
            ("", 1, 1, "expected a value, found end of input"),
            ("[01]", 1, 2, "leading zeros are not allowed in numbers"),
            ("[1.]", 1, 4, "expected a digit after '.', found ']'"),
            ("[-]", 1, 3, "expected a digit after '-', found ']'"),
            ("[tru]", 1, 2, "invalid literal: expected 'true'"),
            ("{\"a\": 1} x", 1, 10, "expected end of input after the top-level value, found 'x'"),
            ("\"abc", 1, 1, "unterminated string (expected '\"' before end of input)"),
            ("\"a\tb\"", 1, 3, "expected '\"' or more characters in string, found control character U+0009 (escape it)"),
            ("[1e999]", 1, 2, "number 1e999 is out of range"),
            ("[\"\\x\"]", 1, 3, "invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"),
            ("[\"\\udc00\"]", 1, 3, "unpaired low surrogate in \\u escape"),
        ]
        for (text, line, column, message) in cases {
            let e = try XCTUnwrap(syntaxError(text), text)
            XCTAssertEqual(e.position, SourcePosition(line: line, column: column), text)
            XCTAssertEqual(e.message, message, text)
        }
    }

    func testErrorPathAndInvalidUTF8() throws {
        let e = try XCTUnwrap(syntaxError("{\"Pattern\": [{\"Event\": {\"Time\": }}]}"))
        XCTAssertEqual(e.path, "Pattern[0].Event.Time")
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        XCTAssertThrowsError(try JSONParser().parse(bytes))
    }

    func testDepthLimit() {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        XCTAssertNotNil(syntaxError(deep))
        XCTAssertNoThrow(try JSONParser(options: .init(maxDepth: 400)).parse(deep))
    }
}
