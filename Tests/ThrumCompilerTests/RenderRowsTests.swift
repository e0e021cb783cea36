import XCTest
import ThrumPattern
@testable import ThrumCompiler

/// `thrum render` of 10⁶ events (issue 27): rows made a chunk at a time are the whole render's,
/// the grid of merged runs is the former span-by-span grid, the mix pulled piece by piece is the
/// whole mix, and the predictor's closed-form runs of sub-steps are its former single steps to
/// rounding.
final class RenderRowsTests: XCTestCase {
    let renderer = EnvelopeRenderer(profile: .default)

    /// Transients every 50 ms with varying intensity and sharpness, continuous events among them,
    /// a sharpness control and an intensity curve: ramps, flat stretches, braking and idle.
    func mixedPattern(events: Int) -> HapticPattern {
        let list = (0..<events).map { i -> HapticEvent in
            let t = 0.05 * Double(i)
            let intensity = Float(0.3 + 0.07 * Double(i % 10)), sharpness = Float(0.1 * Double(i % 7))
            return i % 5 == 0
                ? continuous(t, 0.02 + 0.01 * Double(i % 3), intensity: intensity, sharpness: sharpness)
                : transient(t, intensity: intensity, sharpness: sharpness)
        }
        return pattern(
            list + [continuous(Double(events) * 0.05 + 0.2, 0.4, intensity: 0.9)],
            parameters: [.init(parameterID: .hapticSharpnessControl, value: 0.2, relativeTime: 0.3)],
            curves: [.init(parameterID: .hapticIntensityControl, controlPoints: [
                .init(relativeTime: 0, value: 1), .init(relativeTime: 0.3, value: 0.4), .init(relativeTime: 0.6, value: 1),
            ], relativeTime: Double(events) * 0.05 + 0.2)])
    }

    func testChunksConcatenateToTheWholeRender() {
        let p = mixedPattern(events: 30)
        for rate in [100.0, 1000, 4000] {
            let whole = renderer.render(p, sampleRate: rate)
            for size in [1, 7, 1000, 1 << 20] {
                var rows = renderer.rows(p, sampleRate: rate)
                XCTAssertEqual(rows.count, whole.count)
                XCTAssertEqual(rows.firstTime, whole.time.first)
                XCTAssertEqual(rows.lastTime, whole.time.last)
                var joined = EnvelopeRender(sampleRate: rows.sampleRate, programDuration: rows.programDuration)
                var chunks = 0
                while let chunk = rows.next(maxRows: size) {
                    XCTAssertLessThanOrEqual(chunk.count, size, "a chunk holds at most the rows asked for")
                    XCTAssertEqual(chunk.programDuration, whole.programDuration)
                    joined.append(chunk)
                    chunks += 1
                }
                XCTAssertNil(rows.next(), "done stays done")
                XCTAssertEqual(chunks, (whole.count + size - 1) / size)
                XCTAssertEqual(joined, whole, "rate \(rate), chunks of \(size)")
                XCTAssertEqual(joined.csv(), whole.csv())
            }
        }
    }

    func testGridOfMergedRunsIsTheFormerGrid() {
        var rng = SplitMix(seed: 27)
        for trial in 0..<300 {
            let rate = [100.0, 1000, 4000][trial % 3]
            let start = -Int(rng.next() % 50), end = Int(rng.next() % 20_000)
            var spans: [(Double, Double)] = []
            for _ in 0..<Int(rng.next() % 40) {
                let a = Double(Int(rng.next() % 30_000) - 2_000) / rate + Double(rng.next() % 1000) * 1e-7
                let b = a + Double(rng.next() % 3_000) / rate
                spans.append(rng.next() % 9 == 0 ? (b, a) : (a, b))  // some empty, some in any order
            }
            if rng.next() % 5 == 0 { spans.sort { $0.0 < $1.0 } }
            let gap = max(2, Int((EnvelopeRenderer.longestSampledSilence * rate).rounded()))
            var runs = SpanRuns(from: start, to: max(start, end), sampleRate: rate)
            for s in spans { runs.add(s.0, s.1) }
            let grid = runs.grid(gap: gap).flatMap { $0.from...$0.to }
            XCTAssertEqual(grid, Self.formerGrid(from: start, to: max(start, end), active: spans, sampleRate: rate), "trial \(trial)")
        }
    }

    func testClosedFormRunsMatchTheSingleSubSteps() {
        let predictor = EnvelopePredictor(response: renderer.compiler.response)
        for p in [mixedPattern(events: 40), pattern([continuous(0.1, 0.2)]), pattern([transient(0.1, intensity: 0.2)])] {
            let program = renderer.compiler.compile(p)
            for rate in [100.0, 1000, 4000, 40_000] {
                let times = renderer.render(p, sampleRate: rate).time
                let now = predictor.predict(program: program, times: times, spacing: 1 / rate)
                let former = Self.formerPredict(predictor, program: program, times: times, spacing: 1 / rate)
                let worst = zip(now, former).map { abs($0 - $1) }.max() ?? 0
                XCTAssertLessThan(worst, 1e-12, "rate \(rate)")
                XCTAssertGreaterThan(former.max() ?? 0, 0.1, "the pattern drives the actuator")
            }
        }
    }

    /// The row period's decay factors kept apart (`preferStep`) are the numbers the steps would
    /// compute: rows split at half-period boundaries, braking, idle ring-down and a silence give
    /// the same envelope bit for bit as without them.
    func testAPreferredStepLeavesTheEnvelopeBitForBitTheSame() {
        let response = renderer.compiler.response
        var plain = ClosedLoopEnvelope(response: response)
        var kept = ClosedLoopEnvelope(response: response)
        kept.preferStep(1e-3)
        let targets: [Double] = [0, 1, 1, 0.6, 0.6, 0.6, 0, 0, 0, 0.3, 0.9, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        var compared = 0, moved = 0
        for round in 0..<30 {
            for (i, u) in targets.enumerated() {
                let step = i == 7 && round % 3 == 0 ? 0.37e-3 : (i == 15 ? 0.25 : 1e-3)
                plain.advance(step, target: u)
                kept.advance(step, target: u)
                XCTAssertEqual(kept.envelope.bitPattern, plain.envelope.bitPattern, "round \(round), step \(i)")
                compared += 1
                if plain.envelope > 0.01 { moved += 1 }
            }
        }
        XCTAssertEqual(compared, 600)
        XCTAssertGreaterThan(moved, 200, "the loop drives, brakes and rings down")
    }

    /// The closed form takes the runs in far fewer steps: a row of 40 sub-steps costs about one
    /// run per half-period boundary in it (counted, not timed).
    func testARowTakesARunPerBoundaryNotPerSubStep() {
        var loop = ClosedLoopEnvelope(response: renderer.compiler.response)
        loop.advance(1e-3, target: 1)  // running
        var steps = loop.drivenSteps
        let dt = 25e-6
        let tau = renderer.compiler.response.timeConstant
        let decays = (0...40).map { $0 == 1 ? exp(-dt / tau) : exp(-Double($0) * dt / tau) }
        var single = steps, taken = 0
        while taken < 40, single.step(dt) { taken += 1 }
        let run = steps.steps(40, of: dt, decays: decays, perStep: 1 / dt)
        XCTAssertEqual(run, taken, "as many sub-steps as single steps would take before the boundary")
        XCTAssertGreaterThan(run, 0)
        XCTAssertEqual(steps.envelope, single.envelope, accuracy: 1e-14)
    }

    func testTheSweepPulledPieceByPieceIsTheMix() {
        let compiler = plainCompiler()
        var layers: [HapticEvent] = []
        for i in 0..<25 {
            let t: Double = 0.013 * Double(i)
            let level: Float = Float(i % 10) / 10
            layers.append(i % 3 == 0 ? continuous(t, 0.05, intensity: 0.5) : transient(t, intensity: level))
        }
        let overlapping = pattern(layers)
        for p in [mixedPattern(events: 30), overlapping, pattern([])] {
            let c = compiler.compileDetailed(p, segmenting: false)
            XCTAssertEqual(c.mixed.count, 0, "not mixed up front")
            for mode in CompileOptions.Mixing.allCases {
                let mixer = Mixer(mode: mode, step: compiler.mixer.step)
                var sweep = Mixer.Sweep(mixer, c.pieces)
                var pulled: [Piece] = []
                while let piece = sweep.next() { pulled.append(piece) }
                let whole = mixer.mix(c.pieces)
                XCTAssertEqual(pulled.count, whole.count, "\(mode)")
                for (x, y) in zip(pulled, whole) { XCTAssertTrue(same(x, y), "\(mode)") }
            }
        }
    }

    /// One compilation gives the drive program and the requested envelope: the same pieces, in
    /// the same order, as the former second compilation without the pre-shift.
    func testTheRequestedEnvelopeIsThePlainCompilersPieces() {
        let layered = pattern([transient(0.1), transient(0.10005, intensity: 0.4), continuous(0.1, 0.1, intensity: 0.3),
                               transient(0.3), transient(0.29, sharpness: 0.9), continuous(0.5, 0.2, intensity: 0.6)])
        for p in [mixedPattern(events: 40), layered, pattern([]), pattern([transient(3600)])] {
            for profile in [ActuatorProfile.default] {
                let compiler = PatternCompiler(profile: profile)
                let both = compiler.compileDetailed(p, keepEventPieces: false, requestedEnvelope: true)
                let plain = plainCompiler(profile).compileDetailed(p, segmenting: false)
                XCTAssertEqual(both.program, compiler.compile(p), "the drive program is the compiler's")
                XCTAssertEqual(both.pieceStart, plain.pieceStart)
                XCTAssertEqual(both.baseSharpness, plain.baseSharpness)
                XCTAssertEqual(both.pieces.count, plain.pieces.count)
                for (x, y) in zip(both.pieces, plain.pieces) { XCTAssertTrue(same(x, y)) }
            }
        }
    }

    // MARK: - The former algorithms, as references

    static func formerGrid(from start: Int, to end: Int, active spans: [(Double, Double)], sampleRate: Double) -> [Int] {
        let gap = max(2, Int((EnvelopeRenderer.longestSampledSilence * sampleRate).rounded()))
        var ranges: [(Int, Int)] = spans.compactMap { span in
            guard span.0.isFinite, span.1.isFinite else { return nil }
            let a = max(start, Int((span.0 * sampleRate).rounded(.down)) - 1)
            let b = min(end, Int((span.1 * sampleRate).rounded(.up)) + 1)
            return a <= b ? (a, b) : nil
        }
        ranges.append((start, start))
        ranges.append((end, end))
        ranges.sort { $0.0 < $1.0 }
        var out: [Int] = []
        var last = Int.min
        for (a, b) in ranges {
            var from = a
            if last != .min {
                if b <= last { continue }
                from = a - last <= gap ? last + 1 : max(a, last + 1)
            }
            out.append(contentsOf: from...b)
            last = b
        }
        return out
    }

    static func formerPredict(_ predictor: EnvelopePredictor, program: DriveProgram, times: [Double], spacing: Double) -> [Double] {
        let response = predictor.response
        let sub = max(1, Int((spacing / EnvelopePredictor.maxStep).rounded(.up)))
        let dt = spacing / Double(sub)
        var loop = ClosedLoopEnvelope(response: response)
        var out = [Double](repeating: 0, count: times.count)
        var k = 0
        let segments = program.segments
        let law = EnvelopePredictor.WriteLaw(response)
        var written = EnvelopePredictor.WrittenValue()
        for i in times.indices {
            if i > 0 {
                let step = times[i] - times[i - 1]
                if step > 1.5 * spacing { loop.advance(step - spacing, target: 0) }
                let from = times[i] - spacing
                if let u = predictor.constantTarget(
                    segments, from: from - response.startLatency, to: from + spacing - response.startLatency, hint: &k)
                {
                    loop.advance(spacing, target: u)
                    out[i] = loop.envelope
                    continue
                }
                var steps = loop.drivenSteps
                for s in 0..<sub {
                    if steps.step(dt) { continue }
                    loop.drivenSteps = steps
                    let t = from + Double(s) * dt - response.startLatency
                    loop.advance(dt, target: predictor.rtp(segments, at: t, law: law, hint: &k, written: &written))
                    steps = loop.drivenSteps
                }
                loop.drivenSteps = steps
            }
            out[i] = loop.envelope
        }
        return out
    }
}

/// Whether two pieces are the same, bit for bit.
private func same(_ x: Piece, _ y: Piece) -> Bool {
    let times = x.t0 == y.t0 && x.t1 == y.t1
    let values = x.v0 == y.v0 && x.v1 == y.v1
    return times && values
}

/// A small deterministic generator for the grid trials.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
