/// Where the mixer puts its pieces: an array, or the segmenter directly (`Segmenter.Stream`), so
/// `compile` never materialises the mixed envelope.
protocol PieceSink {
    mutating func put(_ p: Piece)
}

extension Array: PieceSink where Element == Piece {
    @inline(__always)
    mutating func put(_ p: Piece) { append(p) }
}

/// Mixes the envelopes of all events (each a run of pieces) into one envelope by a sweep over
/// every piece boundary. Where the mix is not linear in time (several ramps overlap), the
/// interval is approximated by steps of at most `step` µs.
struct Mixer: Sendable {
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
    func mix(_ input: [Piece]) -> [Piece] {
        var out: [Piece] = []
        out.reserveCapacity(input.count * 2)  // overlaps add pieces; untouched capacity costs nothing
        mix(input, into: &out)
        return out
    }

    /// The mixed envelope into `sink`. A sweep: the elementary interval ends at the next piece
    /// start or the earliest end of the pieces active. The input is read in stable `t0` order
    /// (`StartOrder`): linear for input given in onset order.
    func mix<S: PieceSink>(_ input: [Piece], into out: inout S) {
        var sweep = Sweep(self, input)
        while sweep.step(into: &out) {}
    }

    /// The sweep of `mix(_:into:)` one elementary interval at a time, so that a reader can pull
    /// the mixed envelope as it needs it (`next()`) instead of holding all of it.
    struct Sweep: Sendable {
        let mixer: Mixer
        private var pieces: StartOrder
        private var active: [Piece] = []
        private var a: Int64
        /// Pieces of the last interval not yet taken by `next()`.
        private var buffer: [Piece] = []
        private var read = 0

        init(_ mixer: Mixer, _ input: [Piece]) {
            self.mixer = mixer
            pieces = StartOrder(input)
            a = input.isEmpty ? 0 : pieces.peekStart
        }

        /// Mixes the next elementary interval into `out`; false when there is none left.
        ///
        /// A piece that nothing else overlaps (no piece active when it starts, the next one
        /// starting at or after its end) is its own elementary interval and passes through as it
        /// is, without entering the active set: the common case of events that do not overlap,
        /// whose pieces follow one another. The output is the sweep's either way.
        @inline(__always)
        mutating func step<S: PieceSink>(into out: inout S) -> Bool {
            if active.isEmpty {
                guard !pieces.isEmpty else { return false }
                // Every piece starting at or before `a` has been taken, so the next starts at or after it.
                let p = pieces.pop()
                a = p.t0
                if p.t0 < p.t1 && (pieces.isEmpty || p.t1 <= pieces.peekStart) {
                    // Its own interval [t0, t1]: what `emit` makes of one piece over it.
                    out.put(Piece(t0: p.t0, t1: p.t1, v0: p.v0, v1: p.value(at: p.t1)))
                    a = p.t1
                    return true
                }
                active.append(p)
            }
            while !pieces.isEmpty && pieces.peekStart <= a {
                active.append(pieces.pop())
            }
            var b = pieces.isEmpty ? Int64.max : pieces.peekStart
            for p in active where p.t1 < b { b = p.t1 }
            mixer.emit(active, a, b, into: &out)
            a = b
            var k = 0
            while k < active.count {
                if active[k].t1 <= a { active.swapAt(k, active.count - 1); active.removeLast() } else { k += 1 }
            }
            return true
        }

        /// The next piece of the mixed envelope, or nil after the last.
        mutating func next() -> Piece? {
            while read == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                read = 0
                var out = buffer
                buffer = []
                guard step(into: &out) else { return nil }
                buffer = out
            }
            read += 1
            return buffer[read - 1]
        }
    }

    /// Reads pieces in stable `t0` order without copying them. The compiler hands over each
    /// event's pieces in order and the events in onset order, so the input is a sequence of
    /// ascending runs whose first elements ascend: a merge of the few runs open at a time is
    /// linear. Anything else falls back to the library's stable sort. Ties keep input order.
    struct StartOrder: Sendable {
        private let input: [Piece]
        /// Start index of each maximal non-decreasing run (empty when sorted outright).
        private var runStarts: [Int] = []
        private var nextRun = 0
        /// Open runs as (next index, end index), in input order (ties go to the earliest run).
        private var open: [(next: Int, end: Int)] = []
        private var best = 0
        private(set) var isEmpty: Bool
        /// `t0` of the next piece (valid when not empty).
        private(set) var peekStart: Int64 = .max

        init(_ pieces: [Piece]) {
            var starts: [Int] = pieces.isEmpty ? [] : [0]
            for i in pieces.indices.dropFirst() where pieces[i].t0 < pieces[i - 1].t0 { starts.append(i) }
            var runs = true
            for r in starts.indices.dropFirst() where pieces[starts[r]].t0 < pieces[starts[r - 1]].t0 {
                runs = false
                break
            }
            if runs {
                input = pieces
                runStarts = starts
            } else {
                input = pieces.sorted { $0.t0 < $1.t0 }
                runStarts = [0]
            }
            isEmpty = input.isEmpty
            locate()
        }

        /// Finds the next piece: the earliest head among the open runs, or the next run's first
        /// piece if strictly earlier.
        private mutating func locate() {
            var bestT = Int64.max
            best = -1
            for k in open.indices {
                let t = input[open[k].next].t0
                if t < bestT { bestT = t; best = k }
            }
            if nextRun < runStarts.count && input[runStarts[nextRun]].t0 < bestT {
                let start = runStarts[nextRun]
                let end = nextRun + 1 < runStarts.count ? runStarts[nextRun + 1] : input.count
                open.append((start, end))
                best = open.count - 1
                bestT = input[start].t0
                nextRun += 1
            }
            isEmpty = best < 0
            peekStart = bestT
        }

        /// Takes the next piece.
        @inline(__always)
        mutating func pop() -> Piece {
            let p = input[open[best].next]
            open[best].next += 1
            if open[best].next == open[best].end { open.remove(at: best) }
            locate()
            return p
        }
    }

    /// Appends the mix of `active` over [a, b].
    @inline(__always)
    fileprivate func emit<S: PieceSink>(_ active: [Piece], _ a: Int64, _ b: Int64, into out: inout S) {
        if active.count == 1 {
            let p = active[0]
            out.put(Piece(t0: a, t1: b, v0: p.value(at: a), v1: p.value(at: b)))
            return
        }
        // One pass over the pieces: which vary, and the mix at both ends (the same products,
        // sums and maxima in the same order as `combine`, so the same values bit for bit).
        var varying = 0
        var ca = mode == .softSum ? 1.0 : 0.0, cb = ca
        for p in active {
            let x = p.value(at: a), y = p.value(at: b)
            if x != y { varying += 1 }
            switch mode {
            case .softSum:
                ca *= (1 - min(1, max(0, x)))
                cb *= (1 - min(1, max(0, y)))
            case .max:
                ca = max(ca, x)
                cb = max(cb, y)
            case .clippedSum:
                ca += x
                cb += y
            }
        }
        switch mode {
        case .softSum: ca = 1 - ca; cb = 1 - cb
        case .max: break
        case .clippedSum: ca = min(1, ca); cb = min(1, cb)
        }
        let linear = varying == 0 || (varying == 1 && mode == .softSum)
        if linear || b - a <= step {
            out.put(Piece(t0: a, t1: b, v0: ca, v1: cb))
            return
        }
        let n = (b - a + step - 1) / step
        var prevT = a
        var prevV = ca
        for i in 1...n {
            let t = i == n ? b : a + (b - a) * i / n
            let v = i == n ? cb : combine(active, at: t)
            out.put(Piece(t0: prevT, t1: t, v0: prevV, v1: v))
            prevT = t
            prevV = v
        }
    }
}
