import Foundation
import XCTest

/// `thrum play` on the streaming engine: `--rate`, `--intensity`, `--loop`.
final class PlayEngineOptionsTests: XCTestCase {
    func report(_ arguments: [String]) throws -> [String: Any] {
        let result = try ThrumProcess.run(["play", "--json"] + arguments)
        XCTAssertEqual(result.status, 0, result.standardError)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    /// Checks `events` against the simulated chip's truth (`true_onset_s`): every event has one,
    /// the reported bound holds it, it lies within `alignment` s of the request (the realistic USB
    /// link's asymmetry the host cannot see: docs/timing.md), and the intervals between events are
    /// the requested ones within `rhythm` s plus 150 ppm of the interval (the drift the schedule
    /// has not yet learnt in a run's first seconds).
    func assertTruth(
        _ events: [[String: Any]], alignment: Double = 1.5e-3, rhythm: Double = 20e-6, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        var previous: (truth: Double, requested: Double)?
        for e in events {
            let requested = try XCTUnwrap(e["requested_s"] as? Double, file: file, line: line)
            let truth = try XCTUnwrap(e["true_onset_s"] as? Double, "no true onset in \(e)", file: file, line: line)
            let onset = try XCTUnwrap(e["onset_s"] as? Double, "no onset in \(e)", file: file, line: line)
            let bound = try XCTUnwrap(e["onset_bound_s"] as? Double, file: file, line: line)
            XCTAssertLessThanOrEqual(abs(truth - onset), bound + 1e-6, "the bound misses the truth: \(e)", file: file, line: line)
            XCTAssertEqual(truth, requested, accuracy: alignment, file: file, line: line)
            if let p = previous {
                let interval = requested - p.requested
                let tolerance = rhythm + 150e-6 * abs(interval)
                XCTAssertEqual(truth - p.truth, interval, accuracy: tolerance, "interval before \(e)", file: file, line: line)
            }
            previous = (truth, requested)
        }
    }

    func testRateTwoHalvesEveryRequestedTimeAndOnsetsFollow() throws {
        let file = TestPaths.example("metronome.ahap").path
        let normal = try XCTUnwrap(try report([file])["events"] as? [[String: Any]])
        let object = try report(["--rate", "2", file])
        let fast = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(object["rate"] as? Double, 2)
        XCTAssertEqual(fast.count, normal.count)
        for (a, b) in zip(normal, fast) {
            let requested = try XCTUnwrap(a["requested_s"] as? Double)
            XCTAssertEqual(try XCTUnwrap(b["requested_s"] as? Double), requested / 2, accuracy: 1e-6)
            XCTAssertEqual(b["status"] as? String, "on_time")
        }
        try assertTruth(fast)
    }

    func testROMPresetPlaysThroughTheDriversSequencer() throws {
        let object = try report(["preset:rom.1"])
        let rom = try XCTUnwrap(object["rom_effect"] as? [String: Any])
        XCTAssertEqual(rom["id"] as? Int, 1)
        XCTAssertEqual(object["segments"] as? Int, 0, "no streamed segments: one ROM_EFFECT")
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events[0]["type"] as? String, "ROMEffect")
        XCTAssertEqual(events[0]["status"] as? String, "on_time")
        // The fixed latency of the three register writes (≈ 241 µs) is corrected: the chip's GO
        // lands where the request is, within the link's unseen asymmetry.
        try assertTruth(events)
        let refused = try ThrumProcess.run(["play", "preset:rom.1", "--rate", "2"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.standardError.contains("ROM effect"), refused.standardError)
    }

    func testLoopPlaysPassesBackToBack() throws {
        let file = TestPaths.example("metronome.ahap").path
        let object = try report(["--loop", "3", file])
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 24)
        XCTAssertEqual(Set(events.compactMap { $0["pass"] as? Int }), [0, 1, 2])
        for e in events { XCTAssertEqual(e["status"] as? String, "on_time") }
        try assertTruth(events)
    }

    func testLoopEndSetsThePassLength() throws {
        let file = TestPaths.example("metronome.ahap").path
        let events = try XCTUnwrap(try report(["--loop", "2", "--loop-end", "4", file])["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 16)
        for (k, e) in events.enumerated() {
            let requested = try XCTUnwrap(e["requested_s"] as? Double)
            XCTAssertEqual(requested, 0.5 * Double(k), accuracy: 1e-6)
        }
        try assertTruth(events)
    }

    func testBadOptionsAreUsageErrors() throws {
        let file = TestPaths.example("metronome.ahap").path
        for args in [["--rate", "0"], ["--intensity", "2"], ["--loop", "0"], ["--loop", "forever"]] {
            let result = try ThrumProcess.run(["play"] + args + [file])
            XCTAssertNotEqual(result.status, 0, "\(args)")
            XCTAssertFalse(result.standardError.isEmpty)
        }
    }

    /// Numbers a loop cannot play are usage errors (exit 2, one line naming the limit), never a
    /// trap: a loop end shorter than one transient's burst or beyond 24 h, NaN and infinities,
    /// more passes than `--loop` counts, and on the virtual device more than an hour of loop
    /// (it runs in virtual time and must end, the rule `--loop forever` follows there).
    func testLoopNumbersOutsideTheLimitsAreUsageErrors() throws {
        let file = TestPaths.example("heartbeat.ahap").path
        let cases: [([String], String)] = [
            (["--loop", "2", "--loop-end", "0.001"], "each pass 1 ms of real time (loop end / rate); a pass lasts at least 10 ms"),
            // The 10 ms are of real time: at --rate 100 a loop end of 0.5 pattern seconds is a 5 ms pass.
            (["--loop", "2", "--rate", "100", "--loop-end", "0.5"], "--loop-end 0.5 at --rate 100 makes each pass 5 ms of real time"),
            (["--loop", "2", "--rate", "100", "--loop-end", "0.01"], "give --loop-end 1 or more at --rate 100"),
            (["--loop", "2", "--loop-end", "0"], "give --loop-end 0.01 or more"),
            (["--loop", "2", "--loop-end", "-1"], "got '-1'"),
            (["--loop", "2", "--loop-end", "1e13"], "to 86400 s"),
            (["--loop", "2", "--loop-end", "nan"], "got 'nan'"),
            (["--loop", "2", "--loop-end", "inf"], "got 'inf'"),
            (["--loop", "1000000000000"], "from 1 to 1000000000"),
            (["--loop", "5000"], "give --port"),
            (["--intensity", "nan"], "from 0 to 1"),
            (["--rate", "inf"], "from 0.01 to 100"),
        ]
        for (args, expected) in cases {
            let result = try ThrumProcess.run(["play", "--no-plot"] + args + [file])
            XCTAssertEqual(result.status, 2, "\(args): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains(expected), "\(args): \(result.standardError)")
            XCTAssertFalse(result.standardError.contains("Fatal error"), result.standardError)
        }
    }

    /// The shortest loop end plays exactly the passes asked for (the JSON's events are the passes
    /// scheduled), each on time at the chip. The shortest is 10 ms of real time: at `--rate 3`,
    /// 0.03 s of pattern (0.00999… s over the rate in floating point) plays the same passes.
    func testTheShortestLoopEndPlaysThePassesAsked() throws {
        let file = TestPaths.example("heartbeat.ahap").path
        for loopEnd in [["--loop-end", "0.01"], ["--rate", "3", "--loop-end", "0.03"]] {
            let object = try report(["--loop", "3"] + loopEnd + [file])
            XCTAssertEqual(object["passes"] as? Int, 3)
            let events = try XCTUnwrap(object["events"] as? [[String: Any]])
            XCTAssertEqual(events.compactMap { $0["pass"] as? Int }, [0, 1, 2], "\(loopEnd)")
            for (k, e) in events.enumerated() {
                XCTAssertEqual(e["status"] as? String, "on_time")
                XCTAssertEqual(try XCTUnwrap(e["requested_s"] as? Double), 0.01 * Double(k), accuracy: 1e-6, "\(loopEnd)")
            }
            try assertTruth(events)
        }
    }

    /// 120 passes of the heartbeat (≈ 2 min of virtual time): every pass on time at the chip.
    /// Before, the device's amplitude updates drifted across the next pass's start every seventh
    /// pass or so, and their I²C write made that pass's onset start late (late_trimmed).
    func testAHundredAndTwentyPassHeartbeatIsOnTimeEveryPass() throws {
        let file = TestPaths.example("heartbeat.ahap").path
        let result = try ThrumProcess.run(["play", "--json", "--no-plot", "--loop", "120", file], timeout: 900)
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 4 * 120)
        XCTAssertEqual(Set(events.compactMap { $0["pass"] as? Int }).count, 120)
        for e in events { XCTAssertEqual(e["status"] as? String, "on_time", "\(e)") }
        try assertTruth(events)
    }
}
