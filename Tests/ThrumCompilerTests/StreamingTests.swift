import XCTest
import ThrumPattern
import ThrumTime
@testable import ThrumCompiler

/// `compile` streams the mixer into the segmenter and reads the events' pieces through a run
/// merge; `compileDetailed` stores the mixed envelope. Both must give the same program, and the
/// run merge the same order as a stable sort.
final class StreamingTests: XCTestCase {
    func varied(_ n: Int) -> HapticPattern {
        var rng = SplitMix64(seed: 11)
        var events: [HapticEvent] = []
        var t = 0.0
        for k in 0..<n {
            t += Double.random(in: 0.0...0.03, using: &rng)  // ties and heavy overlap included
            let i = Float(Int.random(in: 1...10, using: &rng)) / 10
            let s = Float(Int.random(in: 0...8, using: &rng)) / 8
            events.append(k % 4 == 3
                ? continuous(t, Double(Int.random(in: 0...20, using: &rng)) / 100, intensity: i, sharpness: s,
                             extra: [.init(parameterID: .attackTime, value: Float(k % 3) / 4)])
                : transient(t, intensity: i, sharpness: s))
        }
        let curve = HapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: [
            .init(relativeTime: 0, value: 1), .init(relativeTime: 5, value: 0.3), .init(relativeTime: 10, value: 1),
        ], relativeTime: 1)
        return HapticPattern(events: events, parameters: [], parameterCurves: [curve])
    }

    func testCompileEqualsDetailedCompile() {
        let pat = varied(3_000)
        for mixing in CompileOptions.Mixing.allCases {
            for shift in [true, false] {
                let c = PatternCompiler(profile: .default, options: .init(feltOnsetCompensation: shift, mixing: mixing))
                XCTAssertEqual(c.compile(pat), c.compileDetailed(pat).program, "\(mixing) \(shift)")
            }
        }
    }

    /// `render` hands the compiler the only reference to a large pattern: the compilation that
    /// frees its events once shaped gives what the one that keeps them gives, and leaves the
    /// pattern's controls.
    func testACompilationThatReleasesTheEventsGivesTheSameResult() {
        let pat = varied(2_000)
        let c = PatternCompiler(profile: .default)
        var released = pat
        let a = c.compileDetailed(releasing: &released, keepEventPieces: false, requestedEnvelope: true)
        let b = c.compileDetailed(pat, keepEventPieces: false, requestedEnvelope: true)
        XCTAssertTrue(released.events.isEmpty)
        XCTAssertEqual(released.parameterCurves, pat.parameterCurves)
        XCTAssertEqual(pat.events.count, 2_000, "a caller's own copy is untouched")
        XCTAssertEqual(a.program, b.program)
        XCTAssertEqual(a.pieceStart, b.pieceStart)
        XCTAssertEqual(a.baseSharpness, b.baseSharpness)
        XCTAssertEqual(a.pieces.map { [Double($0.t0), Double($0.t1), $0.v0, $0.v1] }, b.pieces.map { [Double($0.t0), Double($0.t1), $0.v0, $0.v1] })
    }

    func testRunMergeIsAStableSort() {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<50 {
            var pieces: [Piece] = []
            var onset: Int64 = 0
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                onset += Int64.random(in: 0...3, using: &rng)
                var t = onset
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let d = Int64.random(in: 1...6, using: &rng)
                    pieces.append(Piece(t0: t, t1: t + d, v0: Double(pieces.count), v1: 0))
                    t += Int64.random(in: 0...1, using: &rng) == 0 ? d : 0
                }
            }
            var order = Mixer.StartOrder(pieces)
            var merged: [Piece] = []
            while !order.isEmpty { merged.append(order.pop()) }
            let sorted = pieces.sorted { $0.t0 < $1.t0 }
            XCTAssertEqual(merged.map(\.v0), sorted.map(\.v0))
        }
    }
}
