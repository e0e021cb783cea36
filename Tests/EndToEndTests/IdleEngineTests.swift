import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// An engine in manual run mode left unrun between plays (the studio on a `--port`: nothing runs
/// the link while the page is idle) plays the next pattern as a fresh engine would, tells each
/// onset once, and its round trip is the link's, not the idle gap: in virtual time, judged against
/// the virtual device (the chip's trace, its fault log, the link's fixed latency).
final class IdleEngineTests: XCTestCase {
    /// One play on an idle-then-run engine: what the observer got, the report, the link's round trip.
    private struct Play {
        var updates: [OnsetUpdate]
        var report: PlaybackReport
        var roundTrip: HostDuration
    }

    private let beats = TestPatterns.metronome(beats: 4, interval: 0.1)

    /// Plays `beats` `plays` times on one engine, the device running on for `idle` s between plays
    /// while the host does nothing (``SimulatedPump/stallHost(for:)``).
    /// `stopping`: the engine is stopped after each play and started before the next (as the
    /// studio does, so the device's session is released while idle). `catchUp` false: the engine
    /// does not catch up after an idle (to see what the onset stream does on its own).
    private func playAfterIdles(_ plays: Int, idle: Double, stopping: Bool = false, catchUp: Bool = true) throws -> (
        VirtualRig, [Play]
    ) {
        let rig = VirtualRig(link: FixedLatencyLink(latency: 1_000, byteTime: 87))
        var configuration = HapticEngine.Configuration()
        configuration.calibrateOnStart = false
        if !catchUp { configuration.idleResynchronization = .seconds(1e6) }
        let engine = try rig.engine(configuration: configuration)
        var updates: [OnsetUpdate] = []
        let subscription = engine.observeOnsets { updates.append($0) }
        defer { subscription.cancel() }
        var result: [Play] = []
        for round in 0..<plays {
            if round > 0 { rig.pump.stallHost(for: UInt64(idle * 1e6)) }
            if stopping { try engine.start() }
            let before = engine.counters
            let player = try engine.makePlayer(with: beats)
            let start = engine.currentTime + engine.leadTime.seconds + 0.02
            try player.start(atTime: start)
            engine.runUntilPlayersFinished(timeout: beats.duration + 5)
            engine.waitForOnsetReports(of: player)
            var report = engine.playbackReport(
                for: player, pattern: beats, startTime: start, duration: beats.duration, since: before)
            rig.attachTruth(to: &report)
            result.append(
                Play(
                    updates: updates.filter { $0.playerID == player.playerID }, report: report,
                    roundTrip: engine.linkHealth.roundTrip))
            updates.removeAll()
            if stopping { engine.stop() }
        }
        return (rig, result)
    }

    func testAPlayAfterTheEngineSatIdlePlaysLikeTheFirst() throws {
        for stopping in [false, true] {
            try checkPlaysLikeTheFirst(stopping: stopping)
        }
    }

    private func checkPlaysLikeTheFirst(stopping: Bool) throws {
        let (rig, plays) = try playAfterIdles(3, idle: 20, stopping: stopping)
        for (n, play) in plays.enumerated() {
            XCTAssertEqual(play.report.faults.map(\.name), [], "play \(n)")
            XCTAssertEqual(play.report.events.count, 4)
            for event in play.report.events {
                XCTAssertEqual(event.status, .onTime, "play \(n) event \(event.patternIndex)")
                // The chip's own drive onset lies within the reported bound.
                let reported = try XCTUnwrap(event.onsetTime, "play \(n) event \(event.patternIndex)")
                let truth = try XCTUnwrap(
                    event.trueOnsetTime, "play \(n) event \(event.patternIndex): the chip drove it")
                let bound = try XCTUnwrap(event.onsetBound)
                XCTAssertLessThanOrEqual(abs(truth - reported), bound + 1e-6, "play \(n) event \(event.patternIndex)")
                XCTAssertFalse(event.boundSuspect, "play \(n) event \(event.patternIndex)")
            }
        }
        // The device ran every beat of every play, and none twice.
        XCTAssertEqual(rig.device.resetCount, 0)
    }

    func testTheRoundTripAfterIdleIsTheLinksNotTheGap() throws {
        for stopping in [false, true] {
            let (_, plays) = try playAfterIdles(3, idle: 20, stopping: stopping)
            // The link: 1 ms each way plus the frames' bytes at 87 µs; the first play's figure is the
            // reference, and no play after an idle may read the 20 s gap into it.
            let fresh = plays[0].roundTrip
            XCTAssertGreaterThan(fresh, .milliseconds(2))
            XCTAssertLessThan(fresh, .milliseconds(10))
            for (n, play) in plays.enumerated().dropFirst() {
                XCTAssertLessThan(
                    play.roundTrip, fresh * 2, "stopping \(stopping), play \(n): \(play.roundTrip) against \(fresh)")
            }
        }
    }

    func testEachOnsetIsReportedOnceAcrossIdlePlays() throws {
        for idle in [2.0, 5.0, 20.0] {
            let (_, plays) = try playAfterIdles(5, idle: idle)
            for (n, play) in plays.enumerated() {
                let reported = play.updates.filter { $0.kind == .reported }
                XCTAssertEqual(
                    reported.map(\.eventIndex).sorted(), [0, 1, 2, 3],
                    "idle \(idle) s, play \(n): \(play.updates.map { ($0.kind, $0.id, $0.eventIndex) })")
                XCTAssertEqual(Set(reported.map(\.id)).count, reported.count, "idle \(idle) s, play \(n)")
            }
        }
    }

    /// Without the catch-up, the plays after an idle go wrong (the device's watchdog emptied its
    /// queue, the session lapsed) and the device runs copies of some drive again: the onset stream
    /// still tells each onset once as `.reported` (a changed repeat is `.revised`).
    func testARepeatedReportIsNotReportedAgain() throws {
        let (_, plays) = try playAfterIdles(5, idle: 5, catchUp: false)
        let all = plays.flatMap(\.updates)
        let reported = all.filter { $0.kind == .reported }
        XCTAssertFalse(reported.isEmpty)
        XCTAssertEqual(
            Set(reported.map(\.id)).count, reported.count, "\(all.map { ($0.kind, $0.id, $0.eventIndex, $0.status) })")
    }
}
