import Foundation
import ThrumPattern
import ThrumStudio
import ThrumTestSupport
import XCTest

/// Edits in place on the repository's own fixtures and examples: nothing changed gives the same
/// bytes; a changed value changes its own characters only; the result reads back as AHAP with
/// the new values (the reader of `thrum validate` is the judge).
final class AHAPTextEditTests: XCTestCase {
    /// Every AHAP file of the fixtures and examples that reads (strict or lenient).
    private func corpus() throws -> [(String, Data)] {
        var files: [(String, Data)] = []
        for name in try Fixtures.ahapNames() where name.hasSuffix(".ahap") {
            files.append((name, try Data(contentsOf: Fixtures.ahap(name))))
        }
        let examples = PackageRoot.file("examples")
        for name in try FileManager.default.contentsOfDirectory(atPath: examples.path) where name.hasSuffix(".ahap") {
            files.append((name, try Data(contentsOf: examples.appendingPathComponent(name))))
        }
        XCTAssertGreaterThan(files.count, 10)
        return files
    }

    private func read(_ data: Data) throws -> HapticPattern {
        try AHAPReader(options: AHAPReader.Options(lenient: true, checksAudioFiles: false)).read(data: data).pattern
    }

    func testNoChangeIsByteStableOnEveryFixture() throws {
        for (name, data) in try corpus() {
            guard let pattern = try? read(data) else { continue }
            let edit = try AHAPTextEdit(text: data)
            XCTAssertEqual(try edit.applying([]), data, name)
            // (A file the reader warns about may hold values it clamps: those are not "as they were".)
            let warned = try AHAPReader(options: AHAPReader.Options(lenient: true, checksAudioFiles: false)).read(data: data).warnings
            guard warned.isEmpty else { continue }
            // Writing back every value as it is changes nothing either.
            let same = pattern.events.indices.map { i in
                AHAPTextEdit.Change(
                    event: i, time: pattern.events[i].relativeTime,
                    intensity: pattern.events[i].value(of: .hapticIntensity).map { JSONNumberFormat.double(fromFloat: $0) })
            }
            XCTAssertEqual(try edit.applying(same), data, "\(name): values written back as they were")
        }
    }

    func testChangedTimeTouchesOnlyItsNumberOnEveryFixture() throws {
        var edited = 0
        for (name, data) in try corpus() {
            guard let pattern = try? read(data), let k = pattern.events.indices.last else { continue }
            let newTime = pattern.events[k].relativeTime + 0.0125
            let out = try AHAPTextEdit(text: data).applying([AHAPTextEdit.Change(event: k, time: newTime)])
            let after = try read(out)
            XCTAssertEqual(after.events.count, pattern.events.count, name)
            XCTAssertEqual(after.events[k].relativeTime, newTime, accuracy: 1e-9, name)
            for i in pattern.events.indices where i != k {
                XCTAssertEqual(after.events[i], pattern.events[i], "\(name): event \(i) untouched")
            }
            // Outside one run of changed characters, every byte is the original's.
            let a = Array(data), b = Array(out)
            let prefix = zip(a, b).prefix(while: { $0 == $1 }).count
            let suffix = zip(a.reversed(), b.reversed()).prefix(while: { $0 == $1 }).count
            let changedOld = String(decoding: a[prefix..<max(prefix, a.count - suffix)], as: UTF8.self)
            let changedNew = String(decoding: b[prefix..<max(prefix, b.count - suffix)], as: UTF8.self)
            XCTAssertLessThanOrEqual(changedOld.count, 24, "\(name): only the number changed ('\(changedOld)' → '\(changedNew)')")
            XCTAssertFalse(changedNew.contains(where: { !"0123456789.e-+".contains($0) }), "\(name): '\(changedNew)'")
            edited += 1
        }
        XCTAssertGreaterThan(edited, 5)
    }

    func testIntensityAndSharpnessAndDuration() throws {
        let data = try Data(contentsOf: PackageRoot.file("examples/heartbeat.ahap"))
        let out = try AHAPTextEdit(text: data).applying([AHAPTextEdit.Change(event: 1, intensity: 0.75, sharpness: 0.9)])
        let p = try read(out)
        XCTAssertEqual(p.events[1].value(of: .hapticIntensity), 0.75)
        XCTAssertEqual(p.events[1].value(of: .hapticSharpness), 0.9)
        XCTAssertEqual(p.events[0], try read(data).events[0])
        // A parameter the event lacks is added to its list; a duration the event lacks is added.
        let bare = Data(#"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.2, "EventParameters": []}}]}"#.utf8)
        let filled = try AHAPTextEdit(text: bare).applying([AHAPTextEdit.Change(event: 0, duration: 0.3, intensity: 0.5, sharpness: 0.25)])
        let q = try read(filled)
        XCTAssertEqual(q.events[0].duration, 0.3, accuracy: 1e-12)
        XCTAssertEqual(q.events[0].value(of: .hapticIntensity), 0.5)
        XCTAssertEqual(q.events[0].value(of: .hapticSharpness), 0.25)
    }

    func testDeleteAndAddKeepTheRest() throws {
        let data = try Data(contentsOf: PackageRoot.file("examples/heartbeat.ahap"))
        let before = try read(data)
        for k in before.events.indices {
            let out = try AHAPTextEdit(text: data).applying([], deleting: [k])
            let after = try read(out)
            XCTAssertEqual(after.events, before.events.enumerated().filter { $0.offset != k }.map(\.element), "delete \(k)")
        }
        let added = try AHAPTextEdit(text: data).applying(
            [], adding: [AHAPTextEdit.NewEvent(type: "HapticTransient", time: 0.5, intensity: 0.4, sharpness: 0.6)])
        let after = try read(added)
        XCTAssertEqual(Array(after.events.prefix(before.events.count)), before.events)
        XCTAssertEqual(after.events.last?.relativeTime, 0.5)
        XCTAssertEqual(after.events.last?.value(of: .hapticIntensity), 0.4)
        // The new element sits on its own line in the file's indentation.
        XCTAssertTrue(String(decoding: added, as: UTF8.self).contains(",\n    { \"Event\": { \"Time\": 0.5,"))
        XCTAssertTrue(Array(added).starts(with: Array(data.prefix(data.count - 10))))
    }

    func testCurvePointEditTouchesOnlyItsNumbers() throws {
        let data = try Data(contentsOf: Fixtures.ahap("every-curve.ahap"))
        let before = try read(data)
        let out = try AHAPTextEdit(text: data).applying([], points: [AHAPTextEdit.PointChange(curve: 1, point: 1, time: 0.3, value: 0.75)])
        let after = try read(out)
        XCTAssertEqual(after.parameterCurves[1].controlPoints[1].relativeTime, 0.3, accuracy: 1e-12)
        XCTAssertEqual(after.parameterCurves[1].controlPoints[1].value, 0.75)
        XCTAssertEqual(after.events, before.events)
        XCTAssertEqual(after.parameterCurves[0], before.parameterCurves[0])
        XCTAssertEqual(Array(after.parameterCurves.dropFirst(2)), Array(before.parameterCurves.dropFirst(2)))
        let text = String(decoding: data, as: UTF8.self)
        let expected = text.replacingOccurrences(
            of: #""HapticSharpnessControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0.0, "ParameterValue": -0.5}, {"Time": 0.25, "ParameterValue": 0.5}"#,
            with: #""HapticSharpnessControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0.0, "ParameterValue": -0.5}, {"Time": 0.3, "ParameterValue": 0.75}"#)
        XCTAssertNotEqual(expected, text)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), expected)
        XCTAssertThrowsError(try AHAPTextEdit(text: data).applying([], points: [AHAPTextEdit.PointChange(curve: 1, point: 9, value: 0)]))
    }

    func testDiagnosticPathsNameTheirEvent() throws {
        let text = Data(#"{"Version": 1, "Pattern": [{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": []}}, {"Event": {"Time": 0, "EventType": "HapticTransient"}}, {"Event": {"Time": 1, "EventType": "HapticTransient"}}]}"#.utf8)
        let edit = try AHAPTextEdit(text: text)
        XCTAssertEqual(edit.eventIndex(atPath: "Pattern[2].Event.Time"), 1)
        XCTAssertEqual(edit.eventIndex(atPath: "Pattern[1].Event"), 0)
        XCTAssertNil(edit.eventIndex(atPath: "Pattern[0].ParameterCurve"))
        XCTAssertNil(edit.eventIndex(atPath: "Version"))
    }

    func testBadInputIsAnErrorNotACrash() {
        XCTAssertThrowsError(try AHAPTextEdit(text: Data("{\"Pattern\": [".utf8)))
        let data = Data(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#.utf8)
        XCTAssertThrowsError(try AHAPTextEdit(text: data).applying([AHAPTextEdit.Change(event: 3, time: 1)]))
        XCTAssertThrowsError(try AHAPTextEdit(text: data).applying([], deleting: [7]))
    }
}
