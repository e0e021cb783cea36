import Foundation

/// Computes how much earlier to start an event's drive so that its felt onset (the predicted
/// acceleration envelope reaching 50 % of the event's own peak) lands where the requested
/// envelope reaches 50 % of its peak: the requested time for transients and step attacks,
/// half the AttackTime later for ramped attacks. The prediction plays the event's envelope
/// through the firmware's RTP write law and the driver's closed loop (`ActuatorResponse`,
/// `ClosedLoopEnvelope`), starting from rest.
struct FeltOnsetEstimator {
    let response: ActuatorResponse
    /// Simulation step, s.
    let step = 25e-6
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
        let byte = Int((u * 255).rounded())
        let window = micros(shape.requestedAttack + 6 * response.timeConstant) + 1000
        let knots = truncate(shape.knots, at: window)
        let key = Key(knots: knots, amplitude: byte, requestedHalf: micros(shape.requestedAttack / 2))
        if let s = cache[key] { return s }
        let felt = feltHalfTime(knots: knots, amplitude: Double(byte) / 255)
        let s = min(maxShift, max(0, felt - shape.requestedAttack / 2))
        cache[key] = s
        return s
    }

    /// The RTP fraction (0…1) the firmware has written at `t` µs after the onset for an envelope
    /// `knots` at amplitude `u`: each knot interval is a segment, written at its start and then
    /// every `writeInterval` with the ramp value taken `writeTime` before the write completes;
    /// 8-bit quantised; 0 after the last knot.
    func rtp(_ knots: [Knot], _ u: Double, at t: Int64, hint k: inout Int) -> Double {
        while k + 1 < knots.count && knots[k + 1].t <= t { k += 1 }
        guard t >= knots[0].t, k + 1 < knots.count else { return 0 }
        let a = knots[k], b = knots[k + 1]
        var g = a.g
        if a.g != b.g && b.t > a.t {
            let interval = micros(response.writeInterval)
            let n = (t - a.t) / interval
            let at = n == 0 ? a.t : a.t + n * interval - micros(response.writeTime)
            g = a.g + (b.g - a.g) * Double(at - a.t) / Double(b.t - a.t)
        }
        return (u * g * 255).rounded() / 255
    }

    /// Time (s, from the drive onset) at which the predicted envelope first reaches half its peak.
    func feltHalfTime(knots: [Knot], amplitude u: Double) -> Double {
        guard let end = knots.last?.t, end > 0 else { return 0 }
        var loop = ClosedLoopEnvelope(response: response)
        let dtMicros = micros(step)
        let dt = Double(dtMicros) * 1e-6
        let latency = micros(response.startLatency)
        let cap = end + 100_000
        var env: [Double] = [0]
        env.reserveCapacity(Int(cap / dtMicros) + 2)
        var peak = 0.0
        var t: Int64 = 0
        var k = 0
        while t < cap {
            let target = rtp(knots, u, at: t - latency, hint: &k)
            loop.advance(dt, target: target)
            t += dtMicros
            env.append(loop.envelope)
            peak = max(peak, loop.envelope)
            if t > end + latency && !loop.running { break }
        }
        guard peak > 0 else { return 0 }
        let half = peak / 2
        for i in 1..<env.count where env[i] >= half {
            let a = env[i - 1], b = env[i]
            let frac = b > a ? (half - a) / (b - a) : 1
            return (Double(i - 1) + frac) * dt
        }
        return 0
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
