@testable import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import XCTest

/// A change to a playing advanced player — a dynamic parameter, a seek, a playback rate — on
/// links of 40, 80 and 120 ms round trips, in virtual time: the chip's drive changes one change
/// lead after the call (the CUT's instant, ``DevicePlacement/changeLead``), judged on the
/// simulated chip's register writes, with no hole in the drive and no fault. Before, a seek and a
/// rate change waited two smoothed round trips (the restart margin: 160 ms on an 80 ms round
/// trip) although the CUT that carries them needs only the change lead (docs/timing.md, "Lead,
/// queue and changes").
final class ChangeLeadTests: XCTestCase {
    /// Two continuous events back to back: half intensity for `first` s, then full for 0.1 s.
    static func steps(first: Double) -> HapticPattern {
        HapticPattern(
            events: [
                TestPatterns.continuous(at: 0, duration: first, intensity: 0.5),
                TestPatterns.continuous(at: first, duration: 0.1, intensity: 1),
            ], parameters: [], parameterCurves: [])
    }

    enum Change: CaseIterable { case intensity, seek, rate }
    /// When the change is made, from the start.
    static let call = 0.05

    /// What one play with a change showed: when the chip's drive changed (µs, true time) and
    /// the change lead the engine had at the call.
    struct Measured {
        var start: Double
        var call: Double
        var changeLead: Double
        /// First true time (µs) after the call at which the chip drove at full level (the second event's).
        var fullLevel: Double?
        /// First true time (µs) after the call at which the chip's drive left the level it had at the call.
        var levelChange: Double
    }

    /// Plays ``steps(first:)`` on `rig` at `rate` from one lead from now; ``call`` into it makes
    /// `change` (nil: none; a seek goes to 0.05 s into the second event).
    private func play(
        _ change: Change?, rate: Double = 1, first: Double, on rig: VirtualRig, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Measured {
        let engine = try rig.engine()
        let player = try engine.makeAdvancedPlayer(with: Self.steps(first: first))
        player.playbackRate = rate
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        engine.run(until: start + Self.call)
        let call = Double(rig.pump.trueTime)
        let changeLead = Double(engine.changeLead.microseconds)
        switch change {
        case nil: break
        case .intensity:
            try player.sendParameters(
                [HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)], atTime: HapticTimeImmediate)
        case .seek: try player.seek(toOffset: first + 0.05)
        case .rate: player.playbackRate = 2
        }
        engine.runUntilPlayersFinished(timeout: 3)
        engine.waitForOnsetReports(of: player)
        let onsets = engine.onsets(for: player)
        XCTAssertFalse(onsets.isEmpty, file: file, line: line)
        XCTAssertEqual(onsets.filter { $0.status != .onTime }.map(\.patternIndex), [], "onsets not on time", file: file, line: line)
        XCTAssertNil(engine.lastError, file: file, line: line)
        let writes = rig.device.chip.trace.registerWrites.filter {
            $0.register == DRV2605LRegister.rtpInput.rawValue && Double($0.time) >= start * 1e6 - 50_000
        }
        let full = writes.first { Double($0.time) > call && $0.value > 200 }
        let level = try XCTUnwrap(writes.last { Double($0.time) <= call }, "the chip drove before the call", file: file, line: line).value
        let changed = try XCTUnwrap(writes.first { Double($0.time) > call && abs(Int($0.value) - Int(level)) > 20 }, file: file, line: line)
        // No write of 0 between the first drive and the last: the CUT replaced the drive in place.
        let first = try XCTUnwrap(writes.firstIndex { $0.value != 0 }, file: file, line: line)
        let last = try XCTUnwrap(writes.lastIndex { $0.value != 0 }, file: file, line: line)
        let holes = writes[first...last].filter { $0.value == 0 }.map { (Double($0.time) - start * 1e6) / 1e3 }
        XCTAssertEqual(holes, [], "a hole in the drive at these times (ms from the start)", file: file, line: line)
        return Measured(
            start: start * 1e6, call: call, changeLead: changeLead, fullLevel: full.map { Double($0.time) },
            levelChange: Double(changed.time))
    }

    /// Each change on a link whose legs take `out` and `back` ms takes effect on the chip one
    /// change lead after the call.
    private func assertChangesTakeEffectAtTheChangeLead(out: Int, back: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let rig = VirtualRig(link: try LinkSpec.link(parsing: "out=\(out)ms,back=\(back)ms"))
        try rig.connect(calibrate: false)
        // The first event lasts past the change at the longest change lead this link may have.
        let first = Self.call + 0.2 + 1.5 * Double(out + back) / 1e3
        // One rule for the lead: what the device reports a start would get is the engine's lead.
        let lead = rig.thrumDevice.linkHealth.leadTime
        XCTAssertEqual(lead, try rig.engine().leadTime, "the device's lead and the engine's", file: file, line: line)
        // Two chunks beyond two round trips: past the retransmission lead's 120 ms ceiling from 80 ms on.
        XCTAssertEqual(lead.microseconds, 20_000 + 2 * rig.session.link.statistics.smoothedRoundTrip.microseconds, accuracy: 1, file: file, line: line)
        print("out \(out) ms, back \(back) ms: lead \(lead), retransmission lead \(rig.session.leadPolicy.retransmissionLead(for: rig.session.link.statistics))")
        // Where the step to full level falls at rate 2 from the start.
        let doubled = try play(nil, rate: 2, first: first, on: rig, file: file, line: line)
        let step = try XCTUnwrap(doubled.fullLevel, "the chip drove at full level", file: file, line: line) - doubled.start
        for change in Change.allCases {
            let m = try play(change, first: first, on: rig, file: file, line: line)
            let effect: Double
            switch change {
            case .intensity, .seek: effect = m.levelChange
            case .rate:
                // At rate 1 until the effect e = s + c, at rate 2 after: a step at P₁ = A + B from
                // the start at rate 1 and P₂ = A / 2 + B at rate 2 (B: what the rate does not
                // scale, the second event's lead-in) lands at e + (A − c) / 2 + B from it, so
                // c = 2 · (step − P₂).
                effect = m.start + 2 * (try XCTUnwrap(m.fullLevel, "the chip drove at full level", file: file, line: line) - m.start - step)
            }
            let latency = effect - m.call
            print("out \(out) ms, back \(back) ms, \(change): \(latency / 1e3) ms after the call (change lead \(m.changeLead / 1e3) ms)")
            // The CUT's instant, to the chip's write (the rate's is read from a step: twice its error).
            XCTAssertEqual(latency, m.changeLead, accuracy: 1_000, "\(change): took effect \(latency / 1e3) ms after the call", file: file, line: line)
            // By the link the test built, not the host's figures: never before a frame could
            // arrive (the outbound leg), and within the documented bound, a quarter more than the
            // round trip and 2 ms (the restart margin, where seek and rate landed before, is two).
            XCTAssertGreaterThan(latency, Double(out) * 1e3, "\(change)", file: file, line: line)
            XCTAssertLessThanOrEqual(latency, 1.25 * Double(out + back) * 1e3 + 2_500, "\(change)", file: file, line: line)
        }
    }

    func testFortyMillisecondRoundTrip() throws { try assertChangesTakeEffectAtTheChangeLead(out: 20, back: 20) }
    func testEightyMillisecondRoundTrip() throws { try assertChangesTakeEffectAtTheChangeLead(out: 40, back: 40) }
    func testHundredAndTwentyMillisecondRoundTrip() throws { try assertChangesTakeEffectAtTheChangeLead(out: 60, back: 60) }
}
