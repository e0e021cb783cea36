import XCTest
import ThrumPattern
@testable import ThrumCompiler

final class SemanticsTests: XCTestCase {
    /// Amplitude (0…255) of the program at time t seconds.
    func amp(_ p: DriveProgram, _ t: Double) -> Double { p.amplitude(atMicroseconds: micros(t)) }

    func testIntensityControlOfHalfHalvesTheDrive() {
        let c = plainCompiler()
        let full = c.compile(pattern([continuous(0, 1)]))
        let half = c.compile(pattern([continuous(0, 1)], parameters: [.init(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)]))
        XCTAssertEqual(amp(full, 0.5), 255)
        XCTAssertEqual(amp(half, 0.5), 127.5, accuracy: 0.5)
        // Transients too.
        let t1 = c.compile(pattern([transient(0.1, sharpness: 1)]))
        let t2 = c.compile(pattern([transient(0.1, sharpness: 1)], parameters: [.init(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)]))
        XCTAssertEqual(amp(t1, 0.105), 255)
        XCTAssertEqual(amp(t2, 0.105), 127.5, accuracy: 0.5)
        // Event intensity × control, clamped.
        let t3 = c.compile(pattern([continuous(0, 1, intensity: 0.6)], parameters: [.init(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)]))
        XCTAssertEqual(amp(t3, 0.5), 0.3 * 255, accuracy: 0.5)
    }

    func testCurveMidpointIsLinear() {
        let curve = HapticParameterCurve(parameterID: .hapticIntensityControl,
                                         controlPoints: [.init(relativeTime: 0, value: 1), .init(relativeTime: 1, value: 0)],
                                         relativeTime: 0.5)
        let p = plainCompiler().compile(pattern([continuous(0, 2)], curves: [curve]))
        XCTAssertEqual(amp(p, 1.0), 127.5, accuracy: 1)   // curve midpoint (point times relative to 0.5)
        XCTAssertEqual(amp(p, 0.75), 191.25, accuracy: 1)
        XCTAssertEqual(amp(p, 1.25), 63.75, accuracy: 1)
        assertInvariants(p)
    }

    func testValuesHeldOutsideCurvePoints() {
        let curve = HapticParameterCurve(parameterID: .hapticIntensityControl,
                                         controlPoints: [.init(relativeTime: 0.2, value: 0.4), .init(relativeTime: 0.4, value: 0.8)],
                                         relativeTime: 0.5)
        let p = plainCompiler().compile(pattern([continuous(0, 2)], curves: [curve]))
        XCTAssertEqual(amp(p, 0.3), 255, accuracy: 0.5)           // before the curve: default 1.0
        XCTAssertEqual(amp(p, 0.6), 0.4 * 255, accuracy: 0.5)     // curve started, before its first point: held
        XCTAssertEqual(amp(p, 0.8), 0.6 * 255, accuracy: 1)       // between points: linear
        XCTAssertEqual(amp(p, 1.5), 0.8 * 255, accuracy: 0.5)     // after the last point: held
        // A later step takes over.
        let q = plainCompiler().compile(pattern([continuous(0, 2)], parameters: [.init(parameterID: .hapticIntensityControl, value: 0.2, relativeTime: 1.2)], curves: [curve]))
        XCTAssertEqual(amp(q, 1.1), 0.8 * 255, accuracy: 0.5)
        XCTAssertEqual(amp(q, 1.5), 0.2 * 255, accuracy: 0.5)
    }

    func testSharpnessControlAddsAndClamps() {
        let base = HapticPattern(events: [transient(0, sharpness: 0.3)], parameters: [], parameterCurves: [])
        let plusOne = HapticPattern(events: [transient(0, sharpness: 0.3)], parameters: [.init(parameterID: .hapticSharpnessControl, value: 1, relativeTime: 0)], parameterCurves: [])
        let c = EventShaper(resonanceHz: 175, maxContinuousDuration: 30)
        XCTAssertEqual(c.shape(of: base.events[0], controls: HapticControls(base)).0.sharpness, 0.3, accuracy: 1e-6)
        XCTAssertEqual(c.shape(of: plusOne.events[0], controls: HapticControls(plusOne)).0.sharpness, 1.0)
    }

    func testDefaults() {
        let c = plainCompiler()
        let p = c.compile(pattern([transient(0, intensity: nil, sharpness: nil)]))
        let q = c.compile(pattern([transient(0, intensity: 1.0, sharpness: 0.5)]))
        XCTAssertEqual(p.segments, q.segments)
    }

    /// Sharper transients are shorter and rectangular; duller ones are longer and ramped.
    func testTransientShapeFollowsSharpness() {
        let c = plainCompiler()
        let sharp = c.compile(pattern([transient(0, sharpness: 1)]))
        let dull = c.compile(pattern([transient(0, sharpness: 0)]))
        func activeLength(_ p: DriveProgram) -> Int64 { p.segments.filter { $0.from > 0 || $0.to > 0 }.map(\.end).max()! }
        XCTAssertEqual(Double(activeLength(sharp)), 2 / 175 * 1e6, accuracy: 2)   // 2 cycles
        XCTAssertEqual(Double(activeLength(dull)), 6 / 175 * 1e6, accuracy: 2)    // 6 cycles
        XCTAssertEqual(sharp.segments[0].from, 255)   // full-amplitude step, then an abrupt 0 (chip brakes)
        XCTAssertEqual(sharp.segments.last?.from, 0)
        XCTAssertEqual(dull.segments[0].from, 0)      // ramps in
        assertInvariants(sharp)
        assertInvariants(dull)
    }

    func testReleaseTail() {
        // ReleaseTime 0.5 → 1 s × (10 − 1)/99 ≈ 90.9 ms linear tail after the duration.
        let e = continuous(0, 0.2, extra: [.init(parameterID: .releaseTime, value: 0.5)])
        let p = plainCompiler().compile(pattern([e]))
        let tail = HapticSemantics.envelopeTime(0.5, min: 0, max: 1)
        XCTAssertEqual(tail, 0.0909, accuracy: 0.0001)
        XCTAssertEqual(amp(p, 0.19), 255)
        XCTAssertEqual(amp(p, 0.2 + tail / 2), 127.5, accuracy: 1)
        XCTAssertEqual(amp(p, 0.2 + tail + 0.0005), 0)
        XCTAssertEqual(p.duration, 0.2 + tail + 0.001, accuracy: 0.0001)  // plus the 1 ms zero segment
        // Without release (sharpness 1): abrupt stop at the duration.
        let q = plainCompiler().compile(pattern([continuous(0, 0.2)]))
        XCTAssertEqual(amp(q, 0.2005), 0)
        assertInvariants(p)
    }

    func testAttackAndDecayEnvelope() {
        // AttackTime 1 → 1 s ramp; Sustained 0 with DecayTime 0 → 20 ms decay after the attack.
        let a = plainCompiler().compile(pattern([continuous(0, 2, extra: [.init(parameterID: .attackTime, value: 1)])]))
        XCTAssertEqual(amp(a, 0.5), 127.5, accuracy: 1)
        let adr = plainCompiler().compile(pattern([continuous(0, 2, extra: [.init(parameterID: .sustained, value: 0)])]))
        XCTAssertEqual(amp(adr, 0.010), 127.5, accuracy: 1)
        XCTAssertEqual(amp(adr, 0.5), 0)
        // The attack-time control adds to AttackTime.
        let ctl = plainCompiler().compile(pattern([continuous(0, 2)], parameters: [.init(parameterID: .hapticAttackTimeControl, value: 1, relativeTime: 0)]))
        XCTAssertEqual(amp(ctl, 0.5), 127.5, accuracy: 1)
    }

    func testTimeMappingIsExponential() {
        typealias S = HapticSemantics
        XCTAssertEqual(S.envelopeTime(0, min: 0, max: 1), 0)
        XCTAssertEqual(S.envelopeTime(1, min: 0, max: 1), 1, accuracy: 1e-12)
        let q1 = S.envelopeTime(0.25, min: 0, max: 1), q2 = S.envelopeTime(0.5, min: 0, max: 1), q3 = S.envelopeTime(0.75, min: 0, max: 1)
        XCTAssertGreaterThan(q3 - q2, q2 - q1)
    }

    func testLongContinuousIsClampedAndReported() {
        let p = plainCompiler().compile(pattern([continuous(0, 45)]))
        XCTAssertEqual(p.diagnostics, [CompileDiagnostic(kind: .continuousDurationClamped(original: 45, clamped: 30), index: 0)])
        XCTAssertEqual(amp(p, 29.9), 255)
        XCTAssertEqual(amp(p, 30.01), 0)
        XCTAssertTrue(p.segments.allSatisfy { $0.duration <= 1_000_000 })
        XCTAssertGreaterThanOrEqual(p.segments.count, 30)
        assertInvariants(p)
    }

    func testAudioEventsAreKeptUnplayed() {
        let audio = HapticEvent(audioWaveform: .init(path: "a.wav"), parameters: [], relativeTime: 0.05, duration: 0.3)
        let ac = HapticEvent(eventType: .audioContinuous, parameters: [], relativeTime: 0.01, duration: 0.1)
        let p = PatternCompiler(profile: .default).compile(pattern([audio, transient(0.1), ac]))
        XCTAssertEqual(p.events.count, 3)
        XCTAssertEqual(p.events.map(\.patternIndex), [2, 0, 1])
        XCTAssertEqual(p.events.filter(\.played).map(\.patternIndex), [1])
        XCTAssertEqual(p.events[0].preShift, 0)
        XCTAssertEqual(Set(p.segments.map(\.eventID)).subtracting([0]), [p.events[2].id])
        XCTAssertEqual(PatternCompiler(profile: .default).compile(pattern([audio])).segments, [])
        assertInvariants(p)
    }

    func testTransientDecayTimeAddsATail() {
        let plain = plainCompiler().compile(pattern([transient(0, sharpness: 1)]))
        let tailed = plainCompiler().compile(pattern([transient(0, sharpness: 1, extra: [.init(parameterID: .decayTime, value: 0.5)])]))
        let tail = HapticSemantics.envelopeTime(0.5, min: 0, max: HapticSemantics.transientDecayTailMax)
        XCTAssertEqual(tail, 0.04545, accuracy: 0.0001)
        let end0 = plain.segments.filter { $0.from > 0 || $0.to > 0 }.map(\.end).max()!
        let end1 = tailed.segments.filter { $0.from > 0 || $0.to > 0 }.map(\.end).max()!
        XCTAssertEqual(Double(end1 - end0), tail * 1e6, accuracy: 2)
    }

    /// Low sharpness softens a continuous event's edges; sharpness 1 leaves them square.
    func testSharpnessSoftensContinuousEdges() {
        let square = plainCompiler().compile(pattern([continuous(0, 0.2, sharpness: 1)]))
        XCTAssertEqual(square.segments[0].from, 255)
        let soft = plainCompiler().compile(pattern([continuous(0, 0.2, sharpness: 0)]))
        XCTAssertEqual(soft.segments[0].from, 0)
        XCTAssertEqual(soft.segments[0].duration, 10_000)                       // 10 ms attack at sharpness 0
        XCTAssertEqual(amp(soft, 0.2 + 0.010), 127.5, accuracy: 1)             // 20 ms release, half-way
        // The sharpness control counts: +1 makes a dull event square.
        let ctl = plainCompiler().compile(pattern([continuous(0, 0.2, sharpness: 0)], parameters: [.init(parameterID: .hapticSharpnessControl, value: 1, relativeTime: 0)]))
        XCTAssertEqual(ctl.segments[0].from, 255)
    }
}
