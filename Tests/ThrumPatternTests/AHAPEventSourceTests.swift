import Foundation
import ThrumTestSupport
import XCTest

@testable import ThrumPattern

/// `AHAPReader.source(ofEvent:member:…)` finds `events[k]` of a read pattern again in its text:
/// judged by the text itself — the number written at the line and column it gives is the
/// model's value — and by the paths of elements that are not events, repeated keys and aliases.
final class AHAPEventSourceTests: XCTestCase {
    /// The number written at `line`:`column` of `text` (columns in characters).
    private func number(in text: String, line: Int, column: Int) -> Double? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.indices.contains(line - 1) else { return nil }
        let rest = lines[line - 1].dropFirst(column - 1)
        return Double(String(rest.prefix { "0123456789.-+eE".contains($0) }))
    }

    /// Every event of the examples: the time written where its source says is the model's time.
    func testEveryExampleEventIsFoundWhereItsTimeIsWritten() throws {
        for name in ["heartbeat", "metronome", "swell"] {
            let path = PackageRoot.file("examples/\(name).ahap").path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let reader = AHAPReader()
            let pattern = try reader.read(contentsOf: path).pattern
            XCTAssertFalse(pattern.events.isEmpty)
            for (k, event) in pattern.events.enumerated() {
                let source = try XCTUnwrap(
                    reader.source(ofEvent: k, member: [.time, .eventTime], inFileAt: path), "\(name) events[\(k)]")
                XCTAssertTrue(source.path.hasPrefix("Pattern["), source.path)
                XCTAssertTrue(source.path.hasSuffix("].Event.Time"), source.path)
                XCTAssertEqual(
                    number(in: text, line: source.line, column: source.column), event.relativeTime,
                    "\(name) events[\(k)] at \(source)")
            }
            XCTAssertNil(
                reader.source(ofEvent: pattern.events.count, member: [.time], inFileAt: path), "no event past the last")
        }
    }

    /// Elements that are no events are not counted, a repeated `Event` is one event (the last
    /// one read, as the reader reads it), `EventTime` stands for `Time`, the last `Pattern` array
    /// is the one read, and an event without the keys asked for is named itself.
    func testElementsThatAreNoEventsRepeatedKeysAndAliases() throws {
        let text = """
            {"Pattern": [{"Event": {"Time": 9, "EventType": "HapticTransient"}}],
             "Pattern": [
              7,
              {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 1}},
              {"Event": {"Time": 1, "EventType": "HapticTransient"}},
              {"Event": {"Time": 8, "EventType": "HapticTransient"}, "Event": {"EventTime": 2, "EventType": "HapticTransient"}},
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0,
                "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]},
               "Event": {"Time": 3, "EventType": "HapticContinuous", "EventDuration": 4}},
            ]}
            """
        let reader = AHAPReader(options: .lenient)
        let bytes = Array(text.utf8)
        let pattern = try reader.read(data: bytes).pattern
        XCTAssertEqual(pattern.events.map(\.relativeTime), [1, 2, 3])
        let times = (0..<3).map { reader.source(ofEvent: $0, member: [.time, .eventTime], in: bytes) }
        XCTAssertEqual(
            times.map { $0?.path }, ["Pattern[2].Event.Time", "Pattern[3].Event.EventTime", "Pattern[4].Event.Time"])
        for (k, source) in times.enumerated() {
            XCTAssertEqual(
                number(in: text, line: source?.line ?? 0, column: source?.column ?? 0), pattern.events[k].relativeTime,
                "events[\(k)]")
        }
        let duration = try XCTUnwrap(reader.source(ofEvent: 2, member: [.eventDuration], in: bytes))
        XCTAssertEqual(duration.path, "Pattern[4].Event.EventDuration")
        XCTAssertEqual(number(in: text, line: duration.line, column: duration.column), 4)
        XCTAssertEqual(
            reader.source(ofEvent: 0, member: [.eventDuration], in: bytes),
            AHAPEventSource(path: "Pattern[2].Event", line: 5, column: 13))
        XCTAssertNil(reader.source(ofEvent: 3, member: [.time], in: bytes), "three events")
        XCTAssertNil(
            AHAPReader().source(ofEvent: 0, member: [.time], in: bytes),
            "the strict reader does not read a trailing comma")
        XCTAssertNil(reader.source(ofEvent: 0, member: [.time], inFileAt: "/nonexistent/x.ahap"))
    }
}
