import Foundation
import ThrumEngine
import ThrumPattern
import ThrumTestSupport
import XCTest

/// Loop, rate, seek, pause and resume, against the device's onset reports.
final class AdvancedPlayerTests: XCTestCase {
    func reported(_ rig: EngineRig, _ player: any HapticPatternPlayer) -> [OnsetRecord] {
        rig.engine.onsets(for: player).filter { $0.status == .onTime }
    }

    /// Each onset against the chip's truth (and inside its reported bound).
    func assertOnTime(_ rig: EngineRig, _ onsets: [OnsetRecord], file: StaticString = #filePath, line: UInt = #line) {
        for o in onsets {
            guard let onset = rig.trueOnset(o, file: file, line: line) else {
                return XCTFail("the chip never started \(o)", file: file, line: line)
            }
            XCTAssertEqual(onset, o.requestedTime, accuracy: 200e-6, file: file, line: line)
        }
    }

    func testLoopWithLoopEnd() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 2, interval: 0.1))
        player.loopEnabled = true
        player.loopEnd = 0.25
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(until: t0 + 0.9)
        try player.stop(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.1)
        let onsets = reported(rig, player)
        let expected = [0.0, 0.1, 0.25, 0.35, 0.5, 0.6, 0.75, 0.85].map { t0 + $0 }
        XCTAssertEqual(onsets.count, expected.count)
        for (o, e) in zip(onsets, expected) { XCTAssertEqual(o.requestedTime, e, accuracy: 1e-6) }
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 1, 0, 1, 0, 1, 0, 1])
        assertOnTime(rig, onsets)
    }

    /// `thrum play --loop 2 --loop-end 0.01`: a stop set right after the start ends the loop
    /// after two passes, although the first render already reached passes beyond it (a loop
    /// shorter than the lead): those are forgotten and their pre-shifted lead-in cut, so the
    /// onsets are the two passes and the chip drives nothing after the stop.
    func testAStopRightAfterTheStartKeepsOnlyThePassesBeforeIt() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: HapticPattern(events: [transient(0)], parameters: [], parameterCurves: []))
        player.loopEnabled = true
        player.loopEnd = 0.01
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        try player.stop(atTime: t0 + 0.02)
        rig.engine.run(for: 0.5)
        let onsets = rig.engine.onsets(for: player)
        XCTAssertEqual(onsets.map(\.pass), [0, 1], "\(onsets)")
        XCTAssertEqual(onsets.map(\.status), [.onTime, .onTime])
        for (k, o) in onsets.enumerated() { XCTAssertEqual(o.requestedTime, t0 + 0.01 * Double(k), accuracy: 1e-6) }
        assertOnTime(rig, onsets)
        // The chip: nothing but zeros from the stop on (the engine's lead and the latency learnt aside: 1 ms).
        XCTAssertEqual(rig.rtpWrites(from: t0 + 0.021, to: t0 + 0.5).filter { $0.1 != 0 }.count, 0)
    }

    /// An event at or after the loop end is not in the loop (Core Haptics' `loopEnd`), though its
    /// pre-shifted drive would begin before it: `thrum play --loop 2 --loop-end 0.011` of events at 0
    /// and 0.012 s played both in every pass (and `--rate 100 --loop-end 0.01` the whole heartbeat).
    func testAnEventAtOrAfterTheLoopEndIsNotPlayed() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let pattern = HapticPattern(events: [transient(0), transient(0.06)], parameters: [], parameterCurves: [])
        let player = try rig.engine.makeAdvancedPlayer(with: pattern)
        player.loopEnabled = true
        player.loopEnd = 0.05
        player.loopPasses = 3
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(for: 0.6)
        let onsets = rig.engine.onsets(for: player)
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 0, 0], "\(onsets)")
        XCTAssertEqual(onsets.map(\.status), [.onTime, .onTime, .onTime])
        assertOnTime(rig, onsets)
        // The chip: one drive from rest per pass, none for the event past the loop end.
        var starts = 0, previous: UInt8 = 0
        for (_, value) in rig.rtpWrites(from: t0 - 0.05, to: t0 + 0.5) {
            if value != 0 && previous == 0 { starts += 1 }
            previous = value
        }
        XCTAssertEqual(starts, 3)
    }

    /// A loop end far beyond the engine's 64-bit µs schedule (1e13 s) is one long pass, never a trap.
    func testAHugeLoopEndIsOneLongPass() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 2, interval: 0.1))
        player.loopEnabled = true
        player.loopEnd = 1e13
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(until: t0 + 0.5)
        try player.stop(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.1)
        let onsets = reported(rig, player)
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 1])
        assertOnTime(rig, onsets)
    }

    func testLoopEndZeroLoopsAtTheEndOfTheLastEvent() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let pattern = HapticPattern(events: [continuous(0, duration: 0.2)], parameters: [], parameterCurves: [])
        let player = try rig.engine.makeAdvancedPlayer(with: pattern)
        player.loopEnabled = true
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(until: t0 + 0.65)
        try player.stop(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.1)
        let starts = reported(rig, player).map { $0.requestedTime - t0 }
        // loopEnd 0: the loop is as long as the pattern, the end of its last event (0.2 s).
        XCTAssertEqual(starts.count, 4)
        for (k, s) in starts.enumerated() { XCTAssertEqual(s, 0.2 * Double(k), accuracy: 1e-6) }
        // No gap at the loop points: one pass's release overlaps the next one's pre-shifted attack.
        XCTAssertEqual(rig.rtpWrites(from: t0 + 0.01, to: t0 + 0.6).filter { $0.1 < 200 }.count, 0)
    }

    /// `thrum play --loop 3`: a loop of `loopPasses` passes schedules and reports exactly those,
    /// although the stop set after the last pass's whole drive (its release rings past the
    /// period) lies after the next pass's start (before, that pass's transient played and was
    /// reported as pass 3, at the chip). The last pass keeps its release.
    func testALoopOfThreePassesSchedulesThreeThoughTheStopIsLater() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let tail = TestPatterns.continuous(
            at: 0.1, duration: 0.1, extra: [HapticEventParameter(parameterID: .releaseTime, value: 0.1)])
        let pattern = HapticPattern(events: [transient(0), tail], parameters: [], parameterCurves: [])
        let (period, drive) = rig.engine.passTiming(of: pattern)
        XCTAssertGreaterThan(drive, period, "the release rings past the period")
        let player = try rig.engine.makeAdvancedPlayer(with: pattern)
        player.loopEnabled = true
        player.loopPasses = 3
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        try player.stop(atTime: t0 + 2 * period + drive)
        rig.engine.run(for: 3 * period + 0.5)
        let onsets = rig.engine.onsets(for: player)
        XCTAssertEqual(onsets.map(\.pass), [0, 0, 1, 1, 2, 2], "\(onsets)")
        for o in onsets { XCTAssertEqual(o.status, .onTime) }
        assertOnTime(rig, onsets)
        // The chip: nothing drives after the last pass's drive has ended.
        XCTAssertTrue(rig.rtpWrites(from: t0 + 2 * period + drive + 0.005, to: t0 + 3 * period + 0.4).filter { $0.1 > 0 }.isEmpty)
    }

    /// `--loop 3 --loop-end S` with a period off the µs grid, no stop: the player ends itself after
    /// the third pass (no fourth one a µs before a stop computed in seconds), and says so.
    func testLoopPassesEndsTheLoopByItself() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 2, interval: 0.01))
        player.loopEnabled = true
        player.loopEnd = 0.0333333
        player.loopPasses = 3
        var finished = false
        player.completionHandler = { _ in finished = true }
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(for: 0.5)
        XCTAssertTrue(finished, "the loop ended after its passes")
        let onsets = rig.engine.onsets(for: player)
        XCTAssertEqual(onsets.map(\.pass), [0, 0, 1, 1, 2, 2], "\(onsets)")
        for (k, o) in onsets.enumerated() {
            XCTAssertEqual(o.requestedTime, t0 + 0.0333333 * Double(k / 2) + 0.01 * Double(k % 2), accuracy: 2e-6)
        }
        assertOnTime(rig, onsets)
    }

    func testALoopsPeriodIsThePatternsDurationNotItsDrivesEnd() throws {
        // Two transients, the second padded to end at 0.5 s (its drive ends a few ms later): the
        // loop period is the pattern's duration, 0.5 s, pass after pass, device-timed.
        let rig = EngineRig()
        try rig.engine.start()
        var last = transient(0.3)
        last.duration = 0.2
        let pattern = HapticPattern(events: [transient(0), last], parameters: [], parameterCurves: [])
        XCTAssertEqual(pattern.duration, 0.5, accuracy: 1e-12)
        let player = try rig.engine.makeAdvancedPlayer(with: pattern)
        player.loopEnabled = true
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        let passes = 100
        rig.engine.run(until: t0 + 0.5 * Double(passes) - 0.1)
        try player.stop(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.1)
        let firsts = reported(rig, player).filter { $0.patternIndex == 0 }
        XCTAssertEqual(firsts.count, passes)
        for (k, o) in firsts.enumerated() { XCTAssertEqual(o.requestedTime, t0 + 0.5 * Double(k), accuracy: 1e-6, "pass \(k)") }
        // At the chip: every pass 0.5 s after the one before, within 10 µs, and no drift over 100.
        let truths = firsts.compactMap { rig.trueOnset($0) }
        XCTAssertEqual(truths.count, passes)
        for (k, (a, b)) in zip(truths, truths.dropFirst()).enumerated() {
            XCTAssertEqual(b - a, 0.5, accuracy: 10e-6, "pass \(k + 1)")
        }
        if let first = truths.first, let final = truths.last {
            XCTAssertEqual(final - first, 0.5 * Double(passes - 1), accuracy: 10e-6)
        }
    }

    func testAContinuousEventsReleaseRingsIntoTheNextPassWithoutMovingIt() throws {
        // A 0.3 s continuous event with a long release: its drive rings on past 0.3 s, and the
        // next pass still starts at 0.3 s (Core Haptics counts the duration, not the release).
        let rig = EngineRig()
        try rig.engine.start()
        let event = HapticEvent(
            eventType: .hapticContinuous,
            parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1), HapticEventParameter(parameterID: .releaseTime, value: 0.5)],
            relativeTime: 0, duration: 0.3)
        let pattern = HapticPattern(events: [event], parameters: [], parameterCurves: [])
        XCTAssertGreaterThan(rig.engine.driveDuration(of: pattern), 0.3)
        XCTAssertEqual(rig.engine.passDuration(of: pattern), 0.3, accuracy: 1e-9)
        let player = try rig.engine.makeAdvancedPlayer(with: pattern)
        player.loopEnabled = true
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(until: t0 + 3 - 0.05)
        try player.stop(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.2)
        let onsets = reported(rig, player)
        XCTAssertEqual(onsets.count, 10)
        for (k, o) in onsets.enumerated() { XCTAssertEqual(o.requestedTime, t0 + 0.3 * Double(k), accuracy: 1e-6, "pass \(k)") }
    }

    func testPlaybackRateTwoHalvesOnsetTimes() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 4, interval: 0.1))
        player.playbackRate = 2
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        let onsets = reported(rig, player)
        XCTAssertEqual(onsets.map { $0.requestedTime - t0 }.map { ($0 * 1e4).rounded() / 1e4 }, [0, 0.05, 0.1, 0.15])
        assertOnTime(rig, onsets)
    }

    func testSeekBeforeStartSkipsTheEarlierEvents() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 4, interval: 0.1))
        try player.seek(toOffset: 0.15)
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        let onsets = reported(rig, player)
        XCTAssertEqual(onsets.map(\.patternIndex), [2, 3])
        XCTAssertEqual(onsets[0].requestedTime - t0, 0.05, accuracy: 1e-6)
        XCTAssertEqual(onsets[1].requestedTime - t0, 0.15, accuracy: 1e-6)
        assertOnTime(rig, onsets)
    }

    func testSeekWhilePlayingJumpsWithinOneLeadTime() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 6, interval: 0.1))
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(until: t0 + 0.02)
        let call = rig.now
        try player.seek(toOffset: 0.45)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        let onsets = reported(rig, player)
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 5])
        // Offset 0.45 played at most one lead time (+ one chunk) after the call: beat 5 comes 50 ms later.
        let jump = onsets[1].requestedTime - 0.05 - call
        XCTAssertGreaterThan(jump, 0)
        XCTAssertLessThanOrEqual(jump, 0.0701)
        assertOnTime(rig, onsets)
    }

    func testSeekPastTheEndEndsPlayback() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: HapticPattern(events: [continuous(0, duration: 1)], parameters: [], parameterCurves: []))
        var done = 0
        player.completionHandler = { _ in done += 1 }
        try player.start(atTime: 0)
        rig.engine.run(for: 0.2)
        try player.seek(toOffset: 5)
        rig.engine.run(for: 0.01)
        XCTAssertEqual(done, 1)
        XCTAssertEqual(rig.peakRTP(from: rig.now - 0.005, to: rig.now), 0)
    }

    func testPauseAndResumeContinueFromTheOffset() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 4, interval: 0.1))
        var done = 0
        player.completionHandler = { _ in done += 1 }
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        try player.pause(atTime: t0 + 0.15)
        rig.engine.run(until: t0 + 0.4)
        XCTAssertEqual(done, 0, "a pause is not an end")
        XCTAssertEqual(rig.peakRTP(from: t0 + 0.16, to: t0 + 0.4), 0)
        try player.resume(atTime: t0 + 0.5)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        XCTAssertEqual(done, 1)
        let onsets = reported(rig, player)
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 1, 2, 3])
        let relative = onsets.map { $0.requestedTime - t0 }
        XCTAssertEqual(relative[0], 0, accuracy: 1e-6)
        XCTAssertEqual(relative[1], 0.1, accuracy: 1e-6)
        XCTAssertEqual(relative[2], 0.55, accuracy: 1e-6)
        XCTAssertEqual(relative[3], 0.65, accuracy: 1e-6)
        assertOnTime(rig, onsets)
    }
}

extension AdvancedPlayerTests {
    func testStoppingTheEngineEndsPausedPlayersToo() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 4, interval: 0.1))
        var done = 0
        player.completionHandler = { _ in done += 1 }
        try player.start(atTime: 0)
        try player.pause(atTime: 0)
        rig.engine.run(for: 0.1)
        XCTAssertEqual(done, 0)
        var stopped = false
        rig.engine.stop { _ in stopped = true }
        XCTAssertTrue(stopped)
        XCTAssertEqual(done, 1)
    }
}

/// Core Haptics' validation of patterns built through the API, and its error text.
final class PatternValidationTests: XCTestCase {
    func testANegativeRelativeTimeThrowsInvalidEventTimeNamingTheEvent() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let pattern = HapticPattern(events: [transient(0), transient(-0.1)], parameters: [], parameterCurves: [])
        XCTAssertThrowsError(try rig.engine.makePlayer(with: pattern)) { error in
            guard let error = error as? HapticError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .invalidEventTime)
            XCTAssertTrue(error.message.contains("event 1"), error.message)
        }
        XCTAssertThrowsError(try rig.engine.makeAdvancedPlayer(with: pattern))
        XCTAssertNoThrow(try rig.engine.makePlayer(with: HapticPattern(events: [transient(0)], parameters: [], parameterCurves: [])))
    }

    func testApplesInitialisersThrowAsCoreHapticsDoesNamingTheElement() throws {
        func code(_ build: () throws(PatternError) -> HapticPattern) -> (HapticErrorCode, String, String)? {
            do {
                _ = try build()
                return nil
            } catch {
                return (error.code, error.path, error.message)
            }
        }
        let negative = code { () throws(PatternError) in try HapticPattern(events: [transient(0), transient(-0.1)], parameters: []) }
        XCTAssertEqual(negative?.0, .invalidEventTime)
        XCTAssertEqual(negative?.1, "events[1].relativeTime")
        let unsorted = code { () throws(PatternError) in try HapticPattern(events: [transient(0.2), transient(0.1)], parameters: []) }
        XCTAssertEqual(unsorted?.0, .invalidEventTime)
        XCTAssertTrue(unsorted?.2.contains("event 1 at 0.1 s comes after event 0 at 0.2 s") ?? false, unsorted?.2 ?? "")
        var long = transient(0)
        long.duration = -1
        XCTAssertEqual(code { () throws(PatternError) in try HapticPattern(events: [long], parameters: []) }?.0, .invalidEventDuration)
        let parameter = HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: -1)
        XCTAssertEqual(code { () throws(PatternError) in try HapticPattern(events: [transient(0)], parameters: [parameter]) }?.0, .badParameterEntry)
        XCTAssertNil(code { () throws(PatternError) in try HapticPattern(events: [transient(0), transient(0), transient(0.1)], parameters: []) })
        // AHAP files keep their freedom: events out of time order read as written.
        let ahap = #"{"Pattern": [{"Event": {"Time": 0.5, "EventType": "HapticTransient", "EventParameters": []}}, {"Event": {"Time": 0.1, "EventType": "HapticTransient", "EventParameters": []}}]}"#
        let read = try AHAPReader().read(data: Array(ahap.utf8)).pattern
        XCTAssertEqual(read.events.map(\.relativeTime), [0.5, 0.1])
    }

    func testTheLocalizedDescriptionCarriesTheMessageAndTheCode() {
        let error: any Error = HapticError(.invalidEventTime, "event 1 has relativeTime -0.1 s")
        XCTAssertTrue(error.localizedDescription.contains("event 1 has relativeTime -0.1 s"), error.localizedDescription)
        XCTAssertTrue(error.localizedDescription.contains("-4822"), error.localizedDescription)
    }
}

/// Apple's spellings and entry points compile and behave as Thrum's own.
final class AppleSpellingTests: XCTestCase {
    func testTwoPlayersStartingAtOnceBothGetTheOnsetReport() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let pattern = HapticPattern(events: [transient(0)], parameters: [], parameterCurves: [])
        try rig.engine.playPattern(from: pattern)
        try rig.engine.playPattern(from: pattern)
        rig.engine.run(for: 0.3)
        let onsets = rig.engine.onsets
        XCTAssertEqual(onsets.count, 2)
        XCTAssertEqual(onsets.map(\.status), [.onTime, .onTime])
        XCTAssertEqual(onsets[0].driveOnsetTime, onsets[1].driveOnsetTime)
        for o in onsets { XCTAssertNotNil(rig.trueOnset(o)) }
    }

    func testStoppedReasonsInApplesSpelling() {
        func name(_ reason: HapticEngine.StoppedReason) -> String {
            switch reason {
            case .audioSessionInterrupt: return "audio"
            case .applicationSuspended: return "suspended"
            case .notifyWhenFinished: return "finished"
            case .gameControllerDisconnect: return "gone"
            default: return "other"
            }
        }
        XCTAssertEqual(name(.notifyWhenPlayersFinished), "finished")
        XCTAssertEqual(name(.deviceDisconnected), "gone")
        XCTAssertEqual(HapticEngine.StoppedReason.audioSessionInterrupt.rawValue, 1)
        XCTAssertEqual(HapticEngine.StoppedReason.applicationSuspended.rawValue, 2)
        XCTAssertEqual(HapticEngine.StoppedReason.notifyWhenFinished.rawValue, 4)
        XCTAssertEqual(HapticEngine.StoppedReason.gameControllerDisconnect.rawValue, 6)
    }

    func testPlayPatternFromURLAndDataPlaysAtTheChip() throws {
        let ahap = #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}"#
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-url-\(UUID().uuidString).ahap")
        try Data(ahap.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let rig = EngineRig()
        try rig.engine.start()
        let before = rig.now
        try rig.engine.playPattern(from: url)
        rig.engine.run(for: 0.2)
        try rig.engine.playPattern(from: Data(ahap.utf8))
        rig.engine.run(for: 0.3)
        XCTAssertEqual(rig.engine.onsets.filter { $0.status == .onTime }.count, 2)
        XCTAssertGreaterThan(rig.peakRTP(from: before, to: rig.now), 0)
        XCTAssertThrowsError(try rig.engine.playPattern(from: URL(string: "https://example.com/x.ahap")!)) { error in
            XCTAssertEqual((error as? HapticError)?.code, .fileNotFound)
        }
        XCTAssertFalse(rig.engine.playsHapticsOnly, "Apple's default")
    }
}
