import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// A run the user stopped (`thrum play` on Ctrl-C or SIGTERM: any-lane STOP at once) lists the
/// events due after the stop as `stopped`, not `not_reported` ("lost on the link, or the device
/// never started it") nor `not_played`; those that played before it keep their status. Judged on
/// the simulated chip's trace: the stopped events were never driven. In virtual time.
final class StoppedRunTests: XCTestCase {
    func testEventsDueAfterTheStopAreStoppedAndThoseBeforeKeepTheirStatus() throws {
        let rig = VirtualRig()
        try rig.connect(calibrate: false)
        let engine = try rig.engine()
        // 0.45 s lies inside the lead at the stop (its drive already queued on the device, which
        // the STOP wipes); 0.9 s beyond it (never sent).
        let times = [0, 0.1, 0.2, 0.45, 0.9]
        let pattern = HapticPattern(events: times.map { TestPatterns.transient(at: $0) }, parameters: [], parameterCurves: [])
        let player = try engine.makeAdvancedPlayer(with: pattern)
        let before = engine.counters
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        engine.run(until: start + 0.3)
        // What `thrum play` does on a signal: note when, STOP, let the acknowledgement come back.
        let stop = engine.currentTime - start
        engine.stop()
        engine.exchange(for: .milliseconds(30))
        engine.waitForOnsetReports(of: player)
        var report = engine.playbackReport(for: player, pattern: pattern, startTime: start, duration: stop, since: before)
        rig.attachTruth(to: &report)
        let haptic = report.events.filter(\.type.isHaptic).sorted { $0.requestedTime < $1.requestedTime }
        XCTAssertEqual(haptic.map(\.patternIndex), [0, 1, 2, 3, 4])
        // Before: the two events after the stop were told as if lost.
        for e in haptic.suffix(2) {
            XCTAssertTrue([.notReported, .notPlayed].contains(e.status), "event \(e.patternIndex): \(e.status)")
        }

        XCTAssertEqual(report.markStopped(at: stop), 2)
        let marked = report.events.filter(\.type.isHaptic).sorted { $0.requestedTime < $1.requestedTime }
        XCTAssertEqual(marked.map(\.status), [.onTime, .onTime, .onTime, .stopped, .stopped])
        XCTAssertEqual(PlaybackReport.OnsetStatus.stopped.rawValue, "stopped")
        for e in marked.prefix(3) {
            let truth = try XCTUnwrap(e.trueDriveOnsetTime, "event \(e.patternIndex) was driven")
            XCTAssertEqual(truth, e.requestedTime - e.preShift, accuracy: 300e-6, "event \(e.patternIndex)")
        }
        // The chip's truth: nothing drove after the stop (STOP's latency aside), so no stopped
        // event played.
        let after = (report.startHostTime.seconds + stop + 0.01) * 1e6
        let drive = rig.device.chip.trace.registerWrites.filter {
            $0.register == DRV2605LRegister.rtpInput.rawValue && Double($0.time) > after && $0.value != 0
        }
        XCTAssertEqual(drive.map(\.time), [], "drive after the stop")
        for e in marked.suffix(2) { XCTAssertNil(e.trueDriveOnsetTime, "event \(e.patternIndex) was driven") }

        // Stopped before it started: every event is stopped; marking twice changes nothing.
        var none = report
        for k in none.events.indices where none.events[k].type.isHaptic {
            none.events[k].status = .notPlayed
            none.events[k].onsetTime = nil
        }
        XCTAssertEqual(none.markStopped(at: -.infinity), 5)
        XCTAssertEqual(none.markStopped(at: -.infinity), 0)
    }
}
