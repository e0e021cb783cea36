import Foundation
import XCTest

/// `thrum play`'s warning of a round trip so long that the device's queue slots cannot carry
/// dense drive (docs/timing.md, "A very long round trip"), through the CLI on the virtual device
/// (virtual time) behind `--link` items: said at connect, and — new — again when the link's
/// round trip grows during the run (a `step=` in the link's delay), on standard error and in
/// `--json` `warnings`. Truth: the delays the link was given (the round trip each warning names,
/// the time the link's delay stepped). Before, the warning came at connect only, and never when
/// the round trip grew later.
final class LongRoundTripCLITests: XCTestCase {
    struct Play {
        var object: [String: Any]
        var warnings: [[String: Any]]
        /// The `thrum: warning:` lines of standard error.
        var warningLines: [String]
        var startHost: Double
    }

    func play(_ file: String, link: String) throws -> Play {
        let result = try ThrumProcess.run(
            ["play", "--json", "--no-plot", "--no-calibrate", "--link", link, TestPaths.example(file).path])
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertFalse(events.isEmpty)
        for e in events { XCTAssertEqual(e["status"] as? String, "on_time", "\(e)") }
        let prefix = "thrum: warning: "
        return Play(
            object: object, warnings: try XCTUnwrap(object["warnings"] as? [[String: Any]]),
            warningLines: result.standardError.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) },
            startHost: try XCTUnwrap(object["start_host_s"] as? Double))
    }

    /// What every long-round-trip warning holds: its figures agree with each other and with the
    /// device's queue, and the same line went to standard error.
    func checkFigures(_ w: [String: Any], play: Play, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(w["code"] as? String, "longRoundTrip", file: file, line: line)
        let slots = try XCTUnwrap((play.object["device"] as? [String: Any])?["queue_slots"] as? Int, file: file, line: line)
        XCTAssertEqual(w["queue_slots"] as? Int, slots, file: file, line: line)
        let roundTrip = try XCTUnwrap(w["round_trip_ms"] as? Int, file: file, line: line)
        let rate = try XCTUnwrap(w["segments_per_s"] as? Int, file: file, line: line)
        XCTAssertEqual(Double(rate), Double(slots) / (2 * Double(roundTrip) / 1e3), accuracy: 1.5, "slots over two round trips", file: file, line: line)
        XCTAssertGreaterThan(try XCTUnwrap(w["chunk_ms"] as? Int, file: file, line: line), 10, "a chunk longer than the default", file: file, line: line)
        let message = try XCTUnwrap(w["message"] as? String, file: file, line: line)
        XCTAssertTrue(message.contains("\(roundTrip) ms") && message.contains("\(slots) queue slots"), message, file: file, line: line)
        XCTAssertTrue(play.warningLines.contains(message), "said on standard error too: \(play.warningLines)", file: file, line: line)
    }

    /// A 260 ms round trip (`out=130ms,back=130ms`) from the start: one warning, at connect
    /// (before the play's start), naming that round trip; none again however many samples the
    /// run takes at it.
    func testALongRoundTripIsSaidOnceAtConnect() throws {
        let p = try play("heartbeat.ahap", link: "out=130ms,back=130ms")
        XCTAssertEqual(p.warnings.count, 1, "\(p.warnings)")
        XCTAssertEqual(p.warningLines.count, 1, "\(p.warningLines)")
        let w = try XCTUnwrap(p.warnings.first)
        try checkFigures(w, play: p)
        XCTAssertEqual(w["at_connect"] as? Bool, true)
        XCTAssertLessThan(try XCTUnwrap(w["at_s"] as? Double), 0, "found before the play's start")
        XCTAssertEqual(Double(try XCTUnwrap(w["round_trip_ms"] as? Int)), 260, accuracy: 5, "the link's 130 + 130 ms")
        XCTAssertTrue(try XCTUnwrap(w["message"] as? String).hasPrefix("a 26"), "\(w)")
    }

    /// An 80 ms round trip that steps to 320 ms one second into the link's life
    /// (`step=120ms@1s`): nothing at connect; one warning when the smoothed round trip first
    /// crosses the limit (160 ms on 32 slots), after the step; one more once it has grown half
    /// as long again, a second or more later, naming where it settled (the link's 160 + 160 ms);
    /// then none, though the run took many more samples at it.
    func testTheWarningFollowsARoundTripThatGrowsDuringThePlay() throws {
        let p = try play("metronome.ahap", link: "out=40ms,back=40ms,step=120ms@1s")
        XCTAssertEqual(p.warnings.count, 2, "\(p.warnings)")
        XCTAssertEqual(p.warningLines.count, 2, "\(p.warningLines)")
        guard p.warnings.count == 2 else { return }
        for w in p.warnings {
            try checkFigures(w, play: p)
            XCTAssertEqual(w["at_connect"] as? Bool, false, "\(w)")
        }
        let first = p.warnings[0], second = p.warnings[1]
        let firstAt = try XCTUnwrap(first["at_s"] as? Double), secondAt = try XCTUnwrap(second["at_s"] as? Double)
        // On the link's clock (the virtual host's): after the step, within a few round trips of it.
        XCTAssertGreaterThanOrEqual(firstAt + p.startHost, 1.0, "said before the link's delay grew")
        XCTAssertLessThan(firstAt + p.startHost, 1.0 + 0.6, "said late")
        let firstRoundTrip = Double(try XCTUnwrap(first["round_trip_ms"] as? Int))
        XCTAssertGreaterThan(firstRoundTrip, 160, "said below the limit")
        XCTAssertLessThan(firstRoundTrip, 240, "said at the first crossing")
        XCTAssertGreaterThanOrEqual(secondAt - firstAt, 1.0, "at least a second apart")
        let secondRoundTrip = Double(try XCTUnwrap(second["round_trip_ms"] as? Int))
        XCTAssertGreaterThanOrEqual(secondRoundTrip, 1.5 * firstRoundTrip)
        XCTAssertEqual(secondRoundTrip, 320, accuracy: 10, "the link's 160 + 160 ms")
        XCTAssertTrue(try XCTUnwrap(first["message"] as? String).hasPrefix("the round trip to the virtual device grew to "), "\(first)")
        XCTAssertTrue(
            try XCTUnwrap(second["message"] as? String).contains("grew further to \(Int(secondRoundTrip)) ms (\(Int(firstRoundTrip)) ms when last said)"),
            "\(second)")
    }
}
