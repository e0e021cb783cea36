import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// The host waits without working: while the next drive is far off, the engine wakes for the
/// link's pings, not for every 10 ms render chunk, and the link relaxes its pings to
/// ``ThrumLink/LinkConfiguration/relaxedPingInterval`` until the clock model's window before the
/// drive. Counted in the run's own work (host wake-ups, clock samples, firmware passes), not
/// timed; judged on the chip's truth (the onset within its reported bound, on time).
final class HostIdleTests: XCTestCase {
    private struct Run {
        var report: PlaybackReport
        var hostWakes: Int
        var clockSamples: Int
        var passesRun: Int
    }

    private func play(transientAt time: Double) throws -> Run {
        let rig = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 3)
        try rig.connect(calibrate: false)
        var engine = HapticEngine.Configuration()
        engine.calibrateOnStart = false
        _ = try rig.engine(configuration: engine)
        let (wakes, samples, passes) = (rig.pump.runs, rig.session.link.statistics.roundTripSamples, rig.device.passesRun)
        let pattern = HapticPattern(events: [TestPatterns.transient(at: time)], parameters: [], parameterCurves: [])
        let report = try rig.play(pattern)
        return Run(
            report: report, hostWakes: rig.pump.runs - wakes, clockSamples: rig.session.link.statistics.roundTripSamples - samples,
            passesRun: rig.device.passesRun - passes)
    }

    /// A transient at 10 s and at 130 s: the 120 s more of waiting cost fewer than 8 host wake-ups
    /// and 4 clock samples a second (before: ≈ 107 wake-ups, one per render chunk and per ACK, and
    /// 6.7 samples, a ping every 150 ms), and the late onset lands as well as the early one.
    func testAWaitCostsThePingsTheWatchdogNeedsNotARenderChunkEach() throws {
        try assertTheWaitCost(near: play(transientAt: 10), far: play(transientAt: 130), wakesPerSecond: 8) { wakes in 4 * wakes + 1_000 }
    }

    /// What 120 s more of waiting cost (`far`, a transient at 130 s, against `near`, at 10 s):
    /// fewer than `wakesPerSecond` host wake-ups and 4 clock samples a second, yet 2.5 (the
    /// watchdog still hears from the host at least every 1 s), and fewer firmware passes than
    /// `passes` of the wake-ups; and both onsets land within their bounds.
    private func assertTheWaitCost(near: Run, far: Run, wakesPerSecond: Double, passes: (Double) -> Double) throws {
        let extra = 120.0
        let wakes = Double(far.hostWakes - near.hostWakes), samples = Double(far.clockSamples - near.clockSamples)
        XCTAssertLessThan(wakes, wakesPerSecond * extra, "host wake-ups \(near.hostWakes) → \(far.hostWakes)")
        XCTAssertLessThan(samples, 4 * extra, "clock samples \(near.clockSamples) → \(far.clockSamples)")
        XCTAssertGreaterThan(samples, 2.5 * (extra - 40), "the watchdog's pings: \(near.clockSamples) → \(far.clockSamples)")
        XCTAssertLessThan(Double(far.passesRun - near.passesRun), passes(wakes), "firmware passes \(near.passesRun) → \(far.passesRun)")
        try assertEachLandsWithinItsBound([(near, 10), (far, 130)])
    }

    /// Each run's one transient is on time, not suspect, without faults; the chip's truth lies
    /// within the reported bound (plus 1 µs of rounding), near its time; and the window at the
    /// drive holds the usual samples again: the bound is as narrow as after a short wait.
    private func assertEachLandsWithinItsBound(_ runs: [(run: Run, time: Double)]) throws {
        for (run, time) in runs {
            let event = try XCTUnwrap(run.report.events.first)
            XCTAssertEqual(event.status, .onTime, "\(time) s")
            XCTAssertFalse(event.boundSuspect, "\(time) s")
            XCTAssertTrue(run.report.faults.isEmpty, "\(time) s: \(run.report.faults)")
            let onset = try XCTUnwrap(event.onsetTime), truth = try XCTUnwrap(event.trueOnsetTime), bound = try XCTUnwrap(event.onsetBound)
            XCTAssertLessThanOrEqual(abs(onset - truth), bound + 1e-6, "\(time) s")
            XCTAssertEqual(truth, time, accuracy: 0.002, "\(time) s")
            XCTAssertLessThan(bound, 0.002, "\(time) s")
        }
    }

    /// A transient `time` s in, played as `thrum play` plays on the virtual device: one run until
    /// the player is done, asked between wake-ups whether to stop (a signal), then 40 ms more.
    private func playAsTheCommandDoes(transientAt time: Double) throws -> Run {
        let rig = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 5)
        try rig.connect(calibrate: false)
        var configuration = HapticEngine.Configuration()
        configuration.calibrateOnStart = false
        let engine = try rig.engine(configuration: configuration)
        let (wakes, samples, passes) = (rig.pump.runs, rig.session.link.statistics.roundTripSamples, rig.device.passesRun)
        let pattern = HapticPattern(events: [TestPatterns.transient(at: time)], parameters: [], parameterCurves: [])
        let player = try engine.makeAdvancedPlayer(with: pattern)
        let before = engine.counters
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        var asked = 0
        let finished = engine.runUntilPlayersFinished(timeout: time + 5, ringDown: 0) {
            asked += 1
            return !engine.isRunning
        }
        XCTAssertTrue(finished, "\(time) s")
        // Asked once a wake-up: no wake-ups of its own.
        XCTAssertLessThanOrEqual(asked, rig.pump.runs - wakes + 1, "\(time) s")
        engine.run(for: 0.04)
        engine.waitForOnsetReports(of: player)
        var report = engine.playbackReport(for: player, pattern: pattern, startTime: start, duration: time, since: before)
        rig.attachTruth(to: &report)
        return Run(
            report: report, hostWakes: rig.pump.runs - wakes, clockSamples: rig.session.link.statistics.roundTripSamples - samples,
            passesRun: rig.device.passesRun - passes)
    }

    /// `thrum play` on the virtual device waited in 5 ms slices (to notice Ctrl-C), each slice's
    /// end a host wake-up: 200 a second of any wait, whatever the engine needed. It now runs once,
    /// asked between wake-ups: a transient at 130 s costs, beyond one at 10 s, fewer than 6 host
    /// wake-ups, 4 clock samples (the relaxed pings) and 40 firmware passes a second, and lands
    /// within its bound, on time at the chip.
    func testThePlayCommandsWaitCostsThePingsNotASliceEvery5ms() throws {
        // About two wake-ups a ping (its ACK; the fallback wake or a later frame), against 200 a second.
        try assertTheWaitCost(near: playAsTheCommandDoes(transientAt: 10), far: playAsTheCommandDoes(transientAt: 130), wakesPerSecond: 6) { _ in
            40 * 120
        }
    }
}
