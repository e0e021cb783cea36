import XCTest
import ThrumPattern
import ThrumTime
@testable import ThrumCompiler

/// The mixer's sweep lets a piece nothing overlaps pass through without entering its active
/// set. It replaced a sweep that put every piece through the active set, kept here as the
/// reference (`Reference`, followed by the segmenter): on random pieces and on
/// random patterns the two give the same pieces and segments, bit for bit.
final class MixerReferenceTests: XCTestCase {
    /// Random pieces: runs of adjacent pieces (events), overlapping or not, ties, slivers, long
    /// pieces beyond the 1 s segment limit, flat and sloped, values slightly beyond 0…1.
    func randomPieces(_ rng: inout SplitMix64) -> [Piece] {
        var pieces: [Piece] = []
        var onset: Int64 = Int64.random(in: -3_000...3_000, using: &rng)
        for _ in 0..<Int.random(in: 1...40, using: &rng) {
            switch Int.random(in: 0...3, using: &rng) {
            case 0: onset += 0  // a tie
            case 1: onset += Int64.random(in: 1...300, using: &rng)  // overlapping
            default: onset += Int64.random(in: 1_000...40_000, using: &rng)  // mostly apart
            }
            var t = onset
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                let d: Int64 = Int.random(in: 0...19, using: &rng) == 0
                    ? Int64.random(in: 900_000...1_500_000, using: &rng) : Int64.random(in: 1...20_000, using: &rng)
                func value() -> Double {
                    Int.random(in: 0...3, using: &rng) == 0 ? 0 : Double(Int.random(in: -2...258, using: &rng)) / 255
                }
                let v0 = value()
                let v1 = Bool.random(using: &rng) ? v0 : value()
                pieces.append(Piece(t0: t, t1: t + d, v0: v0, v1: v1))
                t += d + (Int.random(in: 0...5, using: &rng) == 0 ? Int64.random(in: 1...2_000, using: &rng) : 0)
            }
        }
        return pieces
    }

    func testTheSweepAndTheSegmenterGiveTheReferencesOutputOnRandomPieces() {
        var rng = SplitMix64(seed: 26)
        for round in 0..<50 {
            let pieces = randomPieces(&rng)
            let marks = Array(Set(pieces.filter { _ in Int.random(in: 0...2, using: &rng) == 0 }.map(\.t0))).sorted()
                .enumerated().map { Segmenter.Mark(time: $1, id: UInt32($0 + 1)) }
            for mode in CompileOptions.Mixing.allCases {
                let mixer = Mixer(mode: mode, step: [1_000, 5_000, 20_000][round % 3])
                let expected = Reference.mix(pieces, mixer)
                let mixed = mixer.mix(pieces)
                XCTAssertEqual(mixed.map(Self.bits), expected.map(Self.bits), "round \(round) \(mode)")
                var sweep = Mixer.Sweep(mixer, pieces)
                var pulled: [Piece] = []
                while let p = sweep.next() { pulled.append(p) }
                XCTAssertEqual(pulled.map(Self.bits), expected.map(Self.bits), "round \(round) \(mode): pulled")
                var stream = Segmenter.Stream(marks: marks, capacity: 0)
                mixer.mix(pieces, into: &stream)
                XCTAssertEqual(stream.finish(), Reference.segments(expected, marks: marks), "round \(round) \(mode): segments")
            }
        }
    }

    /// Whole compilations of random patterns (the pre-shift on and off, every mixing mode):
    /// the program's segments are what the references make of the same pieces and marks.
    func testCompiledProgramsAreTheReferencesOnRandomPatterns() {
        var rng = SplitMix64(seed: 27)
        for round in 0..<20 {
            var events: [HapticEvent] = []
            var t = 0.0
            for k in 0..<Int.random(in: 1...120, using: &rng) {
                t += [0, 0.00005, 0.004, 0.02, 0.09][Int.random(in: 0...4, using: &rng)]
                let i = Float(Int.random(in: 0...10, using: &rng)) / 10, s = Float(Int.random(in: 0...8, using: &rng)) / 8
                events.append(k % 3 == 2
                    ? continuous(t, Double(Int.random(in: 0...30, using: &rng)) / 100, intensity: i, sharpness: s,
                                 extra: [.init(parameterID: .attackTime, value: Float(k % 4) / 4), .init(parameterID: .decayTime, value: 0.3),
                                         .init(parameterID: .sustained, value: Float(k % 2))])
                    : transient(t, intensity: i, sharpness: s))
            }
            let curves = round % 2 == 0 ? [] : [HapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: [
                .init(relativeTime: 0, value: 1), .init(relativeTime: 0.3, value: 0.2), .init(relativeTime: 0.8, value: 1),
            ], relativeTime: 0.1)]
            let p = HapticPattern(events: events, parameters: [], parameterCurves: curves)
            for mixing in CompileOptions.Mixing.allCases {
                let compiler = PatternCompiler(profile: .default, options: .init(feltOnsetCompensation: round % 4 != 1, mixing: mixing))
                let detailed = compiler.compileDetailed(p)
                let marks = detailed.program.events.filter { $0.played && $0.sharesOnsetWith == nil }
                    .map { Segmenter.Mark(time: $0.driveOnset, id: $0.id) }.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
                let expected = Reference.segments(Reference.mix(detailed.pieces, compiler.mixer), marks: marks)
                XCTAssertEqual(compiler.compile(p).segments, expected, "round \(round) \(mixing)")
                XCTAssertEqual(detailed.program.segments, expected, "round \(round) \(mixing): detailed")
            }
        }
    }

    static func bits(_ p: Piece) -> [UInt64] {
        [UInt64(bitPattern: p.t0), UInt64(bitPattern: p.t1), p.v0.bitPattern, p.v1.bitPattern]
    }

    /// The mixer's sweep as it was before the pass-through (issue 26).
    enum Reference {
        static func mix(_ input: [Piece], _ mixer: Mixer) -> [Piece] {
            let pieces = input.sorted { $0.t0 < $1.t0 }  // stable: the run merge's order (StreamingTests)
            var out: [Piece] = []
            var next = 0
            var active: [Piece] = []
            var a: Int64 = pieces.first?.t0 ?? 0
            while next < pieces.count || !active.isEmpty {
                if active.isEmpty { a = max(a, pieces[next].t0) }
                while next < pieces.count && pieces[next].t0 <= a {
                    active.append(pieces[next])
                    next += 1
                }
                var b = next < pieces.count ? pieces[next].t0 : Int64.max
                for p in active where p.t1 < b { b = p.t1 }
                emit(active, a, b, mixer, into: &out)
                a = b
                var k = 0
                while k < active.count {
                    if active[k].t1 <= a { active.swapAt(k, active.count - 1); active.removeLast() } else { k += 1 }
                }
            }
            return out
        }

        static func emit(_ active: [Piece], _ a: Int64, _ b: Int64, _ mixer: Mixer, into out: inout [Piece]) {
            if active.count == 1 {
                out.append(Piece(t0: a, t1: b, v0: active[0].value(at: a), v1: active[0].value(at: b)))
                return
            }
            let ca = mixer.combine(active, at: a), cb = mixer.combine(active, at: b)
            let varying = active.filter { $0.value(at: a) != $0.value(at: b) }.count
            if varying == 0 || (varying == 1 && mixer.mode == .softSum) || b - a <= mixer.step {
                out.append(Piece(t0: a, t1: b, v0: ca, v1: cb))
                return
            }
            let n = (b - a + mixer.step - 1) / mixer.step
            var prevT = a, prevV = ca
            for i in 1...n {
                let t = i == n ? b : a + (b - a) * i / n
                let v = i == n ? cb : mixer.combine(active, at: t)
                out.append(Piece(t0: prevT, t1: t, v0: prevV, v1: v))
                prevT = t
                prevV = v
            }
        }

        /// The segmenter (unchanged by issue 26) applied to the reference's mix.
        static func segments(_ mixed: [Piece], marks: [Segmenter.Mark]) -> [DriveSegment] {
            Segmenter().segments(mixed, marks: marks)
        }
    }
}
