import ThrumTestSupport
import XCTest

@testable import ThrumPattern

/// read → write → read gives an equal pattern; write → read → write gives identical bytes.
final class RoundTripTests: XCTestCase {
    private func assertStable(_ pattern: HapticPattern, _ label: String) throws {
        for indent in [HapticPattern.AHAPIndent.twoSpaces, .fourSpaces] {
            let bytes = pattern.ahapData(indent: indent)
            let reread = try HapticPattern(data: bytes, sourceName: label)
            XCTAssertEqual(reread, pattern, label)
            XCTAssertEqual(reread.ahapData(indent: indent), bytes, label)
            XCTAssertEqual(reread.duration, pattern.duration, label)
        }
        let fromDictionary = try HapticPattern(dictionary: pattern.exportDictionary())
        XCTAssertEqual(fromDictionary.events, pattern.events, label)
        XCTAssertEqual(fromDictionary.parameters, pattern.parameters, label)
        XCTAssertEqual(fromDictionary.parameterCurves, pattern.parameterCurves, label)
        XCTAssertEqual(fromDictionary.version, pattern.version, label)
    }

    func testEveryLoadableFixtureRoundTrips() throws {
        let loadable = try Fixtures.ahapNames().filter { $0 != "fragment.json" && $0 != "haptic-clip.json" }
        XCTAssertEqual(loadable.count, 11)
        for name in loadable {
            try assertStable(try HapticPattern(contentsOf: Fixtures.ahapPath(name), options: .init(lenient: true)), name)
        }
    }

    /// Extra conformance run over the public corpus (skipped where it is missing, failing under CI).
    func testEveryLoadableCorpusFileRoundTrips() throws {
        var count = 0
        for file in try Corpus.files() where file != Corpus.fragment && file != Corpus.notAHAP {
            let pattern = try HapticPattern(contentsOf: Corpus.path(file), options: .init(lenient: true))
            try assertStable(pattern, file)
            count += 1
        }
        XCTAssertEqual(count, 61)
    }

    func testMetadataPreservedVerbatim() throws {
        let text = """
            {"Version": 1, "Metadata": {"Zed": "x\\ny", "Nested": {"b": [1, null, true]}, "A": 0.5},
             "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}
            """
        let p = try readAHAP(text).pattern
        let expected: JSONValue = .object([
            ("Zed", .string("x\ny")), ("Nested", .object([("b", .array([.number(1), .null, .bool(true)]))])),
            ("A", .number(0.5)),
        ])
        XCTAssertEqual(p.metadata, expected)
        XCTAssertTrue(p.ahapString().contains("\"Zed\": \"x\\ny\",\n    \"Nested\": {"), p.ahapString())
        try assertStable(p, "metadata")
    }

    func testWrittenShape() throws {
        let p = HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 0.6)], relativeTime: 0.1)
            ],
            parameters: [HapticDynamicParameter(parameterID: .hapticSharpnessControl, value: -0.3, relativeTime: 0.2)],
            parameterCurves: [])
        XCTAssertEqual(
            p.ahapString(),
            """
            {
              "Version": 1.0,
              "Pattern": [
                {
                  "Event": {
                    "Time": 0.1,
                    "EventType": "HapticTransient",
                    "EventParameters": [
                      {
                        "ParameterID": "HapticIntensity",
                        "ParameterValue": 0.6
                      }
                    ]
                  }
                },
                {
                  "Parameter": {
                    "ParameterID": "HapticSharpnessControl",
                    "Time": 0.2,
                    "ParameterValue": -0.3
                  }
                }
              ]
            }

            """)
        try assertStable(p, "shape")
    }

    func testWaveformFlagsFollowAppleExportRule() throws {
        func event(_ env: Bool, _ loop: Bool) -> HapticEvent {
            HapticEvent(
                audioWaveform: .init(path: "/nonexistent/a.wav", useVolumeEnvelope: env, loopEnabled: loop),
                parameters: [], relativeTime: 0)
        }
        let defaults = HapticPattern(events: [event(true, false)], parameters: [], parameterCurves: [])
        XCTAssertFalse(defaults.ahapString().contains("EventWaveformUseVolumeEnvelope"))
        XCTAssertFalse(defaults.ahapString().contains("EventWaveformLoopEnabled"))
        let changed = HapticPattern(events: [event(false, true)], parameters: [], parameterCurves: [])
        XCTAssertTrue(changed.ahapString().contains("\"EventWaveformUseVolumeEnvelope\": false"))
        XCTAssertTrue(changed.ahapString().contains("\"EventWaveformLoopEnabled\": true"))
        let dict = changed.exportDictionary()
        let ev = ((dict["Pattern"] as? [Any])?.first as? [String: Any])?["Event"] as? [String: Any]
        XCTAssertEqual(ev?["EventWaveformUseVolumeEnvelope"] as? Bool, false)
        XCTAssertEqual(ev?["EventWaveformLoopEnabled"] as? Bool, true)
        try assertStable(defaults, "defaults")
        try assertStable(changed, "changed")
    }

    func testFloatArtefactsAndAwkwardTimes() throws {
        let p = HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticContinuous,
                    parameters: [HapticEventParameter(parameterID: .hapticSharpness, value: 0.20000000298023224)],
                    relativeTime: 0.20000000298023224, duration: 1e-5)
            ], parameters: [],
            parameterCurves: [
                HapticParameterCurve(
                    parameterID: .hapticIntensityControl,
                    controlPoints: [.init(relativeTime: 0, value: 1 / 3), .init(relativeTime: 1.0 / 3.0, value: 0.1)],
                    relativeTime: 12345.678)  // within HapticPattern.maximumTime (24 h)
            ])
        try assertStable(p, "awkward")
    }
}
