import ThrumCompiler
import ThrumWire

/// What an auto-calibration result means for the actuator a profile describes: passed or not,
/// and the likely cause when not (reference `drv2605l-and-lra.md` §6 pitfall 3).
///
/// The driver only says converged or failed; the cause is inferred from what it measured:
/// * **no actuator**: it failed and LRA_PERIOD never updated (0: no back-EMF zero crossings to
///   measure, so nothing resonated on the outputs);
/// * **wrong actuator**: the resonance it measured is not the profile's (beyond the profile's
///   stated tolerance, else ±10 %, and LRA_PERIOD's own step), whether the driver converged or not;
/// * **rated voltage beyond the supply**: it failed although the profile's actuator resonated
///   where expected: the closed loop could not reach the rated back-EMF, which on a DRV2605L
///   means the rated voltage (or its overdrive) needs more than VDD allows, or the clamp is below it.
public struct CalibrationDiagnosis: Sendable, Equatable {
    /// Why a calibration is not usable.
    public enum Cause: String, Sendable {
        case noActuator = "no_actuator"
        case wrongActuator = "wrong_actuator"
        case ratedVoltageBeyondSupply = "rated_voltage_beyond_supply"
    }

    /// The driver's result.
    public var report: CalibrationReport
    /// The resonance the profile predicts, Hz.
    public var predictedHz: Double
    /// How far the measured resonance may be from the prediction, Hz.
    public var toleranceHz: Double
    /// The likely cause when the calibration is not usable (nil: passed).
    public var cause: Cause?

    /// Judges `report` against `profile`.
    public init(report: CalibrationReport, profile: ActuatorProfile) {
        self.report = report
        let f0 = profile.datasheet.resonanceHz
        predictedHz = f0
        // LRA_PERIOD's step at f0 (one count of 98.46 µs), added to the part's tolerance.
        let step = f0 * f0 * DriverRegisters.periodLSB
        toleranceHz = (profile.datasheet.resonanceToleranceHz ?? 0.1 * f0) + step
        if let hz = report.resonanceHz, abs(hz - f0) > toleranceHz {
            cause = .wrongActuator
        } else if report.passed {
            cause = nil
        } else if report.lraPeriod == 0 {
            cause = .noActuator
        } else {
            cause = .ratedVoltageBeyondSupply
        }
    }

    /// The driver converged and the actuator is the profile's.
    public var passed: Bool { cause == nil }

    /// The measured resonance, Hz (nil when LRA_PERIOD was never read).
    public var resonanceHz: Double? { report.resonanceHz }

    /// One sentence on the cause and what to do.
    public var advice: String? {
        guard let cause else { return nil }
        switch cause {
        case .noActuator:
            return
                "no actuator: the driver measured no resonance (LRA_PERIOD 0, no back-EMF); check that the LRA is connected and its wires are intact"
        case .wrongActuator:
            let hz = resonanceHz.map { "\(Int($0.rounded())) Hz" } ?? "an unknown frequency"
            return
                "wrong actuator: it resonates at \(hz), the profile expects \(Int(predictedHz.rounded())) ± \(Int(toleranceHz.rounded())) Hz; use the profile of the actuator that is mounted"
        case .ratedVoltageBeyondSupply:
            return
                "rated voltage beyond the supply: the actuator resonates where expected but the loop could not reach the rated drive; the rated voltage's peak (with overdrive headroom) needs more than VDD, or the overdrive clamp is below it; lower the rated voltage or raise VDD"
        }
    }
}
