import Foundation
import XCTest

@testable import ThrumPattern

/// Hostile numbers and files (issue 13): every time and duration is range-checked where it
/// enters, unreadable paths say why, and text from a file cannot drive the terminal.
final class HostileInputTests: XCTestCase {
    private func event(time: String, duration: String? = nil, type: String = "HapticTransient") -> String {
        let d = duration.map { ",\"EventDuration\":\($0)" } ?? ""
        return #"{"Pattern":[{"Event":{"Time":\#(time),"EventType":"\#(type)"\#(d)}}]}"#
    }

    func testAnEventTimeBeyondTheMaximumIsInvalidEventTimeWithItsPlace() {
        for time in ["86400.001", "1e6", "1.2e59", "1e308"] {
            let error = patternError { _ = try readAHAP(event(time: time)) }
            XCTAssertEqual(error?.code, .invalidEventTime, time)
            XCTAssertEqual(error?.path, "Pattern[0].Event.Time", time)
            XCTAssertEqual(error?.line, 1)
            XCTAssertEqual(error?.column, 30, time)
            XCTAssertTrue(error?.message.contains("beyond the maximum of 86400") == true, error?.message ?? "")
            XCTAssertTrue(error?.description.hasPrefix("test.ahap:1:30: error[-4822]: ") == true, error?.description ?? "")
        }
        // The maximum itself is accepted.
        XCTAssertEqual(try readAHAP(event(time: "86400")).pattern.events.first?.relativeTime, 86_400)
        XCTAssertEqual(try readAHAP(event(time: "3600")).pattern.events.first?.relativeTime, 3_600)
    }

    func testAnEventDurationBeyondTheMaximumIsInvalidEventDuration() {
        let error = patternError { _ = try readAHAP(event(time: "1", duration: "1e9", type: "HapticContinuous")) }
        XCTAssertEqual(error?.code, .invalidEventDuration)
        XCTAssertEqual(error?.path, "Pattern[0].Event.EventDuration")
        XCTAssertTrue(error?.description.contains("error[-4823]") == true)
        XCTAssertNoThrow(try readAHAP(event(time: "1", duration: "86400", type: "HapticContinuous")))
    }

    func testParameterCurveAndControlPointTimesAreBoundedToo() {
        let parameter = #"{"Pattern":[{"Parameter":{"ParameterID":"HapticIntensityControl","Time":1e7,"ParameterValue":1}}]}"#
        let e1 = patternError { _ = try readAHAP(parameter) }
        XCTAssertEqual(e1?.code, .badParameterEntry)
        XCTAssertEqual(e1?.path, "Pattern[0].Parameter.Time")
        let curve = #"{"Pattern":[{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":0,"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":1},{"Time":1e300,"ParameterValue":0}]}}]}"#
        let e2 = patternError { _ = try readAHAP(curve) }
        XCTAssertEqual(e2?.code, .badParameterEntry)
        XCTAssertEqual(e2?.path, "Pattern[0].ParameterCurve.ParameterCurveControlPoints[1].Time")
        XCTAssertTrue(e2?.message.contains("beyond the maximum") == true)
    }

    func testDuplicateParametersGiveOneWarningPerParameterHoweverMany() throws {
        let one = #"{"ParameterID":"HapticIntensity","ParameterValue":0.5}"#
        let last = #"{"ParameterID":"HapticIntensity","ParameterValue":0.25}"#
        let sharp = #"{"ParameterID":"HapticSharpness","ParameterValue":0.5}"#
        let list = Array(repeating: one, count: 200_000 - 1) + [last, sharp]
        let text = #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":[\#(list.joined(separator: ","))]}}]}"#
        let document = try readAHAP(text)
        let duplicates = document.warnings.filter { $0.kind == .duplicateParameter }
        XCTAssertEqual(duplicates.count, 1)
        XCTAssertEqual(duplicates.first?.path, "Pattern[0].Event.EventParameters[0]")
        XCTAssertTrue(duplicates.first?.message.contains("'HapticIntensity' is given 200000 times") == true, duplicates.first?.message ?? "")
        XCTAssertEqual(document.pattern.events[0].value(of: .hapticIntensity), 0.25, "the last one wins")
    }

    // MARK: Files that cannot be read

    private func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-hostile-\(getpid())-\(name.hashValue)")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    func testADirectoryIsReportedAsOneNotAsMissing() throws {
        let dir = try scratch().appendingPathComponent("folder.ahap")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let error = patternError { _ = try AHAPReader().read(contentsOf: dir.path) }
        XCTAssertEqual(error?.code, .fileNotFound)
        XCTAssertTrue(error?.message.hasSuffix("it is a directory, not a regular file") == true, error?.message ?? "")
        XCTAssertEqual(error?.description.contains(":0:0"), false, "no fake position for a file-level error")
    }

    func testAFIFOIsRefusedWithoutBlocking() throws {
        let fifo = try scratch().appendingPathComponent("pipe.ahap").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let error = patternError { _ = try AHAPReader().read(contentsOf: fifo) }
        XCTAssertTrue(error?.message.hasSuffix("it is a FIFO (named pipe), not a regular file") == true, error?.message ?? "")
    }

    func testAMissingFileAndAPermissionProblemAreTold() throws {
        let dir = try scratch()
        let missing = patternError { _ = try AHAPReader().read(contentsOf: dir.appendingPathComponent("gone.ahap").path) }
        XCTAssertTrue(missing?.message.hasSuffix("no such file") == true)
        let locked = dir.appendingPathComponent("locked.ahap").path
        FileManager.default.createFile(atPath: locked, contents: Data(#"{"Pattern":[]}"#.utf8), attributes: [.posixPermissions: 0])
        if getuid() == 0 {
            // Root reads anything; the file is then read and judged on its content.
            XCTAssertEqual(patternError { _ = try AHAPReader().read(contentsOf: locked) }?.code, .invalidPatternDictionary)
        } else {
            let error = patternError { _ = try AHAPReader().read(contentsOf: locked) }
            XCTAssertTrue(error?.message.contains("permission denied") == true, error?.message ?? "")
        }
    }

    func testAFileIsReadWholeWithoutDoublingItsBuffer() throws {
        // A regular file reads exactly (the buffer is fstat's size; a small probe read finds the end).
        let path = try scratch().appendingPathComponent("bytes.ahap").path
        let content = (0..<10_000).map { UInt8($0 % 251) }
        FileManager.default.createFile(atPath: path, contents: Data(content))
        XCTAssertEqual(try PatternFile.bytes(at: path).get(), content)
        let empty = try scratch().appendingPathComponent("empty.ahap").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        XCTAssertEqual(try PatternFile.bytes(at: empty).get(), [])
        #if os(Linux)
        // A file longer than fstat says (procfs reports 0 bytes): read on to its end.
        let status = String(decoding: try PatternFile.bytes(at: "/proc/self/status").get(), as: UTF8.self)
        XCTAssertTrue(status.hasPrefix("Name:"), status)
        XCTAssertTrue(status.contains("VmRSS"), status)
        #endif
    }

    // MARK: Control characters

    func testControlCharactersFromAFileAreEscapedWhenEchoed() throws {
        let key = #"\u001b[2K\rFAKE.ahap: ok\n\u0000"#
        let text = #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","\#(key)":1}}]}"#
        let document = try readAHAP(text)
        let line = try XCTUnwrap(document.warnings.first).description
        XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 }, line)
        XCTAssertTrue(line.contains(#"'\u{1B}[2K\rFAKE.ahap: ok\n\u{0}'"#), line)
        XCTAssertEqual(TextEscaping.escaped("plain text"), "plain text")
        XCTAssertEqual(TextEscaping.escaped("a\u{202E}b\u{7F}"), #"a\u{202E}b\u{7F}"#)
    }

    /// A 10 MB key is named in its warning (message and path) by its first 80 characters and its
    /// length; short keys are quoted whole.
    func testAHugeKeyIsQuotedByItsFirst80Characters() throws {
        let key = String(repeating: "K", count: 10_000_000)
        let document = try readAHAP(#"{"Pattern":[{"Event":{"Time":0,"\#(key)":1,"EventType":"HapticTransient"}}]}"#)
        let line = try XCTUnwrap(document.warnings.first).description
        XCTAssertLessThan(line.utf8.count, 600, String(line.prefix(600)))
        XCTAssertTrue(line.contains("'\(String(repeating: "K", count: 80))'…(10000000 characters)"), String(line.prefix(600)))
        XCTAssertEqual(TextEscaping.quotedExcerpt("Time"), "'Time'")
        XCTAssertEqual(TextEscaping.excerpt(String(repeating: "9", count: 81)), String(repeating: "9", count: 80) + "…(81 characters)")
        XCTAssertEqual(TextEscaping.excerpt(String(repeating: "9", count: 80)), String(repeating: "9", count: 80))
    }
}
