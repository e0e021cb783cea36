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
            engine.run(for: 0.05)
        }
        XCTAssertEqual(reasons, [.engineDestroyed])
    }

    /// The "new engine per play" habit: an engine let go while its pattern plays lives until the
    /// pattern ends (its players hold it), so every beat reaches the chip; then it is destroyed.
    func testAnEngineLetGoWhilePlayingPlaysOnAndIsDestroyedAfter() throws {
        var reasons: [HapticEngine.StoppedReason] = []
        let rig = EngineRig()
        var start = 0.0
        weak var gone: HapticEngine?
        do {
            let engine = HapticEngine(session: rig.session, profile: rig.profile)
            gone = engine
            engine.stoppedHandler = { reasons.append($0) }
            try engine.start()
            start = engine.currentTime + 0.05
            try engine.makePlayer(with: metronome()).start(atTime: start)
            engine.run(for: 0.01)
        }
        XCTAssertNotNil(gone, "a playing engine must outlive its owner's reference")
        XCTAssertEqual(reasons, [])
        rig.rig.advance(by: 0.6)
        XCTAssertNil(gone)
        XCTAssertEqual(reasons, [.engineDestroyed])
        // The chip started each of the four beats, 100 ms apart.
        let records = rig.rig.sharedDevice().allOnsets
        XCTAssertEqual(records.count, 4)
        for (k, record) in records.enumerated() {
            let truth = try XCTUnwrap(rig.trueOnset(record))
            XCTAssertEqual(truth, start + Double(k) * 0.1, accuracy: 0.000_5)
        }
    }
}
