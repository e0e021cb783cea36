import XCTest

@testable import ThrumPattern

/// The scanner's vocabulary (the AHAP keys and names made once): a string is handed out from it
/// only for exactly its bytes, and a document reads to the same tree with it as without.
final class JSONVocabularyTests: XCTestCase {
    func word(_ v: JSONVocabulary, _ s: String) -> String? {
        Array(s.utf8).withUnsafeBufferPointer { v.word($0) }
    }

    func testOnlyTheSameBytesFindAWord() {
        let v = JSONVocabulary(["Time", "HapticIntensity", "HapticSharpness", "Time", "Grüße", "HapticContinuous", ""])
        XCTAssertEqual(word(v, "Time"), "Time")
        XCTAssertEqual(word(v, "HapticSharpness"), "HapticSharpness")
        XCTAssertEqual(word(v, "HapticIntensity"), "HapticIntensity")
        XCTAssertEqual(word(v, "HapticContinuous"), "HapticContinuous")
        XCTAssertEqual(word(v, ""), "")
        for miss in ["time", "Tim", "Times", "HapticIntensitY", "xapticIntensity", "HapticContinuouss", "Grüße", "Pattern"] {
            XCTAssertNil(word(v, miss), miss)
        }
    }

    func testADocumentReadsToTheSameTreeWithTheAHAPVocabulary() throws {
        let text = """
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0.1, "EventType": "HapticTransient", "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpnes", "ParameterValue": 1}]}},
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0,
                "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]}},
              {"Event": {"Time": 0.2, "EventType": "Haptic\\u0054ransient", "EventDuration": 1, "Ev\u{e9}nt": "Time "}}]}
            """
        let bytes = Array(text.utf8)
        var plain = JSONScanner(bytes: bytes, options: .strict)
        var worded = JSONScanner(bytes: bytes, options: .strict)
        worded.vocabulary = AHAPDecoder.vocabulary
        let a = try plain.parseDocument(), b = try worded.parseDocument()
        XCTAssertEqual(a, b)
        XCTAssertEqual(b["Pattern"]?.elements?.count, 3)
        XCTAssertEqual(b["Pattern"]?.elements?[0]["Event"]?["EventType"]?.stringValue, "HapticTransient")
    }

    func testAWordHasTheIdOfItsFirstPlaceInTheList() {
        let v = JSONVocabulary(["Time", "HapticIntensity", "Time", "Grüße", "EventType"])
        XCTAssertEqual(v.id(of: "Time"), 0)
        XCTAssertEqual(v.id(of: "HapticIntensity"), 1)
        XCTAssertEqual(v.id(of: "EventType"), 4)
        XCTAssertEqual(v.id(of: "Grüße"), -1)
        XCTAssertEqual(v.id(of: "time"), -1)
        // The decoder's keys come first: a key's id is its raw value.
        for key in AHAPDecoder.Key.allCases {
            XCTAssertEqual(AHAPDecoder.vocabulary.id(of: key.text), key.rawValue, key.text)
        }
    }

    func testAKeyWrittenWithEscapesIsTheSameKey() throws {
        // "Ti\u006De" is "Time": the scanner gives it the word's id, so it is the event's Time,
        // and it repeats the key "Time" (the last one wins, with a warning), on both paths.
        let text = #"""
            {"Pattern": [{"Event": {"Time": 1, "EventType": "HapticTransient", "Ti\u006De": 2}},
              {"Event": {"Ev\u0065ntType": "HapticTransient", "Ti\u006De": 3}}]}
            """#
        let streamed = try AHAPReader().read(string: text)
        let tree = try AHAPReader().read(json: try JSONParser().parse(text), sourceName: "<string>")
        XCTAssertEqual(streamed, tree)
        XCTAssertEqual(streamed.pattern.events.map(\.relativeTime), [2, 3])
        XCTAssertEqual(streamed.warnings.map(\.kind), [.duplicateKey])
        XCTAssertEqual(streamed.warnings.first?.path, "Pattern[0].Event.Time")
    }
}
