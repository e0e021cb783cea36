import ThrumPattern

/// A render in progress: the rows of `EnvelopeRenderer.render(_:sampleRate:)` produced a chunk
/// at a time, so that a long pattern (10⁶ events, 50 million rows) can be written or summarised
/// without holding every row. The chunks, concatenated, are exactly the whole render.
public struct EnvelopeRows: Sendable {
    /// Samples per second.
    public let sampleRate: Double
    /// The compiled program's length, s (`DriveProgram.duration`).
    public let programDuration: Double
    /// Number of rows in all.
    public let count: Int
    /// The first row's time, s.
    public var firstTime: Double { Double(runs.first?.from ?? 0) / sampleRate }
    /// The last row's time, s.
    public var lastTime: Double { Double(runs.last?.to ?? 0) / sampleRate }

    /// Runs of consecutive sample indices (inclusive), increasing, with gaps between them.
    let runs: [(from: Int, to: Int)]
    private var run = 0
    private var index: Int
    private var remaining: Int
    private var intensity: PieceSampler
    private var drive: DriveSampler
    private var sharpness: SharpnessSampler
    private var acceleration: EnvelopePredictor.Stepper

    init(
        sampleRate: Double, programDuration: Double, runs: [(from: Int, to: Int)], intensity: PieceSampler,
        drive: DriveSampler, sharpness: SharpnessSampler, acceleration: EnvelopePredictor.Stepper
    ) {
        self.sampleRate = sampleRate
        self.programDuration = programDuration
        self.runs = runs
        self.count = runs.reduce(0) { $0 + $1.to - $1.from + 1 }
        self.index = runs.first?.from ?? 0
        self.remaining = count
        self.intensity = intensity
        self.drive = drive
        self.sharpness = sharpness
        self.acceleration = acceleration
    }

    /// The next chunk of at most `maxRows` rows (≥ 1), or nil when every row has been produced.
    /// Its `programDuration` is the program's.
    public mutating func next(maxRows: Int = 65_536) -> EnvelopeRender? {
        guard remaining > 0 else { return nil }
        let rows = min(max(1, maxRows), remaining)
        // The times first, then each column in its own pass (a tight loop per sampler).
        let time = [Double](unsafeUninitializedCapacity: rows) { buffer, made in
            for i in 0..<rows {
                buffer[i] = Double(index) / sampleRate
                if index < runs[run].to {
                    index += 1
                } else {
                    run += 1
                    if run < runs.count { index = runs[run].from }
                }
            }
            made = rows
        }
        // The rows' times in whole µs (rounded), which the intensity and sharpness columns both read.
        let us = [Int64](unsafeUninitializedCapacity: rows) { buffer, made in
            for i in 0..<rows { buffer[i] = micros(time[i]) }
            made = rows
        }
        let intensity = [Double](unsafeUninitializedCapacity: rows) { buffer, made in
            for i in 0..<rows { buffer[i] = self.intensity.value(atMicros: us[i]) }
            made = rows
        }
        let drive = [Double](unsafeUninitializedCapacity: rows) { buffer, made in
            for i in 0..<rows { buffer[i] = self.drive.value(at: time[i]) }
            made = rows
        }
        let sharpness = [Double](unsafeUninitializedCapacity: rows) { buffer, made in
            for i in 0..<rows { buffer[i] = self.sharpness.value(at: time[i], micros: us[i]) }
            made = rows
        }
        let acceleration = [Double](unsafeUninitializedCapacity: rows) { buffer, made in
            for i in 0..<rows { buffer[i] = self.acceleration.envelope(at: time[i]) }
            made = rows
        }
        let chunk = EnvelopeRender(
            sampleRate: sampleRate, time: time, intensity: intensity, sharpness: sharpness, drive: drive,
            acceleration: acceleration, programDuration: programDuration)
        remaining -= rows
        return chunk
    }
}

/// Samples the mixed envelope (sorted, non-overlapping pieces, pulled from the mixer as the
/// rows reach them) at increasing times (0 in gaps).
struct PieceSampler: Sendable {
    private var sweep: Mixer.Sweep
    private var piece: Piece?

    init(_ sweep: Mixer.Sweep) {
        self.sweep = sweep
        piece = self.sweep.next()
    }

    /// The value at `us` µs (the row's time, `micros(t)`).
    @inline(__always)
    mutating func value(atMicros us: Int64) -> Double {
        while let p = piece, p.t1 <= us { piece = sweep.next() }
        guard let p = piece, p.t0 <= us else { return 0 }
        return p.value(at: us)
    }
}

/// `program.drive(at:)` at increasing times: the same numbers, found by walking the segments
/// once instead of a binary search and a libm floor per row.
struct DriveSampler: Sendable {
    let segments: [DriveSegment]
    private var started = 0  // segments whose start is at or before the row

    init(_ segments: [DriveSegment]) { self.segments = segments }

    @inline(__always)
    mutating func value(at t: Double) -> Double {
        let us = floorMicros(t)
        while started < segments.count && segments[started].start <= us { started += 1 }
        guard started > 0 else { return 0 }
        let s = segments[started - 1]
        return (us < s.end ? s.amplitude(at: us) : 0) / 255
    }
}

/// The requested sharpness at increasing times: each playing event's sharpness (its own plus
/// the control, clamped) weighted by its requested envelope; their plain mean where all weigh 0.
struct SharpnessSampler: Sendable {
    /// Per event, in onset order: its first piece's start, its last piece's end, its own
    /// sharpness, and its pieces as `pieces[pieceStart[j]..<pieceStart[j + 1]]`.
    private let starts: [Int64]
    private let ends: [Int64]
    private let base: [Double]
    private let pieceStart: [Int]
    private let pieces: [Piece]
    private let control: ControlTrack
    private var active: [Int] = []
    /// The earliest end among the active events (`Int64.max` when none is).
    private var nearestEnd = Int64.max
    private var next = 0

    init(_ c: PatternCompiler.Compilation) {
        var order = (0..<c.eventCount).filter { c.pieceStart[$0] < c.pieceStart[$0 + 1] }
        let firstStart = (0..<c.eventCount).map { c.pieceStart[$0] < c.pieceStart[$0 + 1] ? c.pieces[c.pieceStart[$0]].t0 : 0 }
        order.sort { firstStart[$0] < firstStart[$1] }
        starts = order.map { firstStart[$0] }
        ends = order.map { c.pieces[c.pieceStart[$0 + 1] - 1].t1 }
        base = order.map { c.baseSharpness[$0] }
        if order.count == c.eventCount && order.indices.allSatisfy({ order[$0] == $0 }) {
            // Every event has pieces and they are in onset order (the usual case): shared, not copied.
            pieceStart = c.pieceStart
            pieces = c.pieces
        } else {
            var pieceStart: [Int] = [], pieces: [Piece] = []
            pieceStart.reserveCapacity(order.count + 1)
            for j in order {
                pieceStart.append(pieces.count)
                pieces.append(contentsOf: c.pieces(ofEvent: j))
            }
            pieceStart.append(pieces.count)
            self.pieceStart = pieceStart
            self.pieces = pieces
        }
        control = c.controls.sharpness
    }

    /// The value at row time `t` (s), `us` being `micros(t)`.
    mutating func value(at t: Double, micros us: Int64) -> Double {
        while next < starts.count && starts[next] <= us {
            active.append(next)
            if ends[next] < nearestEnd { nearestEnd = ends[next] }
            next += 1
        }
        if nearestEnd <= us {
            // Some event has ended (else none has: the list stays as it is).
            let ends = self.ends
            active.removeAll { ends[$0] <= us }
            nearestEnd = .max
            for j in active where ends[j] < nearestEnd { nearestEnd = ends[j] }
        }
        if active.isEmpty { return 0 }
        var num = 0.0, den = 0.0, plain = 0.0
        let c = control.value(at: t)
        for j in active {
            let s = HapticSemantics.clamp01(base[j] + c)
            var w = 0.0
            var k = pieceStart[j]
            let end = pieceStart[j + 1]
            while k < end {  // indices, not a slice: no retain of the pieces per row
                let p = pieces[k]
                if p.t0 <= us && us < p.t1 {
                    w = p.value(at: us)
                    break
                }
                k += 1
            }
            num += s * w
            den += w
            plain += s
        }
        return den > 0 ? num / den : plain / Double(active.count)
    }
}
