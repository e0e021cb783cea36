import Foundation
import ThrumTestSupport
import XCTest

@testable import ThrumPattern

/// The project's own AHAP fixtures (Tests/ThrumTestSupport/Fixtures/ahap): one per behaviour the
/// public corpus shows, each with the exact result asserted, so a clean clone tests all of them.
final class FixtureTests: XCTestCase {
    private func read(_ name: String, lenient: Bool = false) throws -> AHAPDocument {
        try AHAPReader(options: .init(lenient: lenient)).read(contentsOf: Fixtures.ahapPath(name))
    }

    private func readError(_ name: String, lenient: Bool = false) throws -> PatternError {
        let path = Fixtures.ahapPath(name)
        return try XCTUnwrap(
            patternError { _ = try AHAPReader(options: .init(lenient: lenient)).read(contentsOf: path) })
    }

    /// Every fixture file is one this class reads (no orphan fixture, none missing).
    func testEveryFixtureIsCovered() throws {
        XCTAssertEqual(
            try Fixtures.ahapNames(),
            [
                "audio-events.ahap", "every-curve.ahap", "every-event-type.ahap", "fragment.json", "haptic-clip.json",
                "legacy-times.ahap", "long-curves.ahap", "metadata-verbatim.ahap", "misspelled-keys.ahap",
                "out-of-range.ahap", "trailing-comma-curve.ahap", "trailing-comma-metadata.ahap",
                "unsorted-events.ahap",
            ])
    }

    // MARK: Trailing commas: lenient only, exact position

    func testTrailingCommaInMetadataFailsStrictlyAtItsPositionAndLoadsLeniently() throws {
        let e = try readError("trailing-comma-metadata.ahap")
        XCTAssertEqual(e.code, .invalidPatternData)
        XCTAssertEqual(e.code.rawValue, -4813)
        XCTAssertEqual(e.path, "Metadata")
        XCTAssertEqual(
            e.description,
            "trailing-comma-metadata.ahap:7:3: error[-4813]: invalid JSON: expected a string key after ',', found '}' "
                + "(a trailing comma is accepted only by the lenient reader) (at Metadata)")
        let doc = try read("trailing-comma-metadata.ahap", lenient: true)
        XCTAssertEqual(doc.pattern.events.map(\.type), [.hapticTransient, .hapticContinuous])
        XCTAssertTrue(doc.warnings.isEmpty, "\(doc.warnings)")
        guard case .object(let members)? = doc.pattern.metadata else { return XCTFail("metadata") }
        XCTAssertEqual(members.map(\.key), ["Project", "Created", "Description"])
    }

    func testTrailingCommasInPatternFailStrictlyAtTheFirstAndLoadLeniently() throws {
        let e = try readError("trailing-comma-curve.ahap")
        XCTAssertEqual(e.code, .invalidPatternData)
        XCTAssertEqual(e.line, 23)
        XCTAssertEqual(e.column, 9)
        XCTAssertEqual(e.file, "trailing-comma-curve.ahap")
        XCTAssertEqual(e.path, "Pattern[1].ParameterCurve.ParameterCurveControlPoints")
        XCTAssertTrue(e.message.contains("trailing comma"), e.message)
        let doc = try read("trailing-comma-curve.ahap", lenient: true)
        XCTAssertTrue(doc.warnings.isEmpty, "\(doc.warnings)")
        XCTAssertEqual(doc.pattern.events.count, 1)
        XCTAssertEqual(
            doc.pattern.parameterCurves.map(\.parameterID), [.hapticIntensityControl, .hapticSharpnessControl])
        XCTAssertEqual(
            doc.pattern.parameterCurves.map { $0.controlPoints.map(\.value) }, [[0.2, 1.0, 0.0], [-0.2, 0.4]])
    }

    // MARK: Not AHAP documents: −4814

    /// Reading `name` (strictly and leniently) fails with −4814 at 1:1 and exactly `message`.
    private func assertRejectedAtTheTop(_ name: String, message: String, line: UInt = #line) throws {
        for lenient in [false, true] {
            let e = try readError(name, lenient: lenient)
            XCTAssertEqual(e.code, .invalidPatternDictionary, line: line)
            XCTAssertEqual(e.code.rawValue, -4814, line: line)
            XCTAssertEqual([e.line, e.column], [1, 1], line: line)
            XCTAssertEqual(e.path, "", line: line)
            XCTAssertEqual(e.message, message, line: line)
        }
    }

    func testFragmentIsRejectedAsAFragmentInBothModes() throws {
        try assertRejectedAtTheTop(
            "fragment.json",
            message: "this is a fragment: a bare 'Pattern' array of 3 element(s) without the enclosing object; "
                + "expected an object such as { \"Version\": 1.0, \"Pattern\": [ … ] }")
    }

    func testHapticClipIsNotAHAP() throws {
        try assertRejectedAtTheTop(
            "haptic-clip.json",
            message: "not an AHAP file: this looks like a Lofelt/Meta Haptics Studio .haptic clip (keys 'version', "
                + "'metadata', 'signals'); expected a 'Pattern' array — convert the clip to AHAP first")
    }

    // MARK: Warnings that keep the pattern

    func testMisspelledKeysAreIgnoredWithDidYouMean() throws {
        let doc = try read("misspelled-keys.ahap")
        XCTAssertEqual(doc.pattern.events.map(\.type), [.hapticContinuous, .hapticTransient])
        XCTAssertTrue(doc.pattern.parameterCurves.isEmpty, "the misspelled curve is ignored, as Core Haptics does")
        XCTAssertTrue(doc.pattern.events[1].eventParameters.isEmpty)
        XCTAssertEqual(doc.warnings.map(\.kind), [.unknownKey, .unknownKey])
        XCTAssertEqual(doc.warnings.map(\.path), ["Pattern[1].ParameterCurves", "Pattern[2].Event.EventParameter"])
        XCTAssertEqual(doc.warnings.map(\.line), [16, 29])
        XCTAssertEqual(doc.warnings.map(\.column), [7, 9])
        XCTAssertEqual(
            doc.warnings[0].message,
            "unknown key 'ParameterCurves' in pattern element; ignored (did you mean 'ParameterCurve'?)")
        XCTAssertEqual(
            doc.warnings[1].message, "unknown key 'EventParameter' in Event; ignored (did you mean 'EventParameters'?)")
    }

    func testUnsortedEventsLoadInFileOrderWithOneWarning() throws {
        let doc = try read("unsorted-events.ahap")
        // Accepted (tools write files so) with one warning at the first event out of order: the
        // API would throw -4822 for the same events.
        XCTAssertEqual(doc.warnings.map(\.kind), [.unsortedEvents])
        XCTAssertEqual(doc.warnings.first?.path, "Pattern[1].Event.Time")
        XCTAssertEqual(doc.warnings.first.map { [$0.line, $0.column] }, [5, 24])
        XCTAssertTrue(doc.warnings.first?.message.contains("at 0.1 s follows one at 0.9 s") ?? false)
        XCTAssertEqual(doc.pattern.version, 1.0, "an integer Version 1 reads as 1.0")
        XCTAssertNil(doc.pattern.metadata)
        XCTAssertEqual(doc.pattern.events.map(\.relativeTime), [0.9, 0.1, 0.0, 1.5, 0.6])
        XCTAssertEqual(doc.pattern.parameters.map(\.relativeTime), [0.7])
        XCTAssertEqual(doc.pattern.duration, 1.75)
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern, "the writer keeps the order too")
    }

    func testOutOfRangeValuesAreClampedAndOverlongOrEmptyContinuousEventsWarned() throws {
        let doc = try read("out-of-range.ahap")
        XCTAssertEqual(doc.pattern.version, 1.0, "no Version reads as 1.0 without a warning")
        XCTAssertEqual(
            doc.warnings.map(\.kind), [.valueClamped, .valueClamped, .continuousTooLong, .zeroDuration, .valueClamped])
        XCTAssertEqual(doc.warnings.map(\.line), [4, 5, 7, 8, 9])
        XCTAssertEqual(doc.pattern.events[0].eventParameters.map(\.value), [1.0, 0.0])
        XCTAssertTrue(
            doc.warnings[1].message.contains("HapticSharpness -1.0 is outside 0.0…1.0; clamped to 0.0"),
            doc.warnings[1].message)
        XCTAssertEqual(doc.pattern.events[1].duration, 45, "the duration is kept; players cut it at 30 s")
        XCTAssertEqual(doc.pattern.parameters[0].value, 1.0)
    }

    // MARK: Audio events

    func testAudioEventsKeepWaveformPathAndFlags() throws {
        let doc = try read("audio-events.ahap")
        let events = doc.pattern.events
        XCTAssertEqual(
            events.map(\.type),
            [.audioContinuous, .audioCustom, .audioCustom, .audioCustom, .audioCustom, .hapticTransient])
        XCTAssertFalse(events.contains { $0.type.isHaptic && $0.type != .hapticTransient })
        XCTAssertEqual(events[0].eventParameters.map(\.value), [0.6, -0.25, -1.0, 0.9])
        XCTAssertEqual(
            events[1].waveform,
            HapticEvent.Waveform(path: "audio/tick.wav", useVolumeEnvelope: false, loopEnabled: true))
        XCTAssertEqual(events[1].duration, 2.0)
        XCTAssertEqual(
            events[2].waveform,
            HapticEvent.Waveform(path: "audio/tick.wav", useVolumeEnvelope: true, loopEnabled: false))
        XCTAssertEqual(
            events[3].waveform,
            HapticEvent.Waveform(path: "audio/not-shipped.wav", useVolumeEnvelope: true, loopEnabled: true))
        XCTAssertEqual(events[4].waveform?.useVolumeEnvelope, true, "a string flag falls back to the default")
        XCTAssertNil(events[5].waveform, "a waveform on a haptic event is ignored")
        XCTAssertEqual(doc.warnings.map(\.kind), [.audioFileNotFound, .ignoredValue, .ignoredValue])
        XCTAssertEqual(
            doc.warnings.map(\.path),
            [
                "Pattern[3].Event.EventWaveformPath", "Pattern[4].Event.EventWaveformUseVolumeEnvelope",
                "Pattern[5].Event.EventWaveformPath",
            ])
        XCTAssertEqual(doc.pattern.duration, 2.5)
        XCTAssertEqual(doc.pattern.version, 1.1)
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern)
    }

    func testEveryEventTypeAndEventParameter() throws {
        let doc = try read("every-event-type.ahap")
        XCTAssertTrue(doc.warnings.isEmpty, "\(doc.warnings)")
        XCTAssertEqual(doc.pattern.events.map(\.type), HapticEvent.EventType.allKnown)
        let ids = Set(doc.pattern.events.flatMap { $0.eventParameters.map(\.parameterID) })
        XCTAssertEqual(ids, Set(HapticEvent.ParameterID.allKnown))
        XCTAssertEqual(doc.pattern.events[1].value(of: .sustained), 1)
        XCTAssertEqual(doc.pattern.events[3].waveform?.path, "audio/tick.wav")
        XCTAssertEqual(doc.pattern.duration, 0.7, accuracy: 1e-12)
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern)
    }

    // MARK: Curves

    func testLongCurvesWarnAndAbsoluteChainsAreFlagged() throws {
        let doc = try read("long-curves.ahap")
        XCTAssertEqual(doc.pattern.parameterCurves.map(\.controlPoints.count), [20, 16, 2, 3])
        XCTAssertEqual(doc.warnings.map(\.kind), [.tooManyControlPoints, .absoluteCurveTimes, .unsortedControlPoints])
        XCTAssertEqual(
            doc.warnings.map(\.path),
            [
                "Pattern[1].ParameterCurve.ParameterCurveControlPoints",
                "Pattern[3].ParameterCurve.ParameterCurveControlPoints[0].Time",
                "Pattern[4].ParameterCurve.ParameterCurveControlPoints",
            ])
        XCTAssertTrue(doc.warnings[0].message.contains("curve has 20 control points"), doc.warnings[0].message)
        XCTAssertTrue(doc.warnings[1].message.contains("this curve starts at 7.0 s"), doc.warnings[1].message)
        XCTAssertEqual(doc.warnings[1].line, 46)
        // The curve's points are kept as written (Core Haptics' players, not the reader, decide).
        XCTAssertEqual(doc.pattern.parameterCurves[0].controlPoints.last?.relativeTime, 1.9)
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern)
    }

    func testEveryDynamicParameterAsCurveAndStep() throws {
        let doc = try read("every-curve.ahap")
        XCTAssertTrue(doc.warnings.isEmpty, "\(doc.warnings)")
        XCTAssertEqual(doc.pattern.parameterCurves.map(\.parameterID), HapticDynamicParameter.ID.allKnown)
        XCTAssertEqual(doc.pattern.parameters.map(\.parameterID), HapticDynamicParameter.ID.allKnown)
        for curve in doc.pattern.parameterCurves {
            let low: Float = curve.parameterID.isMultiplicative ? 0 : -0.5
            XCTAssertEqual(curve.controlPoints.map(\.value), [low, 0.5, 0.25], curve.parameterID.rawValue)
            XCTAssertEqual(curve.controlPoints.map(\.relativeTime), [0, 0.25, 0.5], curve.parameterID.rawValue)
        }
        XCTAssertEqual(doc.pattern.parameterCurves.map(\.relativeTime), (0..<12).map { Double($0) * 0.5 })
        XCTAssertEqual(doc.pattern.parameters.map(\.value), Array(repeating: 0.75, count: 12))
        XCTAssertEqual(doc.pattern.duration, 6.5)
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern)
    }

    // MARK: Legacy keys and metadata

    func testLegacyTimeKeysAreReadAndTimeWins() throws {
        let doc = try read("legacy-times.ahap")
        XCTAssertEqual(doc.pattern.events.map(\.relativeTime), [0.25, 0.5])
        XCTAssertEqual(doc.pattern.parameters.map(\.relativeTime), [0.75, 2.0])
        XCTAssertEqual(doc.pattern.parameterCurves.map(\.relativeTime), [1.0])
        XCTAssertEqual(doc.warnings.map(\.kind), [.ignoredValue, .ignoredValue])
        XCTAssertEqual(doc.warnings.map(\.path), ["Pattern[1].Event.EventTime", "Pattern[4].Parameter.ParameterTime"])
        XCTAssertEqual(doc.warnings.map(\.line), [7, 11])
        XCTAssertEqual(doc.warnings.map(\.column), [29, 74])
        XCTAssertEqual(doc.warnings[0].message, "'EventTime' ignored: 'Time' is also given")
    }

    func testMetadataIsKeptVerbatim() throws {
        let doc = try read("metadata-verbatim.ahap")
        XCTAssertTrue(doc.warnings.isEmpty, "\(doc.warnings)")
        let expected: JSONValue = .object([
            ("Project", .string("Thrüm — fixtures")),
            ("Notes", .string("line one\nline two\n\ttabbed \"quoted\"")),
            ("Escaped", .string("café ✓")),
            ("Revision", .number(3)),
            ("Gain", .number(0.125)),
            ("Draft", .bool(false)),
            ("Owner", .null),
            ("Tags", .array([.string("door"), .string("latch"), .number(2)])),
            ("Author", .object([("Name", .string("Thrum")), ("Zeta", .number(1)), ("Alpha", .number(2))])),
        ])
        XCTAssertEqual(doc.pattern.metadata, expected)
        let written = doc.pattern.ahapData()
        XCTAssertEqual(try HapticPattern(data: written).metadata, expected)
        let text = String(decoding: written, as: UTF8.self)
        let zeta = try XCTUnwrap(text.range(of: "\"Zeta\""))
        let alpha = try XCTUnwrap(text.range(of: "\"Alpha\""))
        XCTAssertLessThan(zeta.lowerBound, alpha.lowerBound, "member order is kept, not sorted")
    }

    // MARK: Large files

    /// A large pattern (6 000 transients, 60 sixteen-point curves; ~0.6 MB) reads completely, and an
    /// error on its last line is reported at that exact line and column.
    func testLargeFileReadsCompletelyAndLocatesAnErrorNearItsEnd() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-large-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        func document(lastType: String) -> String {
            var lines = ["{", "  \"Version\": 1.0,", "  \"Pattern\": ["]
            for i in 0..<6000 {
                let t = Double(i) / 100
                lines.append(
                    "    {\"Event\": {\"Time\": \(t), \"EventType\": \"HapticTransient\", \"EventParameters\": ["
                        + "{\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": \(Double(i % 10) / 10)}]}},")
                if i % 100 == 0 {
                    let points = (0..<16).map {
                        "{\"Time\": \(Double($0) / 16), \"ParameterValue\": \(Double($0) / 15)}"
                    }
                    lines.append(
                        "    {\"ParameterCurve\": {\"ParameterID\": \"HapticSharpnessControl\", \"Time\": \(t), "
                            + "\"ParameterCurveControlPoints\": [\(points.joined(separator: ", "))]}},")
                }
            }
            lines.append("    {\"Event\": {\"Time\": 60.5, \"EventType\": \"\(lastType)\"}}")
            lines += ["  ]", "}"]
            return lines.joined(separator: "\n")
        }

        let good = dir.appendingPathComponent("large.ahap")
        let text = document(lastType: "HapticTransient")
        XCTAssertGreaterThan(text.utf8.count, 500_000)
        try text.write(to: good, atomically: true, encoding: .utf8)
        let doc = try AHAPReader().read(contentsOf: good.path)
        XCTAssertTrue(doc.warnings.isEmpty)
        XCTAssertEqual(doc.pattern.events.count, 6001)
        XCTAssertEqual(doc.pattern.parameterCurves.count, 60)
        XCTAssertEqual(doc.pattern.duration, 60.5)
        XCTAssertEqual(doc.pattern.events[4321].relativeTime, 43.21)

        let bad = dir.appendingPathComponent("large-bad.ahap")
        try document(lastType: "HapticTransiant").write(to: bad, atomically: true, encoding: .utf8)
        let e = try XCTUnwrap(patternError { _ = try AHAPReader().read(contentsOf: bad.path) })
        XCTAssertEqual(e.code, .invalidEventType)
        XCTAssertEqual(e.line, 3 + 6000 + 60 + 1)
        XCTAssertEqual(e.column, 43)
        XCTAssertEqual(e.path, "Pattern[6060].Event.EventType")
        XCTAssertEqual(
            e.message,
            "unknown EventType 'HapticTransiant': expected one of HapticTransient, HapticContinuous, AudioContinuous, AudioCustom"
        )
    }
}
