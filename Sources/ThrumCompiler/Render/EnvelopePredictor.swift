import Foundation

/// A prediction of the LRA's acceleration envelope (1 = steady state at the rated voltage)
/// from a drive, using `ActuatorResponse`'s closed-loop model (`ClosedLoopEnvelope`): the
/// firmware's RTP write law, the driver's once-per-cycle amplitude loop with overdrive and
/// braking, and the actuator's time constant. A preview aid; the simulator holds the physics.
public struct EnvelopePredictor: Sendable {
    /// The response model.
    public let response: ActuatorResponse
    /// Largest internal step, s.
    static let maxStep = 25e-6

    /// Creates a predictor.
    public init(response: ActuatorResponse) {
        self.response = response
    }

    /// The first-order preview of an envelope, one value per drive sample (drive in 0…1,
    /// `sampleRate` in Hz): after `updateLatency`, overdrive towards a higher target and braking
    /// towards a lower one at ρ, each with τ. Kept for quick sketches; `predict(program:times:)`
    /// plays the closed loop and the firmware's write law.
    public func predict(drive: [Double], sampleRate: Double) -> [Double] {
        guard !drive.isEmpty, sampleRate > 0 else { return [] }
        let sub = max(1, Int((1e4 / sampleRate).rounded(.up)))  // ≤ 100 µs internal steps
        let dt = 1 / (sampleRate * Double(sub))
        let decay = exp(-dt / response.timeConstant)
        let delay = response.updateLatency * sampleRate
        var out = [Double](repeating: 0, count: drive.count)
        var e = 0.0
        for i in drive.indices {
            for s in 0..<sub {
                let x = Double(i) + Double(s + 1) / Double(sub) - delay
                e = response.step(e, toward: sample(drive, at: x), decay: decay)
            }
            out[i] = e
        }
        return out
    }

    /// The predicted envelope at `times` (s, increasing, evenly spaced) for a compiled program
    /// played by the firmware: each segment is written at its start, then at most every
    /// `writeInterval` with the ramp value computed `writeTime` before the write completes.
    public func predict(program: DriveProgram, times: [Double]) -> [Double] {
        guard times.count > 1 else { return times.map { _ in 0 } }
        return predict(program: program, times: times, spacing: times[1] - times[0])
    }

    /// The predicted envelope at `times` (s, increasing, multiples of `spacing` apart). Between
    /// two times further apart than `spacing` the drive must be off (as in `EnvelopeRenderer`'s
    /// grid, which leaves out long silences): the actuator rings down across the gap in one step.
    public func predict(program: DriveProgram, times: [Double], spacing: Double) -> [Double] {
        guard times.count > 1, spacing > 0, spacing.isFinite else { return times.map { _ in 0 } }
        let sub = max(1, Int((spacing / Self.maxStep).rounded(.up)))
        let dt = spacing / Double(sub)
        var loop = ClosedLoopEnvelope(response: response)
        var out = [Double](repeating: 0, count: times.count)
        var k = 0
        let segments = program.segments
        for i in times.indices {
            if i > 0 {
                let step = times[i] - times[i - 1]
                if step > 1.5 * spacing {
                    // A left-out silence: step to its last sample period in one go, then as usual.
                    loop.advance(step - spacing, target: 0)
                }
                let from = times[i] - spacing
                if let u = constantTarget(segments, from: from - response.startLatency, to: from + spacing - response.startLatency, hint: &k) {
                    // Nothing changes within the step (silence or a flat segment): one exact step.
                    loop.advance(spacing, target: u)
                    out[i] = loop.envelope
                    continue
                }
                for s in 0..<sub {
                    let t = from + Double(s) * dt - response.startLatency
                    loop.advance(dt, target: rtp(segments, at: t, hint: &k))
                }
            }
            out[i] = loop.envelope
        }
        return out
    }

    /// The RTP fraction over [`t0`, `t1`) s when it is the same throughout (no segment, or one
    /// flat segment covering it), else nil. Moves `k` as `rtp` does.
    func constantTarget(_ segments: [DriveSegment], from t0: Double, to t1: Double, hint k: inout Int) -> Double? {
        let us0 = Int64((t0 * 1e6).rounded(.down)), us1 = Int64((t1 * 1e6).rounded(.up))
        while k < segments.count && segments[k].end <= us0 { k += 1 }
        guard k < segments.count, segments[k].start <= us1 else { return 0 }
        let s = segments[k]
        guard s.start <= us0, us1 < s.end, s.from == s.to else { return nil }
        return Double(s.from) / 255
    }

    /// The RTP fraction the firmware has written at `t` s for `segments`.
    func rtp(_ segments: [DriveSegment], at t: Double, hint k: inout Int) -> Double {
        let us = Int64((t * 1e6).rounded(.down))
        while k < segments.count && segments[k].end <= us { k += 1 }
        guard k < segments.count, segments[k].start <= us else { return 0 }
        let s = segments[k]
        if s.from == s.to { return Double(s.from) / 255 }
        let interval = Int64((response.writeInterval * 1e6).rounded())
        // A ramp up from 0 is first written where it reaches code 1 (firmware, PROTOCOL.md §4.1).
        var first = s.start
        if s.from == 0, s.to > 0 {
            let e1 = (Int64(s.duration) + 2 * Int64(s.to) - 1) / (2 * Int64(s.to))
            if e1 < Int64(s.duration) {
                first = s.start + e1
                if us < first { return 0 }
            }
        }
        let n = (us - first) / interval
        let at = n == 0 ? first : first + n * interval - Int64((response.writeTime * 1e6).rounded())
        return s.amplitude(at: at).rounded() / 255
    }

    /// Linear interpolation of `a` at fractional index `x` (0 before the start).
    private func sample(_ a: [Double], at x: Double) -> Double {
        guard x >= 0 else { return 0 }
        let i = Int(x)
        guard i + 1 < a.count else { return a[a.count - 1] }
        let f = x - Double(i)
        return a[i] + (a[i + 1] - a[i]) * f
    }
}
