import Foundation

/// The numbers behind Thrum's Core Haptics semantics on an LRA. Each one is explained in
/// `docs/semantics.md`; tests pin them.
public enum HapticSemantics {
    // MARK: Defaults where Apple is silent

    /// `HapticIntensity` when an event does not set it: 1.0 (no attenuation).
    public static let defaultIntensity = 1.0
    /// `HapticSharpness` when an event does not set it: 0.5 (the middle, what tools assume).
    public static let defaultSharpness = 0.5

    // MARK: Transients

    /// Burst length in resonance cycles at sharpness 1 (crisp tick).
    public static let transientCyclesSharp = 2.0
    /// Burst length in resonance cycles at sharpness 0 (round bump).
    public static let transientCyclesDull = 6.0
    /// Fraction of the burst spent ramping up, at sharpness 0 (scaled by 1 − sharpness).
    public static let transientAttackFractionDull = 0.3
    /// Fraction of the burst spent ramping down, at sharpness 0 (scaled by 1 − sharpness).
    public static let transientReleaseFractionDull = 0.5
    /// Extra linear fade added to a transient's tail at DecayTime 1, s.
    public static let transientDecayTailMax = 0.5

    // MARK: Continuous envelopes

    /// Attack time at AttackTime 1, s (0 → 0 s, a step).
    public static let attackTimeMax = 1.0
    /// Release time at ReleaseTime 1, s (0 → 0 s, an abrupt stop the chip brakes).
    public static let releaseTimeMax = 1.0
    /// Decay time (Sustained = 0) at DecayTime 0, s.
    public static let decayTimeMin = 0.02
    /// Decay time (Sustained = 0) at DecayTime 1, s.
    public static let decayTimeMax = 2.0
    /// Base of the exponential time mapping: time(x) = min + (max − min)·(Bˣ − 1)/(B − 1).
    public static let envelopeTimeBase = 100.0
    /// Shortest attack of a continuous event at sharpness 0, s (scaled by 1 − sharpness).
    public static let continuousSoftAttack = 0.010
    /// Shortest release of a continuous event at sharpness 0, s (scaled by 1 − sharpness).
    public static let continuousSoftRelease = 0.020

    /// Exponential mapping of a normalised time parameter (0…1) to seconds: 0 gives `min`,
    /// 1 gives `max`, and each +0.5 multiplies the excess over `min` by about 10.
    public static func envelopeTime(_ x: Double, min lo: Double, max hi: Double) -> Double {
        let b = envelopeTimeBase
        let xc = Swift.min(1, Swift.max(0, x))
        return lo + (hi - lo) * (pow(b, xc) - 1) / (b - 1)
    }

    /// Drive amplitude (fraction of the rated voltage) for a final intensity: linear.
    public static func amplitude(intensity: Double) -> Double {
        Swift.min(1, Swift.max(0, intensity))
    }

    /// Length of a transient burst in cycles for a final sharpness.
    public static func transientCycles(sharpness s: Double) -> Double {
        transientCyclesSharp + (transientCyclesDull - transientCyclesSharp) * (1 - clamp01(s))
    }

    /// Clamps to 0…1.
    @inline(__always)
    public static func clamp01(_ x: Double) -> Double { x.isNaN ? 0 : Swift.min(1, Swift.max(0, x)) }
}
