import ThrumCompiler

/// The gain envelope of an audio event, the haptic continuous event's model (see
/// `docs/audio.md`): a linear attack, then a hold (`Sustained` 1, the default) or a linear decay
/// to silence (`Sustained` 0), then a linear release once the hold ends. Times come from the
/// normalised AttackTime / DecayTime / ReleaseTime through the compiler's exponential mapping
/// (``ThrumCompiler/HapticSemantics/envelopeTime(_:min:max:)``), as for haptic events.
public struct AudioEnvelope: Equatable, Sendable {
    /// Attack, s.
    public var attack: Double
    /// Decay to silence after the attack, s; nil when sustained.
    public var decay: Double?
    /// Release after the hold ends, s.
    public var release: Double
    /// Where the hold ends and the release begins, s from the event's start.
    public var holdEnd: Double

    /// Shortest attack and release, s: a ramp this short is inaudible but removes the click of
    /// a step.
    public static let minimumRamp = 0.002

    /// Creates an envelope.
    public init(attack: Double, decay: Double?, release: Double, holdEnd: Double) {
        self.attack = max(attack, Self.minimumRamp)
        self.decay = decay
        self.release = max(release, Self.minimumRamp)
        self.holdEnd = max(holdEnd, 0)
    }

    /// The envelope of normalised shape values (each 0…1, already clamped, as for haptic events).
    public init(attackTime: Double, decayTime: Double, releaseTime: Double, sustained: Bool, holdEnd: Double) {
        typealias S = HapticSemantics
        self.init(
            attack: S.envelopeTime(attackTime, min: 0, max: S.attackTimeMax),
            decay: sustained ? nil : S.envelopeTime(decayTime, min: S.decayTimeMin, max: S.decayTimeMax),
            release: S.envelopeTime(releaseTime, min: 0, max: S.releaseTimeMax), holdEnd: holdEnd)
    }

    /// When the envelope reaches silence for good, s.
    public var end: Double { holdEnd + release }

    /// Gain (0…1) at `t` s from the event's start.
    public func gain(at t: Double) -> Double {
        if t < 0 { return 0 }
        func shape(_ t: Double) -> Double {
            if t < attack { return t / attack }
            guard let decay else { return 1 }
            return max(0, 1 - (t - attack) / decay)
        }
        if t < holdEnd { return shape(t) }
        return shape(holdEnd) * max(0, 1 - (t - holdEnd) / release)
    }
}
