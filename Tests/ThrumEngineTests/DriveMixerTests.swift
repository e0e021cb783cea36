import ThrumCompiler
import ThrumEngine
import ThrumPattern
import XCTest

/// The compiler's mixing rule, exposed for the engine, and engine lifetime.
final class DriveMixerTests: XCTestCase {
    func testSoftSumOfTwoLayersAndMarks() {
        let mixer = DriveMixer()
        let a = EnvelopeRamp(start: 0, end: 10_000, from: 0.5, to: 0.5)
        let b = EnvelopeRamp(start: 5_000, end: 20_000, from: 0.5, to: 0.5)
        let segments = mixer.segments(mixing: [a, b], marks: [.init(time: 5_000, id: 7)], from: 0, to: 30_000)
        XCTAssertEqual(segments.map(\.start), [0, 5_000, 10_000, 20_000])
        XCTAssertEqual(segments.map(\.from), [128, 191, 128, 0])
        XCTAssertEqual(segments[1].eventID, 7)
    }

    func testAWindowClipsAndNothingStartsAtItsEnd() {
        let mixer = DriveMixer()
        let ramp = EnvelopeRamp(start: 0, end: 10_000, from: 0, to: 1)
        let segments = mixer.segments(mixing: [ramp], marks: [], from: 2_500, to: 5_000)
        XCTAssertEqual(segments.count, 1)
        XCTAssertEqual(segments[0].start, 2_500)
        XCTAssertEqual(segments[0].end, 5_000)
        XCTAssertEqual(segments[0].from, 64)
        XCTAssertEqual(segments[0].to, 128)
    }

    func testSameMixAsTheCompilerForOnePatternOfTwoEvents() {
        let pattern = HapticPattern(events: [continuous(0, duration: 0.1, intensity: 0.4), continuous(0.05, duration: 0.1, intensity: 0.4)], parameters: [], parameterCurves: [])
        let program = PatternCompiler(profile: .default).compile(pattern)
        // The same two events as two one-event layers.
        let layers = pattern.events.map { e -> [EnvelopeRamp] in
            var single = e
            single.relativeTime = 0
            let p = PatternCompiler(profile: .default).compile(HapticPattern(events: [single], parameters: [], parameterCurves: []))
            return p.segments.map { EnvelopeRamp($0, offset: Int64((e.relativeTime * 1e6).rounded())) }
        }
        let mixed = DriveMixer().segments(mixing: layers.flatMap { $0 }, marks: [], from: -50_000, to: 300_000)
        for t in stride(from: Int64(0), to: 150_000, by: 5_000) {
            let expected = program.amplitude(atMicroseconds: t)
            let got = DriveProgram(segments: mixed, events: [], duration: 0).amplitude(atMicroseconds: t)
            XCTAssertEqual(got, expected, accuracy: 1.5, "at \(t) µs")
        }
    }

    func testDestroyingARunningEngineTellsTheStoppedHandler() throws {
        var reasons: [HapticEngine.StoppedReason] = []
        let rig = EngineRig()
        do {
            let engine = HapticEngine(session: rig.session, profile: rig.profile)
            engine.stoppedHandler = { reasons.append($0) }
            try engine.start()
            let player = try engine.makePlayer(with: metronome())
            try player.start(atTime: 0)
            engine.run(for: 0.05)
        }
        XCTAssertEqual(reasons, [.engineDestroyed])
    }
}
