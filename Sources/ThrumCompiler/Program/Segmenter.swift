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
        segmentsAndMovedMarks(mixed, marks: marks).segments
    }

    /// The same, with the marks the segmenter moved to where their drive begins (``Stream/movedMarks``).
    func segmentsAndMovedMarks(_ mixed: [Piece], marks: [Mark]) -> (segments: [DriveSegment], moved: [Mark]) {
        var stream = Stream(marks: marks, capacity: mixed.count + marks.count + 16)
        for p in mixed { stream.put(p) }
        return (stream.finish(), stream.movedMarks)
    }

    /// The segmenter as a `PieceSink`: takes mixed pieces in order, one at a time.
    ///
    /// An onset mark goes on the segment where its event's drive begins. A mark whose piece
    /// quantises to 0 → 0 (an event that fades in from zero intensity) is held while the
    /// pieces after it stay at 0 and passes to the first that drives: the device reports a
    /// marked segment's first non-zero write as its onset (PROTOCOL.md §4.1), and an all-zero
    /// marked segment's write of 0 would be reported instead, before any drive. A piece that
    /// ramps up from 0 is split where the device's ramp would first drive
    /// (``DriveSegment/firstDriveOffset``), so the marked part
    /// starts at amplitude 1 and the drive keeps its time. The mark goes back on its own piece
    /// when no drive follows before a silence, another mark or the end (an event that never
    /// drives keeps its onset at its start).
    struct Stream: PieceSink {
        private let marks: [Mark]
        private var out: [DriveSegment] = []
        private var lastEnd: Int64? = nil
        private var m = 0
        /// A mark held over pieces that quantise to 0 → 0, and those pieces.
        private var held: (id: UInt32, pieces: [Piece])? = nil
        /// The marks moved to where their event's drive begins, at their new times, in order.
        private(set) var movedMarks: [Mark] = []

        init(marks: [Mark], capacity: Int) {
            self.marks = marks
            out.reserveCapacity(capacity)
        }

        mutating func put(_ p: Piece) {
            if let e = lastEnd, p.t0 > e {
                releaseHeldMark()
                Segmenter.append(DriveSegment(start: e, duration: UInt32(min(p.t0 - e, Segmenter.stopDuration)), from: 0, to: 0), to: &out)
            }
            var id: UInt32 = 0
            while m < marks.count && marks[m].time < p.t0 { m += 1 }
            if m < marks.count && marks[m].time == p.t0 {
                id = marks[m].id
                m += 1
            }
            lastEnd = p.t1
            if id != 0 {
                releaseHeldMark()
                if Segmenter.byte(p.v0) == 0 && Segmenter.byte(p.v1) == 0 {
                    held = (id, [p])
                    return
                }
            } else if let h = held {
                if Segmenter.byte(p.v0) == 0 && Segmenter.byte(p.v1) == 0 {
                    held?.pieces.append(p)
                    return
                }
                held = nil
                for (k, z) in h.pieces.enumerated() { Segmenter.emit(z, id: 0, separate: k == 0, into: &out) }
                if Segmenter.byte(p.v0) == 0 {
                    // A ramp up from 0: unmarked zero to its first drive, marked from amplitude 1.
                    let ramp = DriveSegment(start: p.t0, duration: UInt32(clamping: p.t1 - p.t0), from: 0, to: Segmenter.byte(p.v1))
                    let firstDrive = ramp.firstDriveOffset
                    if firstDrive > 0 {
                        let crossing = p.t0 + firstDrive
                        Segmenter.emit(Piece(t0: p.t0, t1: crossing, v0: 0, v1: 0), id: 0, into: &out)
                        let one = 1 / 255.0
                        Segmenter.emit(Piece(t0: crossing, t1: p.t1, v0: one, v1: max(one, p.v1)), id: h.id, into: &out)
                        movedMarks.append(Mark(time: crossing, id: h.id))
                        return
                    }
                }
                id = h.id
                movedMarks.append(Mark(time: p.t0, id: h.id))
            }
            Segmenter.emit(p, id: id, into: &out)
        }

        /// Puts a held mark back on its own first piece: no drive followed it.
        private mutating func releaseHeldMark() {
            guard let h = held else { return }
            held = nil
            for (k, z) in h.pieces.enumerated() { Segmenter.emit(z, id: k == 0 ? h.id : 0, into: &out) }
        }

        /// The segments, closed by the final zero.
        mutating func finish() -> [DriveSegment] {
            releaseHeldMark()
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

    /// `separate`: the first segment is not merged into the one before it (the zero that opens
    /// an event's onset stays zero, whatever the drive before it).
    @inline(__always)
    static func emit(_ p: Piece, id: UInt32, separate: Bool = false, into out: inout [DriveSegment]) {
        if p.t1 - p.t0 <= Self.maxDuration {
            // One segment (value(at: t0) is v0 and value(at: t1) is v1).
            append(
                DriveSegment(start: p.t0, duration: UInt32(p.t1 - p.t0), from: Self.byte(p.v0), to: Self.byte(p.v1), eventID: id),
                mayMerge: !separate, to: &out)
            return
        }
        var t = p.t0
        var first = true
        while t < p.t1 {
            let e = min(p.t1, t + Self.maxDuration)
            let seg = DriveSegment(
                start: t, duration: UInt32(e - t), from: Self.byte(p.value(at: t)), to: Self.byte(p.value(at: e)),
                eventID: first ? id : 0)
            append(seg, mayMerge: !(first && separate), to: &out)
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
    static func append(_ s: DriveSegment, mayMerge: Bool = true, to out: inout [DriveSegment]) {
        // Fold an unmarked sliver before `s` into the segment before it.
        if out.count >= 2, let last = out.last, last.end == s.start, last.eventID == 0,
            Int64(last.duration) < Self.minimumDuration, out[out.count - 2].end == last.start,
            Int64(out[out.count - 2].duration) + Int64(last.duration) <= Self.maxDuration
        {
            out[out.count - 2].duration += last.duration
            out[out.count - 2].to = last.to
            out.removeLast()
        }
        if mayMerge, s.eventID == 0, let last = out.last, last.end == s.start, last.to == s.from,
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
