import Foundation
import ThrumEngine

/// The JUnit XML report of `thrum play --junit FILE`: one `<testsuite>` for the playback, one
/// `<testcase>` per haptic event (`<skipped>` when the user stopped the run before it, a `<failure>` when it missed the expectations, or was not started
/// on time) and, with `--expect-onsets`, one test case for the onset count. `tools/junit.xsd` is
/// its schema.
struct JUnitReport {
    var suiteName: String
    /// `classname` of every test case (CI systems group by it).
    var className: String
    var report: PlaybackReport
    var expectations: PlaybackExpectations
    var outcome: PlaybackExpectations.Outcome
    /// Suite-level properties (target, profile, device, expectations).
    var properties: [(String, String)]
    /// When the playback started (the suite's timestamp).
    var timestamp: Date
    /// Wall time the command took, s.
    var elapsed: Double
    /// Whether true onsets are known (the virtual device).
    var hasTruth: Bool

    func xml() -> String {
        var cases: [String] = []
        var failures = 0, skipped = 0
        let failed = Dictionary(
            outcome.eventFailures.map { ($0.reportIndex, $0.message) }, uniquingKeysWith: { a, _ in a })
        for (index, event) in report.events.enumerated() where event.type.isHaptic {
            // Stopped by the user (Ctrl-C): not run, not failed.
            let stopped = event.status == .stopped
            var message = stopped ? nil : failed[index]
            if message == nil, !stopped, event.status != .onTime {
                message = "event \(event.patternIndex): \(event.status.rawValue)"
            }
            if message != nil { failures += 1 }
            let name =
                String(
                    format: "event %d at %.3f ms (%@)", event.patternIndex,
                    JSONOutput.seconds(event.requestedTime) * 1e3 + 0.0, event.type.rawValue)
                + (event.pass > 0 ? " pass \(event.pass + 1)" : "")
            var body = "    <testcase name=\"\(escape(name))\" classname=\"\(escape(className))\" time=\"0\">\n"
            if stopped {
                skipped += 1
                body += "      <skipped message=\"the run was stopped before it (status stopped)\"/>\n"
            }
            if let message {
                body +=
                    "      <failure message=\"\(escape(message))\" type=\"timing\">\(escape(details(event)))</failure>\n"
            }
            body += "      <system-out>\(escape(details(event)))</system-out>\n"
            body += "    </testcase>\n"
            cases.append(body)
        }
        if let k = expectations.onsets {
            var body =
                "    <testcase name=\"\(escape("onset count = \(k)"))\" classname=\"\(escape(className))\" time=\"0\">\n"
            if let count = outcome.countFailure {
                failures += 1
                body += "      <failure message=\"\(escape(count))\" type=\"onsets\"/>\n"
            }
            body += "      <system-out>\(outcome.reportedOnsets) onsets reported</system-out>\n"
            body += "    </testcase>\n"
            cases.append(body)
        }
        let time = String(format: "%.3f", max(0, elapsed))
        let stamp = ISO8601DateFormatter.string(
            from: timestamp, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withInternetDateTime])
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuites name=\"thrum play\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" time=\"\(time)\">\n"
        xml +=
            "  <testsuite name=\"\(escape(suiteName))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" "
        xml += "time=\"\(time)\" timestamp=\"\(stamp)\">\n"
        xml += "    <properties>\n"
        for (name, value) in properties {
            xml += "      <property name=\"\(escape(name))\" value=\"\(escape(value))\"/>\n"
        }
        xml += "    </properties>\n"
        xml += cases.joined()
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// A report for a playback that failed before it played: one test case in error.
    func errorXML(message: String) -> String {
        let time = String(format: "%.3f", max(0, elapsed))
        let stamp = ISO8601DateFormatter.string(
            from: timestamp, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withInternetDateTime])
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"thrum play\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"\(time)\">\n"
        xml +=
            "  <testsuite name=\"\(escape(suiteName))\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"\(time)\" timestamp=\"\(stamp)\">\n"
        xml += "    <testcase name=\"playback\" classname=\"\(escape(className))\" time=\"\(time)\">\n"
        xml += "      <error message=\"\(escape(message))\" type=\"playback\"/>\n"
        xml += "    </testcase>\n  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// The event's figures in one line.
    func details(_ event: PlaybackReport.Event) -> String {
        var parts = [String(format: "requested %.3f ms", JSONOutput.seconds(event.requestedTime) * 1e3 + 0.0)]
        if let onset = event.onsetTime {
            parts.append(
                String(format: "onset %.3f ms, error %+.0f µs", onset * 1e3, (onset - event.requestedTime) * 1e6))
        } else {
            parts.append("no onset reported")
        }
        if let bound = event.onsetBound { parts.append(String(format: "bound ± %.0f µs", bound * 1e6)) }
        if let e = PlaybackExpectations.errorPlusBound(event) {
            parts.append(String(format: "|error| + bound %.0f µs", e * 1e6))
        }
        parts.append("status \(event.status.rawValue)")
        if hasTruth, let truth = event.trueOnsetTime {
            parts.append(String(format: "true error %+.0f µs", (truth - event.requestedTime) * 1e6))
        }
        return parts.joined(separator: ", ")
    }

    /// XML text and attribute escaping (and no control characters, which XML 1.0 forbids).
    func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            default:
                if scalar.value < 0x20 { out += " " } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
