import Foundation

/// Why datasheet numbers could not be turned into an ``LRAParameters`` set.
public enum LRAFitError: Error, Equatable, Sendable {
    /// A number was zero, negative or not finite.
    case invalidInput(String)
    /// Neither rated current nor rated acceleration was given, so Bl is undetermined.
    case forceFactorUndetermined
    /// The numbers contradict the model (e.g. |Z(f₀)| below R, or unreachable acceleration).
    case inconsistent(String)
}

extension LRAParameters {
    /// Fits the lumped model to the numbers a vendor datasheet gives (reference §5.1).
    ///
    /// * R is the DC resistance.
    /// * The coast stop time to 10 % gives τ = t₁₀ / ln 10 and Q_m = τ·ω₀/2. Coasting is taken with
    ///   the coil open (Hi-Z), so τ is purely mechanical — the same convention ``LRAModel`` uses.
    /// * Bl comes from the rated current if given (|Z(f₀)| = V/I = R + Bl²/c), otherwise from the rated
    ///   case acceleration on the jig (velocity amplitude u = a·M/(m·ω₀) and c·u = Bl·(V√2 − Bl·u)/R).
    /// * The moving mass is not on datasheets; 1 g is typical of 8–10 mm coin LRAs.
    ///
    /// - Parameters:
    ///   - ratedAccelerationGPeak: acceleration amplitude (G, peak) at rated drive on `jigMass`.
    ///     Convert G_rms by ×√2 first; vendors differ (reference §5.1 warns of 2–3× errors).
    public static func fit(
        resonanceHz: Double,
        ratedVoltageRMS: Double,
        ratedCurrentRMS: Double? = nil,
        ratedAccelerationGPeak: Double? = nil,
        dcResistance: Double,
        stopTime10Percent: Double,
        movingMass: Double = 0.001,
        coilInductance: Double = 0.1e-3,
        jigMass: Double = 0.1
    ) throws(LRAFitError) -> LRAParameters {
        for (name, v) in [("resonanceHz", resonanceHz), ("ratedVoltageRMS", ratedVoltageRMS),
                          ("dcResistance", dcResistance), ("stopTime10Percent", stopTime10Percent),
                          ("movingMass", movingMass), ("jigMass", jigMass)]
        where !(v.isFinite && v > 0) {
            throw .invalidInput(name)
        }
        let omega = 2 * Double.pi * resonanceHz
        let tau = stopTime10Percent / log(10.0)
        let q = tau * omega / 2
        let c = movingMass * omega / q
        let bl: Double
        if let current = ratedCurrentRMS {
            guard current.isFinite, current > 0 else { throw .invalidInput("ratedCurrentRMS") }
            let z = ratedVoltageRMS / current
            guard z > dcResistance else { throw .inconsistent("|Z(f0)| = \(z) Ω is not above R") }
            bl = ((z - dcResistance) * c).squareRoot()
        } else if let accel = ratedAccelerationGPeak {
            guard accel.isFinite, accel > 0 else { throw .invalidInput("ratedAccelerationGPeak") }
            let u = accel * LRAModel.standardGravity * jigMass / (movingMass * omega)
            let vPeak = ratedVoltageRMS * 2.0.squareRoot()
            // u·Bl² − V·Bl + u·R·c = 0; the smaller root is the weakly coupled, physical one.
            let disc = vPeak * vPeak - 4 * u * u * dcResistance * c
            guard disc >= 0 else { throw .inconsistent("rated acceleration unreachable at rated voltage") }
            bl = (vPeak - disc.squareRoot()) / (2 * u)
        } else {
            throw .forceFactorUndetermined
        }
        return LRAParameters(
            resonanceHz: resonanceHz, mechanicalQ: q, movingMass: movingMass, coilResistance: dcResistance,
            coilInductance: max(0, coilInductance), forceFactor: bl, jigMass: jigMass)
    }
}
