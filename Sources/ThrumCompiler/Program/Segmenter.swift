/// Turns a mixed envelope into device segments: quantises amplitudes to 0…255, marks event
/// onsets, merges runs that stay collinear within half an LSB, splits anything longer than
/// 1 s, and writes an explicit 0 at the start of every silence.
struct Segmenter {
    /// Longest segment, µs (protocol limit).
    static let maxDuration: Int64 = 1_000_000
    /// Length of the zero segment that opens a silence, µs (at most the silence).
    static let stopDuration: Int64 = 1000

    /// An event onset to mark: the segment starting at `time` carries `id`.
    struct Mark {
        var time: Int64
        var id: UInt32
    }

    func segments(_ mixed: [Piece], marks: [Mark]) -> [DriveSegment] {
        var stream = Stream(marks: marks, capacity: mixed.count + marks.count + 16)
        for p in mixed { stream.put(p) }
        return stream.finish()
    }

    /// The segmenter as a `PieceSink`: takes mixed pieces in order, one at a time.
    struct Stream: PieceSink {
        private let marks: [Mark]
        private var out: [DriveSegment] = []
        private var lastEnd: Int64? = nil
        private var m = 0

        init(marks: [Mark], capacity: Int) {
            self.marks = marks
            out.reserveCapacity(capacity)
        }

        mutating func put(_ p: Piece) {
            if let e = lastEnd, p.t0 > e {
                Segmenter.append(DriveSegment(start: e, duration: UInt32(min(p.t0 - e, Segmenter.stopDuration)), from: 0, to: 0), to: &out)
            }
            var id: UInt32 = 0
            while m < marks.count && marks[m].time < p.t0 { m += 1 }
            if m < marks.count && marks[m].time == p.t0 {
                id = marks[m].id
                m += 1
            }
            Segmenter.emit(p, id: id, into: &out)
            lastEnd = p.t1
        }

        /// The segments, closed by the final zero.
        mutating func finish() -> [DriveSegment] {
            if let e = lastEnd {
                Segmenter.append(DriveSegment(start: e, duration: UInt32(Segmenter.stopDuration), from: 0, to: 0), to: &out)
                lastEnd = nil
            }
            return out
        }
    }

    /// Quantises a 0…1 value to an amplitude byte: round half away from zero, clamped to
    /// 0…255 (what `UInt8(min(255, max(0, Int((v * 255).rounded()))))` gives, without the libm
    /// call: for 0 < x < 255 the truncation is the floor and x − floor(x) is exact).
    @inline(__always)
    static func byte(_ v: Double) -> UInt8 {
        let x = v * 255
        if !(x > 0) { return 0 }
        if x >= 255 { return 255 }
        let i = Int(x)
        return UInt8(x - Double(i) >= 0.5 ? i + 1 : i)
    }

    @inline(__always)
    static func emit(_ p: Piece, id: UInt32, into out: inout [DriveSegment]) {
        if p.t1 - p.t0 <= Self.maxDuration {
            // One segment (value(at: t0) is v0 and value(at: t1) is v1).
            append(DriveSegment(start: p.t0, duration: UInt32(p.t1 - p.t0), from: Self.byte(p.v0), to: Self.byte(p.v1), eventID: id), to: &out)
            return
        }
        var t = p.t0
        var first = true
        while t < p.t1 {
            let e = min(p.t1, t + Self.maxDuration)
            let seg = DriveSegment(
                start: t, duration: UInt32(e - t), from: Self.byte(p.value(at: t)), to: Self.byte(p.value(at: e)),
                eventID: first ? id : 0)
            append(seg, to: &out)
            first = false
            t = e
        }
    }

    /// Shortest unmarked segment kept between two others, µs: the device takes about 73 µs to
    /// write one amplitude, so a sliver between two segment starts (rounding where two players'
    /// drive meets) would make the next segment — often an event's onset — start late.
    static let minimumDuration: Int64 = 100

    /// Appends, merging into the previous segment when that changes no amplitude by ≥ ½ LSB.
    @inline(__always)
    static func append(_ s: DriveSegment, to out: inout [DriveSegment]) {
        // Fold an unmarked sliver before `s` into the segment before it.
        if out.count >= 2, let last = out.last, last.end == s.start, last.eventID == 0,
            Int64(last.duration) < Self.minimumDuration, out[out.count - 2].end == last.start,
            Int64(out[out.count - 2].duration) + Int64(last.duration) <= Self.maxDuration
        {
            out[out.count - 2].duration += last.duration
            out[out.count - 2].to = last.to
            out.removeLast()
        }
        if s.eventID == 0, let last = out.last, last.end == s.start, last.to == s.from,
            Int64(last.duration) + Int64(s.duration) <= Self.maxDuration
        {
            let total = Double(last.duration) + Double(s.duration)
            let mid = Double(last.from) + (Double(s.to) - Double(last.from)) * Double(last.duration) / total
            if abs(mid - Double(last.to)) <= 0.5 {
                out[out.count - 1].duration += s.duration
                out[out.count - 1].to = s.to
                return
            }
        }
        out.append(s)
    }
}
