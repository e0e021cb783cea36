/// Mixes the envelopes of all events (each a run of pieces) into one envelope by a sweep over
/// every piece boundary. Where the mix is not linear in time (several ramps overlap), the
/// interval is approximated by steps of at most `step` µs.
struct Mixer {
    let mode: CompileOptions.Mixing
    let step: Int64

    /// Combines values of simultaneous contributions.
    @inline(__always)
    func combine(_ values: [Double]) -> Double {
        switch mode {
        case .softSum:
            var rest = 1.0
            for v in values { rest *= (1 - min(1, max(0, v))) }
            return 1 - rest
        case .max:
            return values.max() ?? 0
        case .clippedSum:
            return min(1, values.reduce(0, +))
        }
    }

    /// The mixed envelope: pieces sorted, non-overlapping; gaps where nothing plays.
    func mix(_ input: [Piece]) -> [Piece] {
        guard !input.isEmpty else { return [] }
        let pieces = input.sorted { $0.t0 < $1.t0 }
        var bounds: [Int64] = []
        bounds.reserveCapacity(pieces.count * 2)
        for p in pieces {
            bounds.append(p.t0)
            bounds.append(p.t1)
        }
        bounds.sort()
        var out: [Piece] = []
        out.reserveCapacity(pieces.count)
        var active: [Piece] = []
        var next = 0
        var va: [Double] = [], vb: [Double] = []
        var k = 0
        while k < bounds.count - 1 {
            let a = bounds[k]
            var j = k + 1
            while j < bounds.count && bounds[j] == a { j += 1 }
            k = j
            guard j < bounds.count else { break }
            let b = bounds[j]
            if !active.isEmpty { active.removeAll { $0.t1 <= a } }
            while next < pieces.count && pieces[next].t0 <= a {
                active.append(pieces[next])
                next += 1
            }
            if active.isEmpty { continue }
            if active.count == 1 {
                let p = active[0]
                out.append(Piece(t0: a, t1: b, v0: p.value(at: a), v1: p.value(at: b)))
                continue
            }
            va.removeAll(keepingCapacity: true)
            vb.removeAll(keepingCapacity: true)
            var varying = 0
            for p in active {
                let x = p.value(at: a), y = p.value(at: b)
                va.append(x)
                vb.append(y)
                if x != y { varying += 1 }
            }
            let linear = varying == 0 || (varying == 1 && mode == .softSum)
            if linear || b - a <= step {
                out.append(Piece(t0: a, t1: b, v0: combine(va), v1: combine(vb)))
                continue
            }
            let n = (b - a + step - 1) / step
            var prevT = a
            var prevV = combine(va)
            for i in 1...n {
                let t = i == n ? b : a + (b - a) * i / n
                let v = combine(active.map { $0.value(at: t) })
                out.append(Piece(t0: prevT, t1: t, v0: prevV, v1: v))
                prevT = t
                prevV = v
            }
        }
        return out
    }
}
