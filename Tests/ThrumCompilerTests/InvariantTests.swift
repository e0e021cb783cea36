import XCTest
import ThrumPattern
import ThrumTime
@testable import ThrumCompiler

func randomPattern(events n: Int, span: Double, rng: inout SplitMix64) -> HapticPattern {
    var events: [HapticEvent] = []
    for _ in 0..<n {
        let t = Double.random(in: 0..<span, using: &rng)
        let i = Float.random(in: 0...1, using: &rng), s = Float.random(in: 0...1, using: &rng)
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<6: events.append(transient(t, intensity: i, sharpness: s))
        case 6..<9:
            let extra: [HapticEventParameter] = [
                .init(parameterID: .attackTime, value: Float.random(in: 0...1, using: &rng)),
                .init(parameterID: .releaseTime, value: Float.random(in: 0...1, using: &rng)),
                .init(parameterID: .sustained, value: Bool.random(using: &rng) ? 1 : 0),
            ]
            events.append(continuous(t, Double.random(in: 0...2.5, using: &rng), intensity: i, sharpness: s, extra: extra))
        default: events.append(HapticEvent(audioWaveform: .init(path: "x.wav"), parameters: [], relativeTime: t))
        }
    }
    var curves: [HapticParameterCurve] = []
    var params: [HapticDynamicParameter] = []
    for _ in 0..<3 {
        let t = Double.random(in: 0..<span, using: &rng)
        curves.append(HapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: [
            .init(relativeTime: 0, value: Float.random(in: 0...1, using: &rng)),
            .init(relativeTime: 0.3, value: Float.random(in: 0...1, using: &rng)),
            .init(relativeTime: 0.9, value: Float.random(in: 0...1, using: &rng)),
        ], relativeTime: t))
        params.append(.init(parameterID: .hapticSharpnessControl, value: Float.random(in: -1...1, using: &rng),
                            relativeTime: Double.random(in: 0..<span, using: &rng)))
    }
    return HapticPattern(events: events, parameters: params, parameterCurves: curves)
}

final class InvariantTests: XCTestCase {
    func testRandomPatternsKeepInvariants() {
        var rng = SplitMix64(seed: 42)
        for round in 0..<60 {
            let p = randomPattern(events: 1 + round % 40, span: round % 3 == 0 ? 0.3 : 4, rng: &rng)
            for mixing in CompileOptions.Mixing.allCases {
                for comp in [true, false] {
                    let prog = PatternCompiler(profile: ActuatorProfile.builtIn[round % 5],
                                               options: .init(feltOnsetCompensation: comp, mixing: mixing)).compile(p)
                    assertInvariants(prog)
                    XCTAssertEqual(prog.events.count, p.events.count)
                    XCTAssertGreaterThanOrEqual(prog.duration, p.duration - 1e-9)
                }
            }
        }
    }

    func testLongRampsAreSplitAtOneSecond() {
        let e = continuous(0, 5, extra: [.init(parameterID: .releaseTime, value: 1)])
        let curve = HapticParameterCurve(parameterID: .hapticIntensityControl,
                                         controlPoints: [.init(relativeTime: 0, value: 0), .init(relativeTime: 3, value: 1)], relativeTime: 0)
        let p = plainCompiler().compile(pattern([e], curves: [curve]))
        XCTAssertTrue(p.segments.allSatisfy { $0.duration <= 1_000_000 })
        XCTAssertEqual(p.drive(at: 1.5), 0.5, accuracy: 1 / 255)
        XCTAssertEqual(p.drive(at: 5.5), 0.5, accuracy: 1 / 255)  // 1 s release from full scale
        assertInvariants(p)
    }

    func testDeterministic() {
        var r1 = SplitMix64(seed: 7), r2 = SplitMix64(seed: 7)
        let a = randomPattern(events: 50, span: 2, rng: &r1), b = randomPattern(events: 50, span: 2, rng: &r2)
        XCTAssertEqual(PatternCompiler(profile: .default).compile(a), PatternCompiler(profile: .default).compile(b))
    }

    func testEmptyPattern() {
        let p = PatternCompiler(profile: .default).compile(HapticPattern(events: [], parameters: [], parameterCurves: []))
        XCTAssertEqual(p.segments, [])
        XCTAssertEqual(p.events, [])
        XCTAssertEqual(p.duration, 0)
    }
}

final class RobustnessTests: XCTestCase {
    func testNonFiniteValuesDoNotCrash() {
        let bad = [
            transient(.nan), transient(.infinity), transient(0.1, intensity: .nan, sharpness: .nan),
            continuous(0.2, .infinity), continuous(0.3, 0.1, intensity: .infinity),
        ]
        let p = PatternCompiler(profile: .default).compile(pattern(bad, parameters: [
            .init(parameterID: .hapticIntensityControl, value: .nan, relativeTime: 0.05),
            .init(parameterID: .hapticSharpnessControl, value: 0.2, relativeTime: .infinity),
        ]))
        XCTAssertEqual(p.events.count, 5)
        XCTAssertEqual(p.events.filter(\.played).count, 2)
        XCTAssertEqual(p.diagnostics.filter { $0.kind == .invalidEventNotPlayed }.count, 3)
        XCTAssertTrue(p.duration.isFinite)
        assertInvariants(p)
    }

    func testUnsortedCurvePointsAndNegativeTimes() {
        let curve = HapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: [
            .init(relativeTime: 0.4, value: 0), .init(relativeTime: 0, value: 1), .init(relativeTime: -0.1, value: 0.5),
        ], relativeTime: 0.1)
        let p = plainCompiler().compile(pattern([continuous(0, 1), transient(-0.05)], curves: [curve]))
        XCTAssertEqual(p.drive(at: 0.3), 0.5, accuracy: 1 / 255)   // 1 at 0.1 → 0 at 0.5
        XCTAssertEqual(p.events.first?.requestedTime, -0.05)
        assertInvariants(p)
    }
}
