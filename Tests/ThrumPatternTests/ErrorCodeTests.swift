import XCTest

@testable import ThrumPattern

/// One test per error code: code, line, column and path of the offending element.
final class ErrorCodeTests: XCTestCase {
    private func check(
        _ text: String, code: HapticErrorCode, line: Int, column: Int, path: String, contains: String,
        file: StaticString = #filePath, sourceLine: UInt = #line
    ) {
        guard let e = patternError({ _ = try readAHAP(text) }, file: file, line: sourceLine) else { return }
        XCTAssertEqual(e.code, code, e.description, file: file, line: sourceLine)
        XCTAssertEqual(e.line, line, e.description, file: file, line: sourceLine)
        XCTAssertEqual(e.column, column, e.description, file: file, line: sourceLine)
        XCTAssertEqual(e.path, path, e.description, file: file, line: sourceLine)
        XCTAssertTrue(e.message.contains(contains), e.description, file: file, line: sourceLine)
        XCTAssertEqual(e.file, "test.ahap", file: file, line: sourceLine)
    }

    /// Wraps event members in a one-event document; the event object starts at line 3, column 5.
    private func event(_ members: String) -> String {
        "{\"Version\": 1.0, \"Pattern\": [\n  {\"Event\":\n    {\(members)}}\n]}"
    }

    func testOperationNotPermitted4806ForExportingARegisteredAudioResource() throws {
        let file = HapticPattern(
            events: [HapticEvent(audioWaveform: .init(path: "tap.wav"), parameters: [], relativeTime: 0)], parameters: [], parameterCurves: [])
        XCTAssertNoThrow(try file.checkExportable())
        let registered = HapticPattern(
            events: [
                HapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0),
                HapticEvent(audioResourceID: 7, parameters: [], relativeTime: 0.1),
            ], parameters: [], parameterCurves: [])
        XCTAssertThrowsError(try registered.checkExportable()) { error in
            let e = error as! PatternError
            XCTAssertEqual(e.code, .operationNotPermitted)
            XCTAssertEqual(e.code.rawValue, -4806)
            XCTAssertEqual(e.path, "events[1].audioResourceID")
            XCTAssertTrue(e.message.contains("resource 7"), e.message)
        }
    }

    func testNotSupportedVersion4809() {
        check(
            "{\n  \"Version\": 2.0,\n  \"Pattern\": []\n}", code: .notSupported, line: 2, column: 14, path: "Version",
            contains: "expected a number from 1.0 to 1.1")
    }

    func testInvalidPatternData4813() {
        check(
            event("\"Time\": 0, \"EventType\": \"HapticTransient\",,"), code: .invalidPatternData, line: 3, column: 48,
            path: "Pattern[0].Event", contains: "expected a string key after ','")
    }

    func testInvalidPatternDictionary4814() {
        check(
            "{\"Version\": 1.0}", code: .invalidPatternDictionary, line: 1, column: 1, path: "",
            contains: "missing 'Pattern'")
        check(
            "{\"Version\": 1.0,\n \"Pattern\": []}", code: .invalidPatternDictionary, line: 2, column: 13, path: "Pattern",
            contains: "empty pattern")
        check(
            "{\"Pattern\": {}}", code: .invalidPatternDictionary, line: 1, column: 13, path: "Pattern",
            contains: "must be an array")
        check("42", code: .invalidPatternDictionary, line: 1, column: 1, path: "", contains: "found a number")
    }

    func testInvalidParameterType4820() {
        check(
            event("\"Time\": 0, \"EventType\": \"HapticTransient\", \"EventParameters\": [{\"ParameterID\": \"Loudness\", \"ParameterValue\": 1}]"),
            code: .invalidParameterType, line: 3, column: 85, path: "Pattern[0].Event.EventParameters[0].ParameterID",
            contains: "unknown event parameter 'Loudness'")
        check(
            "{\"Pattern\": [\n{\"Parameter\": {\"ParameterID\": \"HapticIntensity\", \"Time\": 0, \"ParameterValue\": 1}}]}",
            code: .invalidParameterType, line: 2, column: 31, path: "Pattern[0].Parameter.ParameterID",
            contains: "did you mean 'HapticIntensityControl'?")
    }

    func testInvalidEventType4821() {
        check(
            event("\"Time\": 0, \"EventType\": \"HapticBuzz\""), code: .invalidEventType, line: 3, column: 30,
            path: "Pattern[0].Event.EventType", contains: "unknown EventType 'HapticBuzz'")
    }

    func testInvalidEventTime4822() {
        check(
            event("\"Time\": -0.5, \"EventType\": \"HapticTransient\""), code: .invalidEventTime, line: 3, column: 14,
            path: "Pattern[0].Event.Time", contains: "negative")
        check(
            event("\"EventType\": \"HapticTransient\""), code: .invalidEventTime, line: 3, column: 5,
            path: "Pattern[0].Event.Time", contains: "missing 'Time'")
        check(
            event("\"Time\": \"0\", \"EventType\": \"HapticTransient\""), code: .invalidEventTime, line: 3, column: 14,
            path: "Pattern[0].Event.Time", contains: "is a string")
    }

    func testInvalidEventDuration4823() {
        check(
            event("\"Time\": 0, \"EventType\": \"HapticContinuous\", \"EventDuration\": -1"), code: .invalidEventDuration,
            line: 3, column: 67, path: "Pattern[0].Event.EventDuration", contains: "negative")
    }

    func testBadEventEntry4830() {
        check(
            event("\"Time\": 0"), code: .badEventEntry, line: 3, column: 5, path: "Pattern[0].Event.EventType",
            contains: "missing 'EventType'")
        check(
            event("\"Time\": 0, \"EventType\": \"AudioCustom\""), code: .badEventEntry, line: 3, column: 5,
            path: "Pattern[0].Event.EventWaveformPath", contains: "without 'EventWaveformPath'")
    }

    func testBadParameterEntry4831() {
        check(
            event("\"Time\": 0, \"EventType\": \"HapticTransient\", \"EventParameters\": [{\"ParameterID\": \"HapticIntensity\"}]"),
            code: .badParameterEntry, line: 3, column: 69, path: "Pattern[0].Event.EventParameters[0].ParameterValue",
            contains: "missing 'ParameterValue'")
        check(
            "{\"Pattern\": [\n{\"ParameterCurve\": {\"ParameterID\": \"HapticIntensityControl\", \"ParameterCurveControlPoints\": []}}]}",
            code: .badParameterEntry, line: 2, column: 20, path: "Pattern[0].ParameterCurve.Time", contains: "missing 'Time'")
        check(
            "{\"Pattern\": [\n{\"Parameter\": {\"Time\": 0, \"ParameterValue\": 1}}]}",
            code: .badParameterEntry, line: 2, column: 15, path: "Pattern[0].Parameter.ParameterID",
            contains: "missing 'ParameterID'")
    }

    func testFileNotFound4851AndUnsupportedExtension4809() {
        let missing = patternError { _ = try HapticPattern(contentsOf: "/nonexistent/dir/x.ahap") }
        XCTAssertEqual(missing?.code, .fileNotFound)
        XCTAssertEqual(missing?.code.rawValue, -4851)
        XCTAssertEqual(missing?.file, "x.ahap")
        let ext = patternError { _ = try HapticPattern(contentsOf: "/nonexistent/x.txt") }
        XCTAssertEqual(ext?.code, .notSupported)
        let url = patternError { _ = try HapticPattern(contentsOf: URL(string: "https://example.com/x.ahap")!) }
        XCTAssertEqual(url?.code, .fileNotFound)
    }

    func testDescriptionFormat() {
        let e = PatternError(
            code: .invalidEventTime, file: "a.ahap", line: 12, column: 17, path: "Pattern[3].Event.Time",
            message: "'Time' is negative (-1.0): expected a number ≥ 0 (seconds)")
        XCTAssertEqual(
            e.description,
            "a.ahap:12:17: error[-4822]: 'Time' is negative (-1.0): expected a number ≥ 0 (seconds) (at Pattern[3].Event.Time)")
        XCTAssertEqual(HapticErrorCode(rawValue: -4830), .badEventEntry)
        XCTAssertEqual(HapticErrorCode.allCases.count, 24)
        XCTAssertEqual(HapticErrorCode.invalidEventTime.description, "invalidEventTime (-4822)")
    }

    func testDictionaryErrorsHavePathsWithoutPositions() {
        let e = patternError {
            _ = try HapticPattern(dictionary: ["Pattern": [["Event": ["EventType": "HapticTransient", "Time": -1.0]]]])
        }
        XCTAssertEqual(e?.code, .invalidEventTime)
        XCTAssertEqual(e?.path, "Pattern[0].Event.Time")
        XCTAssertEqual(e?.file, "<dictionary>")
        XCTAssertEqual(e?.line, 0)
    }
}
