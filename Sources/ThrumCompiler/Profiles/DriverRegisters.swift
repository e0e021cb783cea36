/// The actuator-specific DRV2605L register values for a closed-loop LRA (the fields of the
/// protocol's CONFIGURE_DRIVER message), derived from a profile by the SLOS854D formulas
/// (reference `drv2605l-and-lra.md` §2.1 and §2.2).
public struct DriverRegisters: Equatable, Sendable {
    /// RATED_VOLTAGE (0x16): closed-loop full scale.
    public var ratedVoltage: UInt8
    /// OD_CLAMP (0x17): overdrive clamp, a peak limit.
    public var overdriveClamp: UInt8
    /// DRIVE_TIME (Control1 bits 4..0): initial half-period guess, 0.1 ms steps.
    public var driveTime: UInt8
    /// OL_LRA_PERIOD (0x20): open-loop period in 98.46 µs steps.
    public var openLoopPeriod: UInt8
    /// SAMPLE_TIME (Control2 bits 5..4): 0 = 150 µs … 3 = 300 µs.
    public var sampleTime: UInt8

    /// Creates register values.
    public init(ratedVoltage: UInt8, overdriveClamp: UInt8, driveTime: UInt8, openLoopPeriod: UInt8, sampleTime: UInt8 = 3) {
        self.ratedVoltage = ratedVoltage
        self.overdriveClamp = overdriveClamp
        self.driveTime = driveTime
        self.openLoopPeriod = openLoopPeriod
        self.sampleTime = sampleTime
    }

    /// LSB of RATED_VOLTAGE for an LRA in closed loop, V.
    public static let ratedVoltageLSB = 0.02058
    /// LSB of OD_CLAMP for an LRA (peak), V ("Equation 9" of SLOS854D).
    public static let overdriveClampLSB = 0.02122
    /// LSB of the LRA period registers, s.
    public static let periodLSB = 98.46e-6

    /// The back-EMF sampling duty term √(1 − (4·t_SAMPLE + 300 µs)·f₀) of the rated-voltage formula.
    public static func samplingDuty(resonanceHz f: Double, sampleTime t: Double) -> Double {
        (max(0, 1 - (4 * t + 300e-6) * f)).squareRoot()
    }

    /// The unrounded RATED_VOLTAGE code: V_rms · √(1 − (4·t_SAMPLE + 300 µs)·f₀) / 20.58 mV.
    public static func exactRatedVoltage(voltsRms v: Double, resonanceHz f: Double, sampleTime t: Double = 300e-6) -> Double {
        v * samplingDuty(resonanceHz: f, sampleTime: t) / ratedVoltageLSB
    }

    /// The unrounded DRIVE_TIME code: (1/(2·f₀) − 0.5 ms) / 0.1 ms.
    public static func exactDriveTime(resonanceHz f: Double) -> Double {
        (1 / (2 * f) - 0.5e-3) / 0.1e-3
    }

    /// Derives the registers from a profile's datasheet resonance, rated voltage and clamp.
    public static func derive(from profile: ActuatorProfile) -> DriverRegisters {
        let f = profile.datasheet.resonanceHz
        let sampleMicros = profile.driver.sampleTimeMicroseconds
        let t = Double(sampleMicros) * 1e-6
        let rated = exactRatedVoltage(voltsRms: profile.datasheet.ratedVoltageRms, resonanceHz: f, sampleTime: t)
        let clamp = profile.driver.overdriveClampVoltsPeak / overdriveClampLSB
        let drive = exactDriveTime(resonanceHz: f)
        let period = 1 / (f * periodLSB)
        let sampleCode = min(3, max(0, (sampleMicros - 150) / 50))
        return DriverRegisters(
            ratedVoltage: byte(rated, max: 255),
            overdriveClamp: byte(clamp, max: 255),
            driveTime: byte(drive, max: 31),
            openLoopPeriod: byte(period, max: 127),
            sampleTime: UInt8(sampleCode))
    }

    private static func byte(_ x: Double, max hi: Int) -> UInt8 {
        UInt8(Swift.min(hi, Swift.max(0, Int(x.rounded()))))
    }
}
