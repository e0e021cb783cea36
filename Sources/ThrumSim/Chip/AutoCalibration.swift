/// Why a modelled auto-calibration or diagnostics run failed (reference §5.4 item 4, §6 pitfall 3).
public enum CalibrationFailure: Error, Equatable, Sendable {
    /// FEEDBACK_CONTROL.N_ERM_LRA was 0: calibrating an LRA as an ERM.
    case notInLRAMode
    /// Coil resistance outside roughly 8–60 Ω (open, shorted or the wrong part).
    case resistanceOutOfRange(ohms: Double)
    /// No resonance found in 125–300 Hz (nil when no zero crossing was tracked at all).
    case resonanceOutOfRange(hertz: Double?)
    /// Back-EMF at rated drive below the detection threshold.
    case backEMFTooLow(volts: Double)
    /// The rated voltage exceeds OD_CLAMP or leaves no overdrive headroom below VDD.
    case ratedVoltageUnreachable(peakVolts: Double)
    /// Back-EMF too large for A_CAL_BEMF even at the lowest BEMF_GAIN.
    case backEMFTooHigh(volts: Double)
}

/// The result a passing calibration writes (reference §2.4 outputs).
public struct CalibrationResult: Equatable, Sendable {
    /// A_CAL_COMP (0x18).
    public var compensation: UInt8
    /// A_CAL_BEMF (0x19).
    public var backEMF: UInt8
    /// BEMF_GAIN (0x1A[1:0]).
    public var backEMFGain: UInt8
    /// Resonance found, Hz.
    public var resonanceHz: Double
    /// Back-EMF amplitude measured at rated drive, volts.
    public var measuredBackEMF: Double
}

/// The pass/fail rules of the modelled auto-calibration (reference §5.4 item 4) [INF].
enum AutoCalibration {
    static let resistanceRange = 8.0...60.0
    static let resonanceRange = 125.0...300.0
    /// Smallest back-EMF amplitude the model accepts as "an actuator is there".
    static let minimumBackEMF = 0.010
    /// Rated peak × this must fit under VDD: fits the hobby log in §5.2/§6 (2 V_rms fails on a
    /// 3.3 V rail, 1.4 V_rms locks).
    static let supplyHeadroom = 1.5
    /// A_CAL_COMP is opaque in the datasheet; the model writes a fixed value in the range
    /// real parts report (0x09–0x0C).
    static let compensation: UInt8 = 0x0A

    /// Judges a calibration run from what the output stage measured.
    static func evaluate(
        isLRA: Bool, resistance: Double, meanHalfPeriod: Double?, meanBackEMF: Double,
        ratedPeak: Double, clampPeak: Double, supply: Double
    ) -> Result<CalibrationResult, CalibrationFailure> {
        guard isLRA else { return .failure(.notInLRAMode) }
        guard resistanceRange.contains(resistance) else { return .failure(.resistanceOutOfRange(ohms: resistance)) }
        let f = meanHalfPeriod.map { 1 / (2 * $0) }
        guard let hz = f, resonanceRange.contains(hz) else { return .failure(.resonanceOutOfRange(hertz: f)) }
        guard ratedPeak <= clampPeak, ratedPeak * supplyHeadroom <= supply else {
            return .failure(.ratedVoltageUnreachable(peakVolts: ratedPeak))
        }
        guard meanBackEMF >= minimumBackEMF else { return .failure(.backEMFTooLow(volts: meanBackEMF)) }
        // Pick the largest BEMF_GAIN that keeps A_CAL_BEMF ≤ 255 (best resolution; §5.4 item 4).
        for gain in stride(from: 3, through: 0, by: -1) {
            let code = (meanBackEMF * DRV2605LFormulas.lraBackEMFGain(code: UInt8(gain)) * 255 / 1.22).rounded()
            if code <= 255 {
                return .success(CalibrationResult(
                    compensation: compensation, backEMF: UInt8(code), backEMFGain: UInt8(gain),
                    resonanceHz: hz, measuredBackEMF: meanBackEMF))
            }
        }
        return .failure(.backEMFTooHigh(volts: meanBackEMF))
    }
}
