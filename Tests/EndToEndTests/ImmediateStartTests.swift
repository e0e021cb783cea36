import ThrumCompiler
@testable import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import XCTest

/// An immediate start (`start(atTime: HapticTimeImmediate)`) on a pty-like link (1 ms each way, a
/// serial line's byte time) whose outbound leg stalls just after the call — a starved simulator
/// or bridge, as on a loaded machine — judged by the simulated chip's register writes.
/// Before, an immediate start was placed one restart margin ahead (≈ 8 ms here), far less than
/// the engine's own start lead: a stall of 12 ms made its first event late, and one that outlasted
/// the event's first segment had the event reported `dropped` although the chip drove the rest.
final class ImmediateStartTests: XCTestCase {
    private static let pattern = HapticPattern(
        events: [TestPatterns.continuous(at: 0, duration: 0.3, intensity: 0.8), TestPatterns.transient(at: 0.4)],
        parameters: [], parameterCurves: [])

    /// Starts `pattern` now with the host → device leg held for `stall(lead)` µs from the call
    /// (`lead`: the engine's start lead); returns the engine time of the call, the lead (s) and
    /// the player's onset records once every report is in.
    private func startNow(stall: (Double) -> UInt64) throws -> (VirtualRig, Double, Double, [OnsetRecord]) {
        let window = StallWindow()
        let rig = VirtualRig(link: LegStallLink(base: FixedLatencyLink(latency: 1_000, byteTime: 87), direction: .hostToDevice, window: window))
        var configuration = HapticEngine.Configuration()
        configuration.calibrateOnStart = false
        let engine = try rig.engine(configuration: configuration)
        let player = try engine.makePlayer(with: Self.pattern)
        let lead = engine.leadTime.seconds
        let call = engine.currentTime
        window.from = rig.pump.trueTime
        window.length = stall(lead)
        try player.start(atTime: HapticTimeImmediate)
        XCTAssertTrue(engine.runUntilPlayersFinished(timeout: Self.pattern.duration + 2))
        engine.waitForOnsetReports(of: player)
        return (rig, call, lead, engine.onsets(for: player))
    }

    /// A 20 ms stall right after the call: every event on time, where the chip drove it, its drive
    /// beginning one start lead after the call (before: the continuous event's drive began 11 ms
    /// late, `late_trimmed`).
    func testAnImmediateStartRidesOutAShortStallAfterTheCall() throws {
        let (rig, call, lead, onsets) = try startNow { _ in 20_000 }
        XCTAssertEqual(onsets.map(\.patternIndex).sorted(), [0, 1])
        XCTAssertGreaterThanOrEqual(lead, 0.028, "the start lead: two render chunks beyond the restart margin")
        for onset in onsets {
            let what = "event \(onset.patternIndex): \(onset.status)"
            XCTAssertEqual(onset.status, .onTime, what)
            guard let truth = rig.trueOnset(of: onset) else {
                XCTFail("\(what): the chip did not drive it")
                continue
            }
            // Judged by the chip: its first drive at the event's intended time, within the clock
            // estimate's own error on this serial line (0.35 ms: the reply's bytes on the return
            // leg, docs/timing.md) — not the stall's milliseconds — and inside the reported bound.
            XCTAssertEqual(truth - onset.preShift, onset.intendedDriveTime, accuracy: 0.001, what)
            if let reported = onset.onsetTime, let bound = onset.onsetBound {
                XCTAssertLessThanOrEqual(abs(reported - truth), bound + 1e-6, "\(what): the bound holds the chip's onset")
            }
            if onset.patternIndex == 0 {
                // Its drive begins one start lead after the call, not sooner.
                let drive = truth - onset.preShift - call
                XCTAssertEqual(drive, lead, accuracy: 0.002, "\(what): drive began \(drive * 1e3) ms after the call")
            }
        }
    }

    /// A stall that outlasts the continuous event's first segment: the chip drives the rest of it,
    /// and the report says so — `late_trimmed`, its onset where the chip began (before: `dropped`,
    /// no onset, while the chip drove the rest of the event).
    func testAnEventWhoseFirstSegmentArrivedAfterItsEndIsReportedAsTheChipDroveIt() throws {
        let program = PatternCompiler(profile: .default).compile(Self.pattern)
        let first = program.segments[0]
        XCTAssertTrue(program.segments.count > 1 && program.segments[1].start == first.end && program.segments[1].end - first.end > 20_000,
                      "the event's drive goes on after its first segment: \(program.segments.prefix(3))")
        // The bytes reach the device 3 ms after the first segment's end (the drive begins one lead
        // after the call).
        let (rig, _, _, onsets) = try startNow { lead in UInt64(lead * 1e6 + Double(first.duration) + 3_000) }
        guard let event = onsets.first(where: { $0.patternIndex == 0 }) else { return XCTFail("event 0 not reported: \(onsets)") }
        let truth = rig.firstDrive(near: event.intendedDriveTime * 1e6, before: 0, window: 40_000)
        XCTAssertNotNil(truth, "the chip drove the rest of the event")
        XCTAssertEqual(event.status, .lateTrimmed, "the chip drove it, late")
        guard let truth, let reported = event.driveOnsetTime, let bound = event.onsetBound else {
            return XCTFail("no reported onset: \(event)")
        }
        XCTAssertGreaterThan(truth / 1e6 - event.intendedDriveTime, Double(first.end - first.start) / 1e6, "late by more than its first segment")
        XCTAssertLessThanOrEqual(abs(reported - truth / 1e6), bound + 1e-6, "the report's onset is the chip's first drive")
    }
}
