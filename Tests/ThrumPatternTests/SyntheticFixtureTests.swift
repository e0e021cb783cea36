import Foundation
import XCTest

@testable import ThrumPattern

/// Synthetic fixtures for what no public AHAP file uses: AudioContinuous, the other audio
/// parameters, the waveform keys, the time controls.
final class SyntheticFixtureTests: XCTestCase {
    func testAudioContinuousWithAllAudioParameters() throws {
        let doc = try readAHAP(
            """
            {"Version": 1.1, "Pattern": [
              {"Event": {"Time": 0.25, "EventType": "AudioContinuous", "EventDuration": 2.5, "EventParameters": [
                {"ParameterID": "AudioVolume", "ParameterValue": 0.8},
                {"ParameterID": "AudioPitch", "ParameterValue": -0.5},
                {"ParameterID": "AudioPan", "ParameterValue": 0.75},
                {"ParameterID": "AudioBrightness", "ParameterValue": 0.3},
                {"ParameterID": "AttackTime", "ParameterValue": 0.1},
                {"ParameterID": "DecayTime", "ParameterValue": 0.2},
                {"ParameterID": "ReleaseTime", "ParameterValue": 0.4},
                {"ParameterID": "Sustained", "ParameterValue": 0}
              ]}}
            ]}
            """)
        XCTAssertTrue(doc.warnings.isEmpty, "\(doc.warnings)")
        let e = try XCTUnwrap(doc.pattern.events.first)
        XCTAssertEqual(e.type, .audioContinuous)
        XCTAssertFalse(e.type.isHaptic)
        XCTAssertEqual(e.relativeTime, 0.25)
        XCTAssertEqual(e.duration, 2.5)
        XCTAssertEqual(e.value(of: .audioPitch), -0.5)
        XCTAssertEqual(e.value(of: .audioPan), 0.75)
        XCTAssertEqual(e.value(of: .audioBrightness), 0.3)
        XCTAssertEqual(e.value(of: .sustained), 0)
        XCTAssertEqual(e.eventParameters.count, 8)
        XCTAssertEqual(doc.pattern.version, 1.1)
        XCTAssertEqual(doc.pattern.duration, 2.75)
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern)
    }

    func testAudioParameterRangesClampWithWarnings() throws {
        let doc = try readAHAP(
            """
            {"Pattern": [{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [
              {"ParameterID": "AudioPitch", "ParameterValue": -3},
              {"ParameterID": "AudioPan", "ParameterValue": 1.5},
              {"ParameterID": "AudioVolume", "ParameterValue": -0.1}
            ]}}]}
            """)
        let e = doc.pattern.events[0]
        XCTAssertEqual(e.eventParameters.map(\.value), [-1, 1, 0])
        XCTAssertEqual(doc.warnings.map(\.kind), [.valueClamped, .valueClamped, .valueClamped])
        XCTAssertEqual(doc.warnings[0].path, "Pattern[0].Event.EventParameters[0].ParameterValue")
        XCTAssertEqual(doc.warnings[0].line, 2)
        XCTAssertEqual(doc.warnings[0].column, 51)
    }

    func testWaveformKeysAndAudioFileResolution() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-ahap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sounds"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data([0x52, 0x49, 0x46, 0x46]).write(to: dir.appendingPathComponent("sounds/hit.wav"))
        let text = """
            {"Pattern": [
              {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "sounds/hit.wav",
                         "EventWaveformUseVolumeEnvelope": false, "EventWaveformLoopEnabled": true, "EventDuration": 3}},
              {"Event": {"Time": 1, "EventType": "AudioCustom", "EventWaveformPath": "sounds/missing.wav"}},
              {"Event": {"Time": 2, "EventType": "HapticTransient", "EventWaveformPath": "sounds/hit.wav"}}
            ]}
            """
        let file = dir.appendingPathComponent("pattern.ahap")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let doc = try AHAPReader().read(contentsOf: file.path)
        let w = try XCTUnwrap(doc.pattern.events[0].waveform)
        XCTAssertEqual(w, HapticEvent.Waveform(path: "sounds/hit.wav", useVolumeEnvelope: false, loopEnabled: true))
        XCTAssertEqual(doc.pattern.events[1].waveform, HapticEvent.Waveform(path: "sounds/missing.wav"))
        XCTAssertNil(doc.pattern.events[2].waveform)
        XCTAssertEqual(doc.warnings.map(\.kind), [.audioFileNotFound, .ignoredValue])
        XCTAssertEqual(doc.warnings[0].path, "Pattern[1].Event.EventWaveformPath")
        XCTAssertEqual(doc.warnings[0].line, 4)
        // From data, the base directory option is the search location.
        let fromData = try AHAPReader(options: .init(baseDirectory: dir.path)).read(string: text)
        XCTAssertEqual(fromData.warnings.filter { $0.kind == .audioFileNotFound }.count, 1)
        // Without any search location relative paths are not checked.
        XCTAssertFalse(try readAHAP(text).warnings.contains { $0.kind == .audioFileNotFound })
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern)
    }

    func testTimeControlsAndAllDynamicParameters() throws {
        var elements: [String] = []
        for (i, id) in HapticDynamicParameter.ID.allKnown.enumerated() {
            elements.append(
                "{\"Parameter\": {\"ParameterID\": \"\(id.rawValue)\", \"Time\": \(Double(i) / 10), \"ParameterValue\": 0.5}}")
        }
        elements.append(
            """
            {"ParameterCurve": {"ParameterID": "HapticAttackTimeControl", "Time": 0.5,
              "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": -1}, {"Time": 0.5, "ParameterValue": 1}]}}
            """)
        elements.append(
            """
            {"ParameterCurve": {"ParameterID": "AudioReleaseTimeControl", "ParameterTime": 1,
              "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.2}]}}
            """)
        let doc = try readAHAP("{\"Pattern\": [\(elements.joined(separator: ",\n"))]}")
        XCTAssertTrue(doc.warnings.isEmpty, "\(doc.warnings)")
        XCTAssertEqual(doc.pattern.parameters.map(\.parameterID), HapticDynamicParameter.ID.allKnown)
        XCTAssertEqual(doc.pattern.parameterCurves.map(\.parameterID), [.hapticAttackTimeControl, .audioReleaseTimeControl])
        XCTAssertEqual(doc.pattern.parameterCurves[0].controlPoints.map(\.value), [-1, 1])
        XCTAssertEqual(doc.pattern.parameterCurves[1].relativeTime, 1)
        XCTAssertEqual(doc.pattern.duration, 1.1)
        XCTAssertEqual(try HapticPattern(data: doc.pattern.ahapData()), doc.pattern)
    }

    func testDynamicParameterRangesAndMissingValue() throws {
        let doc = try readAHAP(
            """
            {"Pattern": [
              {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": -0.5}},
              {"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": -0.5}},
              {"Parameter": {"ParameterID": "HapticIntensityControl", "ParameterTime": 1}}
            ]}
            """)
        XCTAssertEqual(doc.pattern.parameters.map(\.value), [0, -0.5, 0])
        XCTAssertEqual(doc.pattern.parameters[2].relativeTime, 1)
        XCTAssertEqual(doc.warnings.map(\.kind), [.valueClamped, .missingValue])
        XCTAssertTrue(doc.warnings[1].message.contains("silences HapticIntensityControl"))
    }

    func testCurveWarnings() throws {
        let points = (0..<17).map { "{\"Time\": \(Double($0) / 10), \"ParameterValue\": 0.5}" }.joined(separator: ", ")
        let doc = try readAHAP(
            """
            {"Pattern": [
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [\(points)]}},
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 2,
                "ParameterCurveControlPoints": [{"Time": 2, "ParameterValue": 1}, {"Time": 3, "ParameterValue": 0}]}},
              {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0,
                "ParameterCurveControlPoints": [{"Time": 1, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}},
              {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0,
                "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"ParameterValue": 0}]}},
              {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0,
                "ParameterCurveControlPoints": [{"Time": -1, "ParameterValue": 0}]}}
            ]}
            """)
        XCTAssertEqual(
            doc.warnings.map(\.kind),
            [.tooManyControlPoints, .absoluteCurveTimes, .unsortedControlPoints, .controlPointsDropped, .valueClamped])
        XCTAssertEqual(doc.warnings[0].path, "Pattern[0].ParameterCurve.ParameterCurveControlPoints")
        XCTAssertEqual(doc.warnings[0].line, 2)
        XCTAssertEqual(doc.warnings[1].path, "Pattern[1].ParameterCurve.ParameterCurveControlPoints[0].Time")
        XCTAssertEqual(doc.warnings[1].line, 4)
        XCTAssertEqual(doc.warnings[1].column, 46)
        XCTAssertEqual(doc.pattern.parameterCurves.map(\.controlPoints.count), [17, 2, 2, 0, 1])
        XCTAssertEqual(doc.pattern.parameterCurves[4].controlPoints[0].relativeTime, 0)
        // Curve point times are relative to the curve's Time (Apple's rule).
        XCTAssertEqual(doc.pattern.duration, 5)
    }

    func testContinuousLongerThan30sAndZeroDuration() throws {
        let doc = try readAHAP(
            """
            {"Pattern": [
              {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}},
              {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30.5}},
              {"Event": {"Time": 0, "EventType": "HapticContinuous"}},
              {"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuration": 40}}
            ]}
            """)
        XCTAssertEqual(doc.warnings.map(\.kind), [.continuousTooLong, .zeroDuration])
        XCTAssertEqual(doc.warnings[0].path, "Pattern[1].Event.EventDuration")
        XCTAssertEqual(doc.pattern.events[1].duration, 30.5)
        XCTAssertEqual(doc.pattern.duration, 40)
    }

    func testUnknownAndDuplicateKeysAndLegacyAliases() throws {
        let doc = try readAHAP(
            """
            {"Version": 1, "Extra": true, "Pattern": [
              {"Event": {"EventTime": 0.5, "EventType": "HapticTransient", "Intensity": 1,
                         "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.2, "Note": "x"}]}},
              {"Event": {"Time": 1, "Time": 2, "EventType": "HapticTransient"}},
              [1, 2],
              {"event": {}}
            ]}
            """)
        XCTAssertEqual(
            doc.warnings.map(\.kind), [.unknownKey, .unknownKey, .unknownKey, .duplicateKey, .ignoredValue, .unknownKey])
        XCTAssertEqual(doc.warnings[0].path, "Extra")
        XCTAssertEqual(doc.warnings[1].path, "Pattern[0].Event.Intensity")
        XCTAssertEqual(doc.warnings[2].path, "Pattern[0].Event.EventParameters[0].Note")
        XCTAssertEqual(doc.warnings[3].path, "Pattern[1].Event.Time")
        XCTAssertTrue(doc.warnings[5].message.contains("did you mean 'Event'?"))
        XCTAssertEqual(doc.pattern.events.map(\.relativeTime), [0.5, 2])
    }

    func testVersionHandling() throws {
        let body = "\"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}}]"
        XCTAssertEqual(try readAHAP("{\(body)}").pattern.version, 1.0)
        XCTAssertTrue(try readAHAP("{\(body)}").warnings.isEmpty)
        XCTAssertEqual(try readAHAP("{\"Version\": 1, \(body)}").pattern.version, 1.0)
        let stringVersion = try readAHAP("{\"Version\": \"1.0\", \(body)}")
        XCTAssertEqual(stringVersion.warnings.map(\.kind), [.versionAssumed])
        XCTAssertEqual(patternError { _ = try readAHAP("{\"Version\": 0.9, \(body)}") }?.code, .notSupported)
    }

    func testUnsortedEventsAreAcceptedWithOneWarningPerDocument() throws {
        let doc = try readAHAP(
            """
            {"Pattern": [{"Event": {"Time": 1, "EventType": "HapticTransient"}},
                         {"Event": {"Time": 0, "EventType": "HapticTransient"}},
                         {"Event": {"Time": 0.5, "EventType": "HapticTransient"}}]}
            """)
        XCTAssertEqual(doc.warnings.map(\.kind), [.unsortedEvents])
        XCTAssertEqual(doc.warnings.first?.path, "Pattern[1].Event.Time")
        XCTAssertEqual(doc.pattern.events.map(\.relativeTime), [1, 0, 0.5])
        // Equal times are in order.
        let ties = try readAHAP(
            """
            {"Pattern": [{"Event": {"Time": 0.2, "EventType": "HapticTransient"}},
                         {"Event": {"Time": 0.2, "EventType": "HapticTransient"}}]}
            """)
        XCTAssertTrue(ties.warnings.isEmpty)
    }

    func testDictionaryInputAcceptsSwiftAndFoundationNumbers() throws {
        let dict: [String: Any] = [
            "Version": 1,
            "Pattern": [
                ["Event": ["Time": Float(0.1), "EventType": "HapticContinuous", "EventDuration": NSNumber(value: 0.5),
                           "EventParameters": [["ParameterID": "HapticIntensity", "ParameterValue": 1],
                                               ["ParameterID": "HapticSharpness", "ParameterValue": UInt8(0)]]]],
                ["Event": ["Time": 0.3, "EventType": "AudioCustom", "EventWaveformPath": "/nonexistent/a.wav",
                           "EventWaveformLoopEnabled": true, "EventWaveformUseVolumeEnvelope": NSNumber(value: false)]],
                ["ParameterCurve": ["ParameterID": "HapticIntensityControl", "Time": 0,
                                    "ParameterCurveControlPoints": [["Time": 0, "ParameterValue": 0.5]]]],
            ] as [Any],
        ]
        let p = try HapticPattern(dictionary: dict)
        XCTAssertEqual(p.events[0].relativeTime, 0.1)
        XCTAssertEqual(p.events[0].duration, 0.5)
        XCTAssertEqual(p.events[0].value(of: .hapticIntensity), 1)
        XCTAssertEqual(p.events[0].value(of: .hapticSharpness), 0)
        XCTAssertEqual(p.events[1].waveform, .init(path: "/nonexistent/a.wav", useVolumeEnvelope: false, loopEnabled: true))
        XCTAssertEqual(p.parameterCurves.count, 1)
        let bad = patternError { _ = try HapticPattern(dictionary: ["Pattern": [Date()]]) }
        XCTAssertEqual(bad?.code, .invalidPatternDictionary)
        XCTAssertEqual(bad?.path, "Pattern[0]")
    }

    func testKeyTypedDictionaryLikeCoreHapticsCode() throws {
        let p = try HapticPattern(dictionary: [
            .version: 1.0,
            .pattern: [
                [HapticPattern.Key.event: [
                    HapticPattern.Key.time: 0.0, .eventType: HapticEvent.EventType.hapticTransient,
                    .eventParameters: [[HapticPattern.Key.parameterID: HapticEvent.ParameterID.hapticIntensity, .parameterValue: 0.7]],
                ]],
                [HapticPattern.Key.parameter: [
                    HapticPattern.Key.parameterID: HapticDynamicParameter.ID.hapticSharpnessControl, .time: 0.1, .parameterValue: 0.2,
                ]],
            ] as [Any],
        ])
        XCTAssertEqual(p.events.first?.value(of: .hapticIntensity), 0.7)
        XCTAssertEqual(p.parameters.first?.parameterID, .hapticSharpnessControl)
    }

    func testWarningDescription() throws {
        let doc = try readAHAP("{\"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\", \"X\": 1}}]}")
        XCTAssertEqual(
            doc.warnings.first?.description,
            "test.ahap:1:68: warning: unknown key 'X' in Event; ignored (at Pattern[0].Event.X)")
    }
}
