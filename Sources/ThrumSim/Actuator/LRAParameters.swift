/// Lumped electromechanical parameters of a linear resonant actuator (reference §5.1).
///
/// The model is the standard voice-coil resonator: a moving mass `m` on a spring `k` with
/// mechanical damping `c`, driven by the Lorentz force `Bl·i` of a coil with resistance `R` and
/// inductance `L`. Spring and damping are derived from the resonance and the mechanical Q, which
/// are the numbers datasheets actually publish.
public struct LRAParameters: Sendable, Codable, Hashable {
    /// Mechanical resonance f₀ in hertz.
    public var resonanceHz: Double
    /// Mechanical quality factor Q_m = m·ω₀/c (coil open, no electrical damping).
    public var mechanicalQ: Double
    /// Moving mass in kilograms.
    public var movingMass: Double
    /// Coil DC resistance in ohms.
    public var coilResistance: Double
    /// Coil inductance in henries (0 means a purely resistive coil).
    public var coilInductance: Double
    /// Force factor Bl in newtons per ampere (equally volts per metre per second).
    public var forceFactor: Double
    /// Mass of case plus test fixture in kilograms, used to express case acceleration in G.
    /// Vendors usually quote acceleration on a 100 g jig (reference §5.1).
    public var jigMass: Double

    /// Creates a parameter set from the lumped values.
    public init(
        resonanceHz: Double, mechanicalQ: Double, movingMass: Double, coilResistance: Double,
        coilInductance: Double, forceFactor: Double, jigMass: Double = 0.1
    ) {
        self.resonanceHz = resonanceHz
        self.mechanicalQ = mechanicalQ
        self.movingMass = movingMass
        self.coilResistance = coilResistance
        self.coilInductance = coilInductance
        self.forceFactor = forceFactor
        self.jigMass = jigMass
    }

    /// Angular resonance ω₀ = 2π·f₀ in rad/s.
    public var angularResonance: Double { 2 * Double.pi * resonanceHz }
    /// Spring constant k = m·ω₀² in N/m.
    public var springConstant: Double { movingMass * angularResonance * angularResonance }
    /// Mechanical damping c = m·ω₀/Q in N·s/m.
    public var mechanicalDamping: Double { movingMass * angularResonance / mechanicalQ }
    /// Electrical damping (Bl)²/R when the coil sees a low source impedance (reference §5.1).
    public var electricalDamping: Double { forceFactor * forceFactor / coilResistance }
    /// Envelope time constant of a free (open-coil) ring-down, τ = 2Q/ω₀, in seconds.
    public var freeTimeConstant: Double { 2 * mechanicalQ / angularResonance }
    /// Envelope time constant while the coil is driven from a low impedance: 2m/(c + c_e).
    public var drivenTimeConstant: Double { 2 * movingMass / (mechanicalDamping + electricalDamping) }
    /// Electrical impedance at resonance, R + (Bl)²/c (motional resistance added), in ohms.
    public var impedanceAtResonance: Double { coilResistance + forceFactor * forceFactor / mechanicalDamping }

    /// Steady back-EMF amplitude (V peak) for a sine of `peakVolts` at f₀, neglecting L:
    /// the velocity amplitude solves c·u = Bl·(V − Bl·u)/R.
    public func steadyBackEMF(sinePeakVolts: Double) -> Double {
        let bl2 = forceFactor * forceFactor
        return sinePeakVolts * bl2 / (coilResistance * mechanicalDamping + bl2)
    }

    /// Case acceleration amplitude in G for a velocity amplitude `u` at f₀ (a = (m/M)·ω₀·u).
    public func caseAccelerationG(velocityAmplitude u: Double) -> Double {
        movingMass / jigMass * angularResonance * u / LRAModel.standardGravity
    }

    /// No actuator on the driver's outputs: an open coil (1 MΩ, purely resistive), the case a
    /// calibration must catch when the LRA is unplugged or its wire broken.
    public static let absent = LRAParameters(
        resonanceHz: 205, mechanicalQ: 20, movingMass: 0.001, coilResistance: 1e6, coilInductance: 0,
        forceFactor: 0.4, jigMass: 0.1)

    /// The illustrative, self-consistent set of reference §5.3 (not a datasheet):
    /// 205 Hz, Q 20, 1 g, 24 Ω, 0.1 mH, Bl 0.4 N/A, on a 100 g jig. τ ≈ 31 ms, Z(f₀) ≈ 26.5 Ω.
    public static let referenceExample = LRAParameters(
        resonanceHz: 205, mechanicalQ: 20, movingMass: 0.001, coilResistance: 24,
        coilInductance: 0.1e-3, forceFactor: 0.4, jigMass: 0.1)
}
