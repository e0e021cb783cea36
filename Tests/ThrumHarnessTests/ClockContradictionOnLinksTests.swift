import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import XCTest

/// The clock model's contradiction check (``ClockModel/contradictions``) never fires on a link
/// whose facts hold: on every catalogue link, a played pattern leaves no sample contradicting the
/// window and no onset's bound suspect, and every bound holds the chip's truth.
final class ClockContradictionOnLinksTests: XCTestCase {
    func testNoContradictionOnAnyModelledLink() throws {
        for profile in LinkCatalogue.all {
            let rig = VirtualRig(link: profile, seed: 5)
            let engine = rig.makeEngine()
            try engine.start()
            let events = (0..<12).map { TestPatterns.transient(at: 0.05 + Double($0) * 0.06) }
            let player = try engine.makePlayer(with: HapticPattern(events: events, parameters: []))
            try player.start(atTime: engine.currentTime + 0.05)
            XCTAssertTrue(engine.runUntilPlayersFinished(timeout: 5))
            engine.waitForOnsetReports(of: player)
            let onsets = engine.onsets(for: player)
            XCTAssertEqual(onsets.count, 12, profile.name)
            XCTAssertEqual(rig.session.link.clock.contradictions, 0, "\(profile.name): a contradiction on a link whose facts hold")
            for record in onsets {
                XCTAssertFalse(record.boundSuspect, profile.name)
                let truth = try XCTUnwrap(rig.trueOnset(of: record), profile.name) - record.preShift
                let range = try XCTUnwrap(record.driveOnsetRange, profile.name)
                XCTAssertTrue(range.contains(truth), "\(profile.name): truth \(truth) outside \(range)")
            }
        }
    }
}
