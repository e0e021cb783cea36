/// Mixes the envelopes of all events (each a run of pieces) into one envelope by a sweep over
/// every piece boundary. Where the mix is not linear in time (several ramps overlap), the
/// interval is approximated by steps of at most `step` µs.
struct Mixer {
    let mode: CompileOptions.Mixing
    let step: Int64

    /// Combines the values of the active pieces at time `t`.
    @inline(__always)
    func combine(_ active: [Piece], at t: Int64) -> Double {
        switch mode {
        case .softSum:
            var rest = 1.0
            for p in active { rest *= (1 - min(1, max(0, p.value(at: t)))) }
            return 1 - rest
        case .max:
            var m = 0.0
            for p in active { m = max(m, p.value(at: t)) }
            return m
        case .clippedSum:
            var sum = 0.0
            for p in active { sum += p.value(at: t) }
            return min(1, sum)
        }
    }

    /// The mixed envelope: pieces sorted, non-overlapping; gaps where nothing plays.
    /// A sweep: the elementary interval ends at the next piece start or the earliest end of
    /// the pieces active; input given in onset order sorts in linear time.
    func mix(_ input: [Piece]) -> [Piece] {
        guard !input.isEmpty else { return [] }
        var sorted = true
        for i in input.indices.dropFirst() where input[i].t0 < input[i - 1].t0 {
            sorted = false
            break
        }
        let pieces = sorted ? input : Self.sortedByStart(input)
        var out: [Piece] = []
        out.reserveCapacity(pieces.count * 2)  // overlaps add pieces; untouched capacity costs nothing
        var active: [Piece] = []
        var next = 0
        var a = pieces[0].t0
        while next < pieces.count || !active.isEmpty {
            if active.isEmpty { a = max(a, pieces[next].t0) }
            while next < pieces.count && pieces[next].t0 <= a {
                active.append(pieces[next])
                next += 1
            }
            var b = next < pieces.count ? pieces[next].t0 : Int64.max
            for p in active where p.t1 < b { b = p.t1 }
            emit(active, a, b, into: &out)
            a = b
            var k = 0
            while k < active.count {
                if active[k].t1 <= a { active.swapAt(k, active.count - 1); active.removeLast() } else { k += 1 }
            }
        }
        return out
    }

    /// `input` stably sorted by `t0`. The compiler hands over each event's pieces in order and
    /// the events in onset order, so the input is a sequence of ascending runs whose first
    /// elements ascend: a merge of the few runs open at a time is linear. Anything else falls
    /// back to the library's stable sort. Ties keep input order either way.
    static func sortedByStart(_ input: [Piece]) -> [Piece] {
        // Maximal non-decreasing runs.
        var runStarts: [Int] = [0]
        for i in 1..<input.count where input[i].t0 < input[i - 1].t0 { runStarts.append(i) }
        for r in 1..<runStarts.count where input[runStarts[r]].t0 < input[runStarts[r - 1]].t0 {
            return input.sorted { $0.t0 < $1.t0 }
        }
        var out: [Piece] = []
        out.reserveCapacity(input.count)
        // Open runs as (next index, end index), in input order (so ties go to the earliest run).
        var open: [(next: Int, end: Int)] = []
        var nextRun = 0
        while out.count < input.count {
            // The earliest head among the open runs and the next run's first piece.
            var best = -1
            var bestT = Int64.max
            for k in open.indices {
                let t = input[open[k].next].t0
                if t < bestT { bestT = t; best = k }
            }
            if nextRun < runStarts.count && input[runStarts[nextRun]].t0 < bestT {
                let start = runStarts[nextRun]
                let end = nextRun + 1 < runStarts.count ? runStarts[nextRun + 1] : input.count
                open.append((start, end))
                best = open.count - 1
                nextRun += 1
            }
            out.append(input[open[best].next])
            open[best].next += 1
            if open[best].next == open[best].end { open.remove(at: best) }
        }
        return out
    }

    /// Appends the mix of `active` over [a, b].
    @inline(__always)
    private func emit(_ active: [Piece], _ a: Int64, _ b: Int64, into out: inout [Piece]) {
        if active.count == 1 {
            let p = active[0]
            out.append(Piece(t0: a, t1: b, v0: p.value(at: a), v1: p.value(at: b)))
            return
        }
        var varying = 0
        for p in active where p.value(at: a) != p.value(at: b) { varying += 1 }
        let linear = varying == 0 || (varying == 1 && mode == .softSum)
        if linear || b - a <= step {
            out.append(Piece(t0: a, t1: b, v0: combine(active, at: a), v1: combine(active, at: b)))
            return
        }
        let n = (b - a + step - 1) / step
        var prevT = a
        var prevV = combine(active, at: a)
        for i in 1...n {
            let t = i == n ? b : a + (b - a) * i / n
            let v = combine(active, at: t)
            out.append(Piece(t0: prevT, t1: t, v0: prevV, v1: v))
            prevT = t
            prevV = v
        }
    }
}
