import Foundation

/// The compiler's small model of how an LRA under the DRV2605L's closed loop follows the drive
/// amplitude. It is an envelope model, not a physics model (the simulator has that):
///
/// * The acceleration envelope `e` (1 = steady state at the rated voltage) chases the target
///   drive `u` at maximum effort: while `e < u` the chip overdrives at the clamp, so
///   `e → ρ` with time constant τ; while `e > u` it brakes in antiphase at the clamp, so
///   `e → −ρ` with τ; it stops at the target.
/// * τ = 2·Q/ω₀ with the loaded Q (the driver holds the coil, adding electrical damping).
/// * ρ = OD_CLAMP peak / peak of the rated closed-loop drive (V_rms / √duty, reference §2.1).
/// * The chip applies a new RTP value at its next drive update, once per resonance cycle;
///   the mean wait is half a period (`updateLatency`).
public struct ActuatorResponse: Equatable, Sendable {
    /// Resonance f₀, Hz.
    public var resonanceHz: Double
    /// Envelope time constant τ while driven or braked, s.
    public var timeConstant: Double
    /// Overdrive (and brake) effort relative to the rated level, ρ > 1.
    public var overdriveRatio: Double
    /// Mean delay from an RTP write to the drive changing, s.
    public var updateLatency: Double

    /// Creates a response model from explicit values.
    public init(resonanceHz: Double, timeConstant: Double, overdriveRatio: Double, updateLatency: Double) {
        self.resonanceHz = resonanceHz
        self.timeConstant = timeConstant
        self.overdriveRatio = overdriveRatio
        self.updateLatency = updateLatency
    }

    /// Derives the response from a profile.
    public init(profile: ActuatorProfile) {
        let p = profile.physical
        let f = profile.datasheet.resonanceHz
        let duty = DriverRegisters.samplingDuty(
            resonanceHz: f, sampleTime: Double(profile.driver.sampleTimeMicroseconds) * 1e-6)
        let ratedPeak = profile.datasheet.ratedVoltageRms / max(duty, 0.1)
        self.init(
            resonanceHz: f,
            timeConstant: 2 * p.loadedQ / p.omega0,
            overdriveRatio: max(1.02, profile.driver.overdriveClampVoltsPeak / ratedPeak),
            updateLatency: 0.5 / f)
    }

    /// Time for the envelope to rise from `from` to `level` under full overdrive (no latency), s.
    public func riseTime(to level: Double, from: Double = 0) -> Double {
        guard level > from else { return 0 }
        let rho = overdriveRatio
        return timeConstant * log((rho - from) / max(1e-9, rho - level))
    }

    /// Time for the envelope to fall from `from` to `level` under full braking (no latency), s.
    public func fallTime(from: Double, to level: Double = 0) -> Double {
        guard from > level else { return 0 }
        let rho = overdriveRatio
        return timeConstant * log((from + rho) / (level + rho))
    }

    /// One step of the envelope model: `decay` is exp(−dt/τ) for the step.
    @inline(__always)
    public func step(_ e: Double, toward target: Double, decay: Double) -> Double {
        let rho = overdriveRatio
        if target > e {
            return min(target, rho - (rho - e) * decay)
        } else if target < e {
            return max(target, -rho + (e + rho) * decay)
        }
        return e
    }
}
