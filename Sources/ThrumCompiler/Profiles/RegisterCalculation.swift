import Foundation

/// The DRV2605L register values for a closed-loop LRA, computed from its resonance and voltages
/// with every intermediate number of the SLOS854D formulas (reference `drv2605l-and-lra.md`
/// §2.1, §2.2), so a designer can check each step against the datasheet. `thrum actuator
/// compute` prints it; ``DriverRegisters/derive(from:)`` gives the same register values.
public struct RegisterCalculation: Equatable, Sendable {
    /// Resonance f₀, Hz.
    public var resonanceHz: Double
    /// Rated drive, V RMS.
    public var ratedVoltsRms: Double
    /// Overdrive clamp, V peak (√2 × V RMS unless given).
    public var clampVoltsPeak: Double
    /// Whether the clamp was given (false: √2 × the rated V RMS, as in the worked table).
    public var clampGiven: Bool
    /// Back-EMF SAMPLE_TIME, s (150…300 µs).
    public var sampleTime: Double

    /// The sampling window per half cycle, 4·t_SAMPLE + 300 µs, s.
    public var samplingWindow: Double { 4 * sampleTime + 300e-6 }
    /// The fraction of time the driver drives: 1 − (4·t_SAMPLE + 300 µs)·f₀.
    public var drivenFraction: Double { 1 - samplingWindow * resonanceHz }
    /// √(1 − (4·t_SAMPLE + 300 µs)·f₀), the rated-voltage formula's duty term.
    public var samplingDuty: Double { DriverRegisters.samplingDuty(resonanceHz: resonanceHz, sampleTime: sampleTime) }
    /// RATED_VOLTAGE before rounding: V_rms · duty / 20.58 mV.
    public var ratedVoltageExact: Double { ratedVoltsRms * samplingDuty / DriverRegisters.ratedVoltageLSB }
    /// OD_CLAMP before rounding: V_peak / 21.22 mV.
    public var overdriveClampExact: Double { clampVoltsPeak / DriverRegisters.overdriveClampLSB }
    /// Half a resonance period, s.
    public var halfPeriod: Double { 1 / (2 * resonanceHz) }
    /// DRIVE_TIME before rounding: (1/(2·f₀) − 0.5 ms) / 0.1 ms.
    public var driveTimeExact: Double { DriverRegisters.exactDriveTime(resonanceHz: resonanceHz) }
    /// OL_LRA_PERIOD before rounding: 1 / (f₀ · 98.46 µs).
    public var openLoopPeriodExact: Double { 1 / (resonanceHz * DriverRegisters.periodLSB) }

    /// RATED_VOLTAGE (0x16), rounded and clamped to 0…255.
    public var ratedVoltage: UInt8 { Self.code(ratedVoltageExact, max: 255) }
    /// OD_CLAMP (0x17), rounded and clamped to 0…255.
    public var overdriveClamp: UInt8 { Self.code(overdriveClampExact, max: 255) }
    /// DRIVE_TIME (CONTROL1[4:0]), rounded and clamped to 0…31.
    public var driveTime: UInt8 { Self.code(driveTimeExact, max: 31) }
    /// OL_LRA_PERIOD (0x20), rounded and clamped to 0…127.
    public var openLoopPeriod: UInt8 { Self.code(openLoopPeriodExact, max: 127) }
    /// SAMPLE_TIME code (CONTROL2[5:4]): 0 = 150 µs … 3 = 300 µs.
    public var sampleTimeCode: UInt8 { UInt8(min(3, max(0, (Int((sampleTime * 1e6).rounded()) - 150) / 50))) }

    /// The rated voltage's peak on the output: V_rms / duty (the drive is off during sampling).
    public var ratedVoltsPeak: Double { ratedVoltsRms / max(samplingDuty, 1e-9) }
    /// What the rounded RATED_VOLTAGE really gives, V RMS.
    public var ratedVoltsRmsRealised: Double {
        Double(ratedVoltage) * DriverRegisters.ratedVoltageLSB / max(samplingDuty, 1e-9)
    }
    /// What the rounded OD_CLAMP really gives, V peak.
    public var clampVoltsPeakRealised: Double { Double(overdriveClamp) * DriverRegisters.overdriveClampLSB }
    /// The resonance the rounded DRIVE_TIME stands for, Hz.
    public var driveTimeResonanceHz: Double { 1 / (2 * (Double(driveTime) * 0.1e-3 + 0.5e-3)) }
    /// The resonance the rounded OL_LRA_PERIOD stands for, Hz.
    public var openLoopResonanceHz: Double { 1 / (Double(openLoopPeriod) * DriverRegisters.periodLSB) }

    /// Creates a calculation. `clampVoltsPeak` nil takes √2 × `ratedVoltsRms`.
    public init(resonanceHz: Double, ratedVoltsRms: Double, clampVoltsPeak: Double? = nil, sampleTime: Double = 300e-6)
    {
        self.resonanceHz = resonanceHz
        self.ratedVoltsRms = ratedVoltsRms
        self.clampVoltsPeak = clampVoltsPeak ?? 2.0.squareRoot() * ratedVoltsRms
        self.clampGiven = clampVoltsPeak != nil
        self.sampleTime = sampleTime
    }

    /// The calculation for a profile's datasheet resonance, rated voltage, clamp and sample time.
    public init(profile: ActuatorProfile) {
        self.init(
            resonanceHz: profile.datasheet.resonanceHz, ratedVoltsRms: profile.datasheet.ratedVoltageRms,
            clampVoltsPeak: profile.driver.overdriveClampVoltsPeak,
            sampleTime: Double(profile.driver.sampleTimeMicroseconds) * 1e-6)
    }

    /// The register values (the fields of CONFIGURE_DRIVER and CONFIGURE_SAMPLE_TIME).
    public var registers: DriverRegisters {
        DriverRegisters(
            ratedVoltage: ratedVoltage, overdriveClamp: overdriveClamp, driveTime: driveTime,
            openLoopPeriod: openLoopPeriod, sampleTime: sampleTimeCode)
    }

    /// What the numbers cannot do on a DRV2605L, in plain words (empty when all is well).
    public var warnings: [String] {
        var out: [String] = []
        if !(125...300).contains(resonanceHz) {
            out.append(
                String(format: "f0 %.1f Hz is outside the DRV2605L's closed-loop LRA range (125–300 Hz)", resonanceHz))
        }
        if driveTimeExact < -0.5 || driveTimeExact > 31.5 {
            out.append(
                String(
                    format: "DRIVE_TIME cannot express f0 %.1f Hz (0…31 covers about 139–1000 Hz); clamped to %d",
                    resonanceHz, driveTime))
        }
        if openLoopPeriodExact > 127.5 {
            out.append(
                String(format: "OL_LRA_PERIOD cannot express f0 %.1f Hz (7 bits: ≥ 80 Hz); clamped to 127", resonanceHz)
            )
        }
        if drivenFraction <= 0 {
            out.append("f0 is too high for the back-EMF sampling window: the driver would never drive")
        }
        if ratedVoltageExact > 255.5 {
            out.append(String(format: "RATED_VOLTAGE %.1f is beyond the register (255); clamped", ratedVoltageExact))
        }
        if overdriveClampExact > 255.5 {
            out.append(
                String(format: "OD_CLAMP %.1f is beyond the register (255 = 5.41 V peak); clamped", overdriveClampExact)
            )
        }
        if drivenFraction > 0 && clampVoltsPeak < ratedVoltsPeak * 0.999 {
            out.append(
                String(
                    format:
                        "the clamp (%.2f V peak) is below the rated drive's peak (%.2f V): the clamp wins, no overdrive headroom",
                    clampVoltsPeak, ratedVoltsPeak))
        }
        return out
    }

    private static func code(_ x: Double, max hi: Int) -> UInt8 {
        guard x.isFinite else { return x > 0 ? UInt8(hi) : 0 }
        return UInt8(Swift.min(hi, Swift.max(0, Int(x.rounded()))))
    }
}
