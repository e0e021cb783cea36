import Foundation
import ThrumTestSupport
import ThrumTime
import XCTest

@testable import ThrumPattern

/// The reader decodes `Pattern` elements while it parses (`AHAPReader.read(bytes:)`), never
/// holding the whole JSON tree. Its results must be those of decoding the whole tree
/// (`read(json:)` on `JSONParser`'s tree, the reader's former path): the same pattern, the same
/// warnings in the same order, the same error with the same code, place and message. These
/// tests compare the two on the fixtures, the corpus, generated documents and mutated bytes.
final class StreamingReaderTests: XCTestCase {
    /// The outcome of reading: a document or an error.
    private enum Outcome: Equatable {
        case document(AHAPDocument)
        case error(PatternError)
    }

    /// The reader as shipped: streaming.
    private func streamed(_ bytes: [UInt8], lenient: Bool) -> Outcome {
        do {
            return .document(try AHAPReader(options: .init(lenient: lenient)).read(data: bytes))
        } catch {
            return .error(error)
        }
    }

    /// The reference: the whole tree first, then the decoder over it.
    private func wholeTree(_ bytes: [UInt8], lenient: Bool) -> Outcome {
        let root: JSONNode
        do {
            root = try JSONParser(options: lenient ? .lenient : .strict).parse(bytes)
        } catch {
            return .error(
                PatternError(
                    code: .invalidPatternData, file: "<data>", line: error.position.line, column: error.position.column,
                    path: error.path, message: "invalid JSON: \(error.message)"))
        }
        do {
            return .document(try AHAPReader(options: .init(lenient: lenient)).read(json: root, sourceName: "<data>"))
        } catch {
            return .error(error)
        }
    }

    private func assertSameOutcome(
        _ bytes: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        for lenient in [false, true] {
            let a = streamed(bytes, lenient: lenient)
            let b = wholeTree(bytes, lenient: lenient)
            if a != b {
                XCTFail(
                    "\(what) (lenient: \(lenient)): streamed \(a)\nwhole tree \(b)\ntext: \(String(decoding: bytes, as: UTF8.self))",
                    file: file, line: line)
            }
        }
    }

    func testEveryFixtureReadsTheSameStreamedAsFromTheWholeTree() throws {
        for name in try Fixtures.ahapNames() {
            let bytes = try [UInt8](Data(contentsOf: Fixtures.ahap(name)))
            assertSameOutcome(bytes, name)
        }
    }

    func testEveryCorpusFileReadsTheSameStreamedAsFromTheWholeTree() throws {
        for name in try Corpus.files() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try Corpus.path(name))))
            assertSameOutcome(bytes, name)
        }
    }

    func testGeneratedDocumentsReadTheSameStreamedAsFromTheWholeTree() {
        var random = SplitMix64(seed: 0x5EED_13)
        var outcomes: [String: Int] = [:]
        for n in 0..<600 {
            let text = Self.generatedDocument(&random)
            let bytes = Array(text.utf8)
            assertSameOutcome(bytes, "generated document \(n)")
            switch streamed(bytes, lenient: false) {
            case .document(let d): outcomes[d.warnings.isEmpty ? "valid" : "warnings", default: 0] += 1
            case .error(let e): outcomes["error \(e.code.rawValue)", default: 0] += 1
            }
        }
        // The generator reaches valid documents, warnings and several kinds of error.
        XCTAssertGreaterThan(outcomes["valid", default: 0], 0, "\(outcomes)")
        XCTAssertGreaterThan(outcomes["warnings", default: 0], 50, "\(outcomes)")
        XCTAssertGreaterThanOrEqual(outcomes.keys.filter { $0.hasPrefix("error") }.count, 5, "\(outcomes)")
    }

    func testMutatedFixturesReadTheSameStreamedAsFromTheWholeTree() throws {
        var random = SplitMix64(seed: 42)
        let alphabet = Array(#"{}[],:" 0123456789.-eE\tnulltruefalse"Time"Pattern"Event"#.utf8) + [0x0A, 0xC3, 0xFF]
        for name in try Fixtures.ahapNames() {
            let original = try [UInt8](Data(contentsOf: Fixtures.ahap(name)))
            for m in 0..<40 {
                var bytes = original
                for _ in 0...random.below(3) {
                    let at = random.below(bytes.count)
                    switch random.below(3) {
                    case 0: bytes.remove(at: at)
                    case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: at)
                    default: bytes[at] = alphabet[random.below(alphabet.count)]
                    }
                }
                assertSameOutcome(bytes, "\(name), mutation \(m)")
            }
        }
    }

    // MARK: The order of diagnostics, which streaming must keep

    func testASyntaxErrorAfterABadElementIsTheErrorReported() throws {
        let text = #"{"Pattern": [{"Event": {"EventType": "Bogus", "Time": 0}}, {"Event": ]}"#
        let error = try XCTUnwrap(patternError { _ = try AHAPReader().read(string: text) })
        XCTAssertEqual(error.code, .invalidPatternData)
        XCTAssertEqual(error.path, "Pattern[1].Event")
        assertSameOutcome(Array(text.utf8), "syntax error after a bad element")
    }

    func testTheTopLevelIsCheckedBeforeTheElementsWhereverItsKeysAre() throws {
        // Version after Pattern: its error comes before the bad element's.
        let text = #"{"Pattern": [{"Event": {"EventType": "Bogus", "Time": 0}}], "Version": 7}"#
        let error = try XCTUnwrap(patternError { _ = try AHAPReader().read(string: text) })
        XCTAssertEqual(error.code, .notSupported)
        XCTAssertEqual(error.path, "Version")
        XCTAssertEqual(error.line, 1)
        XCTAssertEqual(error.column, 72)
        // Top-level warnings come before the elements' warnings.
        let warned = #"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 0, "X": 1}}], "Y": 2}"#
        let document = try AHAPReader().read(string: warned)
        XCTAssertEqual(document.warnings.map(\.path), ["Y", "Pattern[0].Event.X"])
        assertSameOutcome(Array(text.utf8), "Version after Pattern")
        assertSameOutcome(Array(warned.utf8), "warnings")
    }

    func testTheLastPatternArrayIsTheOneDecoded() throws {
        let text = """
            {"Pattern": [{"Event": {"EventType": "Bogus", "Time": 0}}],
             "Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 2}}]}
            """
        let document = try AHAPReader().read(string: text)
        XCTAssertEqual(document.pattern.events.map(\.relativeTime), [2])
        XCTAssertEqual(document.warnings.map(\.kind), [.duplicateKey])
        // An empty last array: the first one's elements do not count.
        let emptied = #"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 2}}], "Pattern": []}"#
        let error = try XCTUnwrap(patternError { _ = try AHAPReader().read(string: emptied) })
        XCTAssertTrue(error.message.hasPrefix("empty pattern"), error.message)
        XCTAssertEqual(error.column, 82)
        // A last one that is not an array.
        let notArray = #"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 2}}], "Pattern": 3}"#
        XCTAssertEqual(try XCTUnwrap(patternError { _ = try AHAPReader().read(string: notArray) }).code, .invalidPatternDictionary)
        for t in [text, emptied, notArray] { assertSameOutcome(Array(t.utf8), t) }
    }

    func testOnlyTheTopLevelPatternIsStreamed() throws {
        let text = """
            {"Metadata": {"Pattern": [1, 2]}, "Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 1}}]}
            """
        let document = try AHAPReader().read(string: text)
        XCTAssertEqual(
            document.pattern.metadata, .object([(key: "Pattern", value: .array([.number(1), .number(2)]))]))
        assertSameOutcome(Array(text.utf8), "nested Pattern")
        // A bare array is not streamed (it is a fragment).
        let fragment = #"[{"Event": {"EventType": "HapticTransient", "Time": 1}}]"#
        XCTAssertTrue(
            try XCTUnwrap(patternError { _ = try AHAPReader().read(string: fragment) }).message.contains("fragment"))
    }

    func testALargeGeneratedPatternReadsTheSameAsFromTheWholeTree() throws {
        var text = #"{"Version": 1.0, "Pattern": ["# + "\n"
        for i in 0..<5000 {
            let kind = i % 9 == 0 ? #""HapticContinuous", "EventDuration": 0.25"# : #""HapticTransient""#
            text += #"{"Event": {"Time": \#(Double(i) * 0.05), "EventType": \#(kind), "EventParameters": ["#
                + #"{"ParameterID": "HapticIntensity", "ParameterValue": \#(Double(i % 13) / 10)}]}},"# + "\n"
        }
        text += #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": "#
            + #"[{"Time": 0, "ParameterValue": 1}, {"Time": 2, "ParameterValue": 0.5}]}}]}"#
        let document = try AHAPReader().read(string: text)
        XCTAssertEqual(document.pattern.events.count, 5000)
        XCTAssertEqual(document.pattern.parameterCurves.count, 1)
        // Intensities of 1.1 and 1.2 are clamped (5000 = 384 × 13 + 8), each with its warning and place.
        XCTAssertEqual(document.warnings.filter { $0.kind == .valueClamped }.count, 2 * 384, "\(document.warnings.filter { $0.kind != .valueClamped })")
        XCTAssertEqual(document.warnings.first?.path, "Pattern[11].Event.EventParameters[0].ParameterValue")
        XCTAssertEqual(document.warnings.first?.line, 13)
        assertSameOutcome(Array(text.utf8), "large pattern")
    }

    // MARK: The scanner's fast paths

    func testFastDecimalsAreExactlyWhatTheTextConversionGives() {
        var random = SplitMix64(seed: 7)
        var literals = ["0", "-0", "0.1", "0.05", "1.5", "123456789012345", "0.000000000000001", "99999.9999999999",
                        "86400", "-3.25", "0.30000000000000004", "1e3", "2.5E-3", "1234567890123456"]
        for _ in 0..<20_000 {
            // A JSON number: "0" or a digit 1–9 then more digits, then maybe a fraction.
            var text = random.below(4) == 0 ? "-" : ""
            let integerDigits = random.below(9)
            if integerDigits == 0 {
                text += "0"
            } else {
                text += String(1 + random.below(9))
                for _ in 1..<integerDigits { text += String(random.below(10)) }
            }
            let fractionDigits = random.below(12)
            if fractionDigits > 0 {
                text += "."
                for _ in 0..<fractionDigits { text += String(random.below(10)) }
            }
            literals.append(text)
        }
        for text in literals {
            let expected = Double(text)!
            if let fast = JSONScanner.fastDecimal(ArraySlice(text.utf8)) {
                XCTAssertEqual(fast.bitPattern, expected.bitPattern, text)
            }
            // And through the parser, fast path or not.
            XCTAssertEqual((try? JSONParser().parse(text))?.numberValue?.bitPattern, expected.bitPattern, text)
        }
        XCTAssertNil(JSONScanner.fastDecimal(ArraySlice("1234567890123456".utf8)))
        XCTAssertNil(JSONScanner.fastDecimal(ArraySlice("1e3".utf8)))
    }

    func testNumbersAndWhitespaceLeaveTheSamePlacesOnEveryPath() throws {
        // Plain numbers (one pass), others (exponent, 16 digits: the general path), and every
        // kind of line break, with the places of what follows them.
        let text = "{\"a\": -12.5, \"b\": 0,\t\"c\": 1e2,\r\n \"d\": 1234567890123456,\r\"e\":\n3, \"f\": 0.25}"
        let root = try JSONParser().parse(text)
        XCTAssertEqual(root["a"]?.numberValue, -12.5)
        XCTAssertEqual(root["c"]?.numberValue, 100)
        XCTAssertEqual(root["d"]?.numberValue, 1234567890123456)
        let places = ["b", "c", "d", "e", "f"].map { root.member($0)?.keyPosition }
        XCTAssertEqual(places, [
            SourcePosition(line: 1, column: 14), SourcePosition(line: 1, column: 22), SourcePosition(line: 2, column: 2),
            SourcePosition(line: 3, column: 1), SourcePosition(line: 4, column: 4),
        ])
        XCTAssertEqual(root["e"]?.position, SourcePosition(line: 4, column: 1))
        // Malformed numbers: the general path's errors, at the same places.
        for (bad, column, message) in [
            ("[01]", 2, "leading zeros are not allowed in numbers"), ("[1.]", 4, "expected a digit after '.', found ']'"),
            ("[-]", 3, "expected a digit after '-', found ']'"), ("[1e]", 4, "expected a digit in the exponent, found ']'"),
        ] {
            XCTAssertThrowsError(try JSONParser().parse(bad), bad) { error in
                let e = error as? JSONSyntaxError
                XCTAssertEqual(e?.message, message, bad)
                XCTAssertEqual(e?.position, SourcePosition(line: 1, column: column), bad)
            }
        }
    }

    func testPlainAndEscapedStringsParseAlikeWithTheSamePlaces() throws {
        let root = try JSONParser().parse(#"{"ascii": "HapticTransient", "é": "ü€😀x", "esc": "a\u00e9b", "k": 1}"#)
        XCTAssertEqual(root["ascii"]?.stringValue, "HapticTransient")
        XCTAssertEqual(root["é"]?.stringValue, "ü€😀x")
        XCTAssertEqual(root["esc"]?.stringValue, "aéb")
        // Columns count characters after a non-ASCII string read by the fast path.
        XCTAssertEqual(root.member("esc")?.keyPosition, SourcePosition(line: 1, column: 43))
        XCTAssertEqual(root.member("k")?.keyPosition, SourcePosition(line: 1, column: 62))
        // Invalid UTF-8 in a plain string: the same error, at the string's start.
        let bad: [UInt8] = Array(#"{"a": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        XCTAssertThrowsError(try JSONParser().parse(bad)) { error in
            let e = error as? JSONSyntaxError
            XCTAssertEqual(e?.message, "string is not valid UTF-8")
            XCTAssertEqual(e?.position, SourcePosition(line: 1, column: 7))
        }
    }

    // MARK: Generator

    /// A document mixing valid elements with every kind of mistake the reader reports.
    private static func generatedDocument(_ r: inout SplitMix64) -> String {
        func number(_ r: inout SplitMix64) -> String {
            ["0", "0.5", "1", "-1", "2.5", "1e2", "86401", "0.25", "true", "\"x\"", "null", "[]"][r.below(12)]
        }
        func element(_ r: inout SplitMix64) -> String {
            switch r.below(12) {
            case 0, 1, 2, 3:
                let type = ["HapticTransient", "HapticContinuous", "AudioContinuous", "AudioCustom", "Bogus", "hapticTransient"][
                    r.below(r.below(3) == 0 ? 6 : 2)]
                var members = ["\"EventType\": \"\(type)\"", "\"Time\": \(r.below(5) == 0 ? number(&r) : "\(r.below(100)).5")"]
                if r.below(2) == 0 { members.append("\"EventDuration\": \(r.below(4) == 0 ? number(&r) : "0.1")") }
                if r.below(3) > 0 {
                    let ids = ["HapticIntensity", "HapticSharpness", "AttackTime", "Sustained", "AudioVolume", "HapticIntensityControl", "Nope"]
                    let parameters = (0..<r.below(4)).map { _ in
                        "{\"ParameterID\": \"\(ids[r.below(r.below(4) == 0 ? 7 : 3)])\", \"ParameterValue\": \(r.below(4) == 0 ? number(&r) : "0.5")}"
                    }
                    members.append("\"EventParameters\": [\(parameters.joined(separator: ", "))]")
                }
                if r.below(6) == 0 { members.append("\"EventWaveformPath\": \"a.wav\"") }
                if r.below(8) == 0 { members.append("\"Unknown\": 1") }
                if r.below(10) == 0 { members.append("\"Time\": 3") }
                if r.below(10) == 0 { members.append("\"EventTime\": 3") }
                members.shuffle(using: &r)
                return "{\"Event\": {\(members.joined(separator: ", "))}}"
            case 4, 5:
                let id = ["HapticIntensityControl", "HapticSharpnessControl", "HapticIntensity"][r.below(r.below(4) == 0 ? 3 : 2)]
                var members = ["\"ParameterID\": \"\(id)\"", "\"Time\": \(r.below(5) == 0 ? number(&r) : "1")"]
                if r.below(5) > 0 { members.append("\"ParameterValue\": \(r.below(3) == 0 ? number(&r) : "0.5")") }
                if r.below(8) == 0 { members.append("\"ParameterTime\": 2") }
                return "{\"Parameter\": {\(members.joined(separator: ", "))}}"
            case 6, 7:
                let points = (0..<r.below(20)).map { k in
                    r.below(15) == 0 ? "{\"Time\": 1}" : "{\"Time\": \(r.below(8) == 0 ? number(&r) : "\(k)"), \"ParameterValue\": \(r.below(3) == 0 ? number(&r) : "0.5")}"
                }
                return "{\"ParameterCurve\": {\"ParameterID\": \"HapticIntensityControl\", \"Time\": \(r.below(3)), "
                    + "\"ParameterCurveControlPoints\": [\(points.joined(separator: ", "))]}}"
            case 8: return ["3", "null", "[]", "{}", "\"Event\""][r.below(5)]
            case 9: return "{\"Event\": {\"EventType\": \"HapticTransient\", \"Time\": 1}, \"Event\": {\"EventType\": \"HapticTransient\", \"Time\": 2}}"
            case 10: return "{\"Evnt\": {}, \"Parameter\": 1}"
            default: return "{\"Event\": \(number(&r))}"
            }
        }
        var top: [String] = []
        let elements = (0..<r.below(8)).map { _ in element(&r) }
        var pattern = "[" + elements.joined(separator: ", ") + (r.below(12) == 0 && !elements.isEmpty ? ", ]" : "]")
        if r.below(20) == 0 { pattern = number(&r) }
        top.append("\"Pattern\": \(pattern)")
        if r.below(2) == 0 { top.append("\"Version\": \(r.below(4) == 0 ? number(&r) : "1.0")") }
        if r.below(4) == 0 { top.append("\"Metadata\": {\"Project\": \"x\", \"Pattern\": [1]}") }
        if r.below(8) == 0 { top.append("\"Pattern\": [\(element(&r))]") }
        if r.below(8) == 0 { top.append("\"Extra\": [1, 2]") }
        top.shuffle(using: &r)
        var text = "{\n" + top.joined(separator: ",\n") + "\n}"
        switch r.below(25) {
        case 0: text.removeLast()  // unterminated
        case 1: text += " x"  // trailing garbage
        case 2: text = "[" + elements.joined(separator: ", ") + "]"  // a fragment
        default: break
        }
        return text
    }
}

extension SplitMix64 {
    /// A number in 0..<n (0 when n is 0).
    fileprivate mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
}
