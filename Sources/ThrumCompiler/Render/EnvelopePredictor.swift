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
        var stepper = Stepper(self, segments: program.segments, spacing: spacing)
        return times.map { stepper.envelope(at: $0) }
    }

    /// The predictor's state from one row to the next, so that a long render can be predicted a
    /// chunk of rows at a time (`EnvelopeRows`) with the same numbers as `predict(program:times:spacing:)`.
    struct Stepper {
        let predictor: EnvelopePredictor
        let segments: [DriveSegment]
        let spacing: Double
        let sub: Int
        let dt: Double
        let law: WriteLaw
        /// exp(−n·dt/τ) for n = 0 … `sub`: the driven decay over n sub-steps.
        let decays: [Double]
        /// 1/dt.
        let perStep: Double
        var loop: ClosedLoopEnvelope
        var k = 0
        var written = WrittenValue()
        /// The previous row's time, s (nan before the first row).
        var previous = Double.nan

        /// A stepper at rest before the first row; `spacing` (s, > 0) is the sample period.
        init(_ predictor: EnvelopePredictor, segments: [DriveSegment], spacing: Double) {
            self.predictor = predictor
            self.segments = segments
            self.spacing = spacing
            sub = max(1, Int((spacing / EnvelopePredictor.maxStep).rounded(.up)))
            dt = spacing / Double(sub)
            law = WriteLaw(predictor.response)
            loop = ClosedLoopEnvelope(response: predictor.response)
            loop.preferStep(spacing)
            let d = exp(-dt / predictor.response.timeConstant)
            var decays = [1.0]
            for n in 1...sub { decays.append(n == 1 ? d : decays[n - 1] * d) }
            self.decays = decays
            perStep = 1 / dt
        }

        /// The envelope at row time `t` (s), after the row at the previous call: `spacing` later,
        /// or further across a silence (the drive off in between).
        mutating func envelope(at t: Double) -> Double {
            defer { previous = t }
            guard !previous.isNaN else { return loop.envelope }
            let response = predictor.response
            let step = t - previous
            if step > 1.5 * spacing {
                // A left-out silence: step to its last sample period in one go, then as usual.
                loop.advance(step - spacing, target: 0)
            }
            let from = t - spacing
            if let u = predictor.constantTarget(
                segments, from: from - response.startLatency, to: from + spacing - response.startLatency, hint: &k)
            {
                // Nothing changes within the step (silence or a flat segment): one exact step.
                loop.advance(spacing, target: u)
                return loop.envelope
            }
            // Between the loop's half-period boundaries a step does not depend on the target:
            // the run of sub-steps up to the next boundary is taken in one closed-form step, and
            // the firmware's value is looked up only where the loop needs it.
            var steps = loop.drivenSteps
            var s = 0
            while s < sub {
                s += steps.steps(sub - s, of: dt, decays: decays, perStep: perStep)
                guard s < sub else { break }
                loop.drivenSteps = steps
                let at = from + Double(s) * dt - response.startLatency
                loop.advance(dt, target: predictor.rtp(segments, at: at, law: law, hint: &k, written: &written))
                steps = loop.drivenSteps
                s += 1
            }
            loop.drivenSteps = steps
            return loop.envelope
        }
    }

    /// The RTP fraction over [`t0`, `t1`) s when it is the same throughout (no segment, or one
    /// flat segment covering it), else nil. Moves `k` as `rtp` does. Inlined: it runs once a row.
    @inline(__always)
    func constantTarget(_ segments: [DriveSegment], from t0: Double, to t1: Double, hint k: inout Int) -> Double? {
        let us0 = floorMicros(t0), us1 = ceilMicros(t1)
        while k < segments.count && segments[k].end <= us0 { k += 1 }
        guard k < segments.count, segments[k].start <= us1 else { return 0 }
        let s = segments[k]
        guard s.start <= us0, us1 < s.end, s.from == s.to else { return nil }
        return Double(s.from) / 255
    }

    /// The firmware's write timing in whole microseconds (rounded once, not per sample).
    struct WriteLaw {
        var interval: Int64
        var writeTime: Int64
        init(_ response: ActuatorResponse) {
            interval = Int64((response.writeInterval * 1e6).rounded())
            writeTime = Int64((response.writeTime * 1e6).rounded())
        }
    }

    /// The last value `rtp` computed on a ramp and the stretch of microseconds over which the
    /// firmware holds it (one write interval): the sub-steps inside it get the same number
    /// without the divisions and rounding that made it.
    struct WrittenValue {
        var segment = -1
        var from = Int64.max
        var to = Int64.min
        var value = 0.0
    }

    /// The RTP fraction the firmware has written at `t` s for `segments` under `law`.
    func rtp(_ segments: [DriveSegment], at t: Double, law: WriteLaw, hint k: inout Int) -> Double {
        var written = WrittenValue()
        return rtp(segments, at: t, law: law, hint: &k, written: &written)
    }

    /// `rtp(_:at:law:hint:)`, remembering the last ramp value in `written`.
    func rtp(_ segments: [DriveSegment], at t: Double, law: WriteLaw, hint k: inout Int, written: inout WrittenValue) -> Double {
        let us = floorMicros(t)
        while k < segments.count && segments[k].end <= us { k += 1 }
        guard k < segments.count, segments[k].start <= us else { return 0 }
        if k == written.segment && us >= written.from && us < written.to { return written.value }
        let s = segments[k]
        if s.from == s.to { return Double(s.from) / 255 }
        let interval = law.interval
        // A ramp up from 0 is first written where it reaches code 1 (firmware, PROTOCOL.md §4.1).
        var first = s.start
        let e1 = s.firstDriveOffset
        if e1 > 0 {
            first = s.start + e1
            if us < first { return 0 }
        }
        let n = (us - first) / interval
        let at = n == 0 ? first : first + n * interval - law.writeTime
        let value = roundedHalfAway(s.amplitude(at: at)) / 255
        written = WrittenValue(segment: k, from: first + n * interval, to: first + (n + 1) * interval, value: value)
        return value
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

/// `Int64((x * 1e6).rounded(.down))` without a libm call (x86-64's baseline has no rounding
/// instruction): truncation, corrected below zero. Exact for |x| < 9e12 s; beyond, the plain form.
@inline(__always)
func floorMicros(_ x: Double) -> Int64 {
    let y = x * 1e6
    guard abs(y) < 9e18 else { return Int64(y.rounded(.down)) }
    let i = Int64(y)
    return Double(i) > y ? i - 1 : i
}

/// `Int64((x * 1e6).rounded(.up))`, as `floorMicros`.
@inline(__always)
func ceilMicros(_ x: Double) -> Int64 {
    let y = x * 1e6
    guard abs(y) < 9e18 else { return Int64(y.rounded(.up)) }
    let i = Int64(y)
    return Double(i) < y ? i + 1 : i
}

/// `x.rounded()` (to nearest, ties away from zero) without a libm call: the truncation and the
/// exact remainder decide. The same number as `rounded()` for every finite |x| < 9e18.
@inline(__always)
func roundedHalfAway(_ x: Double) -> Double {
    guard abs(x) < 9e18 else { return x.rounded() }
    let t = Double(Int64(x))
    let r = x - t
    return r >= 0.5 ? t + 1 : (r <= -0.5 ? t - 1 : t)
}
