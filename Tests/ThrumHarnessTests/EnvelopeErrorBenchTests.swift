import XCTest
@testable import ThrumHarness
import ThrumCompiler

/// The envelope-error figure (DESIGN.md §6): requested intensity vs LRA acceleration.
final class EnvelopeErrorBenchTests: XCTestCase {
    func testSyntheticPatternsMeasuredAgainstPlainRTP() throws {
        let r = try EnvelopeErrorBench.run(patterns: EnvelopeErrorBench.syntheticPatterns())
        print(EnvelopeErrorBench.note(r))
        for p in r.patterns { print(p.name, p.ours, p.baseline, p.samples) }
        print("pooled", r.ours, r.baseline, r.ratio, r.shapingOnly, r.driverOnly)
        print(EnvelopeErrorBench.verdict(r))
        XCTAssertEqual(r.patterns.count, 3)
        XCTAssertGreaterThan(r.fullScaleG, 0)
        XCTAssertGreaterThan(r.baselineFullScaleG, 0)
        // The baseline really runs without overdrive headroom.
        XCTAssertLessThan(r.baselineClampCode, r.clampCode)
        for p in r.patterns {
            XCTAssertGreaterThan(p.samples, 100)
            XCTAssertTrue(p.ours.isFinite && p.ours > 0 && p.ours < 1, "\(p.name): \(p.ours)")
            XCTAssertTrue(p.baseline.isFinite && p.baseline > 0 && p.baseline < 1, "\(p.name): \(p.baseline)")
        }
    }

    func testExamplesAreFound() {
        XCTAssertEqual(EnvelopeErrorBench.examplePatterns().map(\.0), ["heartbeat.ahap", "metronome.ahap", "swell.ahap"])
    }

    func testPlainProgramFollowsTheRequestedEnvelope() throws {
        let (_, pattern) = try XCTUnwrap(EnvelopeErrorBench.syntheticPatterns().first)
        let render = ThrumCompiler.EnvelopeRenderer(profile: .default).render(pattern)
        let program = EnvelopeErrorBench.plainProgram(render)
        XCTAssertGreaterThanOrEqual(program.segments.first?.start ?? -1, 0, "no pre-shift")
        for (t, v) in zip(render.time, render.intensity) where t >= 0 && t < 0.3 {
            XCTAssertEqual(program.drive(at: t), v, accuracy: 1.0 / 255 + 1e-9, "t = \(t)")
        }
    }
}
