import Foundation

/// A first-order prediction of the LRA's acceleration envelope (1 = steady state at the rated
/// voltage) from a sampled drive envelope, using `ActuatorResponse`: the driver's update
/// latency, then overdrive towards a higher target and braking towards a lower one, each with
/// the actuator's time constant. A preview aid; the simulator holds the physics.
public struct EnvelopePredictor: Sendable {
    /// The response model.
    public let response: ActuatorResponse

    /// Creates a predictor.
    public init(response: ActuatorResponse) {
        self.response = response
    }

    /// The predicted envelope, one value per drive sample (drive in 0…1, `sampleRate` in Hz).
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

    /// Linear interpolation of `a` at fractional index `x` (0 before the start).
    private func sample(_ a: [Double], at x: Double) -> Double {
        guard x >= 0 else { return 0 }
        let i = Int(x)
        guard i + 1 < a.count else { return a[a.count - 1] }
        let f = x - Double(i)
        return a[i] + (a[i + 1] - a[i]) * f
    }
}
