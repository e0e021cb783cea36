import Foundation

/// Computes how much earlier to start an event's drive so that its felt onset (the predicted
/// acceleration envelope reaching 50 % of the event's own peak) lands where the requested
/// envelope reaches 50 % of its peak: the requested time for transients and step attacks,
/// half the AttackTime later for ramped attacks.
struct FeltOnsetEstimator {
    let response: ActuatorResponse
    /// Simulation step, µs.
    let stepMicros: Int64 = 40
    /// Upper bound of a pre-shift, s.
    let maxShift = 0.1

    struct Key: Hashable {
        var knots: [Knot]
        var amplitude: Int
        var requestedHalf: Int64
    }

    /// The pre-shift in seconds for a shape played at constant amplitude `u` (0…1).
    func shift(for shape: EventShape, amplitude u: Double, cache: inout [Key: Double]) -> Double {
        guard u > 0 else { return 0 }
        let quant = Int((u * 128).rounded())
        let window = micros(shape.requestedAttack + 6 * response.timeConstant) + 1000
        let knots = truncate(shape.knots, at: window)
        let key = Key(knots: knots, amplitude: quant, requestedHalf: micros(shape.requestedAttack / 2))
        if let s = cache[key] { return s }
        let felt = feltHalfTime(knots: knots, amplitude: Double(quant) / 128)
        let s = min(maxShift, max(0, felt + response.updateLatency - shape.requestedAttack / 2))
        cache[key] = s
        return s
    }

    /// Time (s, from drive onset, without latency) at which the predicted envelope first reaches
    /// half its peak.
    func feltHalfTime(knots: [Knot], amplitude u: Double) -> Double {
        guard let end = knots.last?.t, end > 0 else { return 0 }
        let dt = stepMicros
        let decay = exp(-Double(dt) * 1e-6 / response.timeConstant)
        let steps = Int(end / dt) + 1
        var env = [Double](repeating: 0, count: steps + 1)
        var e = 0.0, peak = 0.0, k = 0
        for i in 1...steps {
            let t = Int64(i - 1) * dt
            while k + 1 < knots.count && knots[k + 1].t <= t { k += 1 }
            let target = u * gain(knots, k, t)
            e = response.step(e, toward: target, decay: decay)
            env[i] = e
            peak = max(peak, e)
        }
        guard peak > 0 else { return 0 }
        let half = peak / 2
        for i in 1...steps where env[i] >= half {
            let a = env[i - 1], b = env[i]
            let frac = b > a ? (half - a) / (b - a) : 1
            return (Double(i - 1) + frac) * Double(dt) * 1e-6
        }
        return 0
    }

    /// Gain at `t` given that knot `k` is the last at or before `t`.
    @inline(__always)
    private func gain(_ knots: [Knot], _ k: Int, _ t: Int64) -> Double {
        let a = knots[k]
        guard k + 1 < knots.count else { return 0 }
        let b = knots[k + 1]
        if b.t == a.t { return b.g }
        return a.g + (b.g - a.g) * Double(t - a.t) / Double(b.t - a.t)
    }

    /// The knots up to `limit` µs (the envelope past the window cannot move the onset).
    private func truncate(_ knots: [Knot], at limit: Int64) -> [Knot] {
        guard let last = knots.last, last.t > limit else { return knots }
        var out: [Knot] = []
        for (i, kn) in knots.enumerated() {
            if kn.t <= limit { out.append(kn); continue }
            let prev = knots[i - 1]
            let g = prev.t == kn.t ? kn.g : prev.g + (kn.g - prev.g) * Double(limit - prev.t) / Double(kn.t - prev.t)
            out.append(Knot(t: limit, g: g))
            break
        }
        return out
    }
}
