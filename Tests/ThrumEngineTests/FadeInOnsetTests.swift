import ThrumCompiler
@testable import ThrumEngine
import ThrumPattern
import ThrumTestSupport
import XCTest

/// An event that fades in from zero intensity (an intensity control curve from 0): its drive
/// begins where the curve first quantises to amplitude 1, and its onset is reported there —
/// judged on the simulated chip's register trace. Before, the event's mark sat on its first
/// segment, all zero: the device reported that segment's write of 0 as the onset, on time at
/// the requested instant, while the chip first drove 4.9 ms (a 2.5 s fade) or 100 ms (a fade to
/// 0.05) later, far outside the reported bound.
final class FadeInOnsetTests: XCTestCase {
    /// A continuous event from pattern time 0 under a control curve from 0 to `top` over 2.5 s.
    func fadeIn(to top: Float) -> HapticPattern {
        let event = TestPatterns.continuous(at: 0, duration: 3, intensity: 1)
        let curve = HapticParameterCurve(
            parameterID: .hapticIntensityControl,
            controlPoints: [.init(relativeTime: 0, value: 0), .init(relativeTime: 2.5, value: top)], relativeTime: 0)
        return HapticPattern(events: [event], parameters: [], parameterCurves: [curve])
    }

    /// Plays `pattern` (with another player mixing beside it when `mixed`) and returns its
    /// onset record with the chip's true onset (the bound must hold it: `EngineRig.trueOnset`).
    func play(_ pattern: HapticPattern, mixed: Bool = false) throws -> (record: OnsetRecord, truth: Double, rig: EngineRig) {
        let rig = EngineRig()
        try rig.engine.start()
        if mixed {
            // A second player keeps the engine mixing in chunks (one player alone goes out verbatim).
            let far = HapticPattern(events: [transient(5)], parameters: [], parameterCurves: [])
            try rig.engine.makePlayer(with: far).start(atTime: rig.now + 0.05)
            rig.engine.run(for: 0.1)
        }
        let player = try rig.engine.makePlayer(with: pattern)
        let start = rig.now + 0.3
        try player.start(atTime: start)
        rig.engine.run(until: start + 0.5)
        let record = try XCTUnwrap(rig.engine.device.allOnsets.first { $0.playerID == player.playerID })
        XCTAssertEqual(record.status, .onTime)
        let truth = try XCTUnwrap(rig.trueOnset(record), "the chip never drove near the reported onset")
        // Nothing drove between the request and the true onset.
        let before = rig.rtpWrites(from: record.requestedTime - 0.001, to: truth - record.preShift - 1e-6)
        XCTAssertTrue(before.allSatisfy { $0.1 == 0 }, "drive before the onset: \(before)")
        return (record, truth, rig)
    }

    func testAFadeInIsReportedWhereItsDriveBegins() throws {
        let (record, truth, _) = try play(fadeIn(to: 1))
        // The curve reaches amplitude 1 about 5 ms in: the drive really begins then.
        XCTAssertEqual(truth - record.requestedTime, 0.0049, accuracy: 0.001)
        let onset = try XCTUnwrap(record.onsetTime)
        XCTAssertEqual(onset, truth, accuracy: try XCTUnwrap(record.onsetBound) + 1e-6)
    }

    func testAFadeThatStaysAtZeroFor100msIsReportedWhenItDrives() throws {
        let (record, truth, _) = try play(fadeIn(to: 0.05))
        XCTAssertEqual(truth - record.requestedTime, 0.1, accuracy: 0.005)
    }

    func testAFadeInMixedWithAnotherPlayerIsReportedWhereItsDriveBegins() throws {
        let (record, truth, _) = try play(fadeIn(to: 1), mixed: true)
        XCTAssertEqual(truth - record.requestedTime, 0.0049, accuracy: 0.001)
    }
}
