import ThrumCompiler
@testable import ThrumEngine
import ThrumPattern
import ThrumTestSupport
import XCTest

/// An event that fades in from zero intensity (an intensity control curve from 0): its drive
/// begins where the curve first quantises to amplitude 1, its onset is reported there and
/// counted from that planned drive (`CompiledEvent.plannedLead`) — judged on the simulated chip's
/// register trace. Before, the event's mark sat on its first
/// segment, all zero: the device reported that segment's write of 0 as the onset, on time at
/// the requested instant, while the chip first drove about 4 ms (a 2.5 s fade) or 100 ms (a fade to
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

    /// The drive is planned `delay` s after the request (as the curve asks), the chip's first
    /// non-zero write lands there, and the onset, which counts from the planned drive, is on
    /// time: on the request, within its bound.
    func assertPlayedAsPlanned(_ record: OnsetRecord, truth: Double, delay: ClosedRange<Double>, file: StaticString = #filePath, line: UInt = #line) throws {
        let planned = record.intendedDriveTime - record.requestedTime
        XCTAssertTrue(delay.contains(planned), "drive planned \(planned) s after the request", file: file, line: line)
        let drive = truth - record.preShift
        XCTAssertEqual(drive, record.intendedDriveTime, accuracy: 0.0005, "the chip's first drive", file: file, line: line)
        let onset = try XCTUnwrap(record.onsetTime, file: file, line: line)
        XCTAssertEqual(onset, record.requestedTime, accuracy: 0.0005, file: file, line: line)
    }

    func testAFadeInIsReportedWhereItsDriveBegins() throws {
        // The curve reaches amplitude 1 about 4 ms in: the drive begins then.
        let (record, truth, _) = try play(fadeIn(to: 1))
        try assertPlayedAsPlanned(record, truth: truth, delay: 0.003...0.006)
    }

    func testAFadeThatStaysAtZeroFor100msIsReportedWhenItDrives() throws {
        let (record, truth, _) = try play(fadeIn(to: 0.05))
        try assertPlayedAsPlanned(record, truth: truth, delay: 0.09...0.11)
    }

    func testAFadeInMixedWithAnotherPlayerIsReportedWhereItsDriveBegins() throws {
        let (record, truth, _) = try play(fadeIn(to: 1), mixed: true)
        try assertPlayedAsPlanned(record, truth: truth, delay: 0.003...0.006)
    }
}
