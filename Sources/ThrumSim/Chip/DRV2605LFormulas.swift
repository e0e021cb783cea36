/// The DRV2605L voltage, timing and gain formulas (reference §1.2, §2), as pure functions.
public enum DRV2605LFormulas {
    /// LSB of OL_LRA_PERIOD and LRA_PERIOD, seconds (§1.2).
    public static let periodLSB = 98.46e-6

    /// SAMPLE_TIME code → seconds: 150, 200, 250, 300 µs (§1.2 CONTROL2).
    public static func sampleTime(code: UInt8) -> Double { (150.0 + 50.0 * Double(code & 3)) * 1e-6 }

    /// Fraction of each period the closed-loop LRA output is off around the zero crossings:
    /// (4·t_SAMPLE + 300 µs)·f — the term under the root in the rated-voltage formula (§2.1).
    public static func closedLoopOffFraction(sampleTime: Double, frequency: Double) -> Double {
        min(0.9, max(0, (4 * sampleTime + 300e-6) * frequency))
    }

    /// Closed-loop LRA rated voltage, RMS: 20.58 mV × RATED_VOLTAGE / √(1 − (4·t_S + 300 µs)·f) (§2.1).
    public static func ratedVoltageRMS(code: UInt8, sampleTime: Double, frequency: Double) -> Double {
        let off = closedLoopOffFraction(sampleTime: sampleTime, frequency: frequency)
        return 0.02058 * Double(code) / (1 - off).squareRoot()
    }

    /// Inverse of ``ratedVoltageRMS(code:sampleTime:frequency:)``, rounded and clamped to a byte.
    public static func ratedVoltageCode(rms: Double, sampleTime: Double, frequency: Double) -> UInt8 {
        let off = closedLoopOffFraction(sampleTime: sampleTime, frequency: frequency)
        return UInt8(clamping: Int((rms * (1 - off).squareRoot() / 0.02058).rounded()))
    }

    /// LRA overdrive clamp, peak volts: 21.22 mV × OD_CLAMP ("Equation 9", SLOS854D; §2.1).
    public static func overdriveClampPeak(code: UInt8) -> Double { 0.02122 * Double(code) }

    /// Open-loop LRA full scale, peak volts of the square carrier; its RMS with the 800 µs/period
    /// gap is the §2.1 formula 21.32 mV × OD_CLAMP × √(1 − 800 µs·f).
    public static func openLoopPeak(code: UInt8) -> Double { 0.02132 * Double(code) }

    /// ERM open-loop average, volts: 21.59 mV × OD_CLAMP (§2.1, [INF]).
    public static func ermOpenLoopVolts(code: UInt8) -> Double { 0.02159 * Double(code) }

    /// DRV2605L LRA BEMF_GAIN table: 3.75×, 7.5×, 15×, 22.5× (§1.2; not the non-L table).
    public static func lraBackEMFGain(code: UInt8) -> Double {
        switch code & 3 { case 0: return 3.75; case 1: return 7.5; case 2: return 15; default: return 22.5 }
    }

    /// Back-EMF full scale stored by calibration: A_CAL_BEMF/255 × 1.22 V / BEMF_GAIN (§1.2).
    public static func backEMFFullScale(aCalBEMF: UInt8, gainCode: UInt8) -> Double {
        Double(aCalBEMF) / 255 * 1.22 / lraBackEMFGain(code: gainCode)
    }

    /// DRIVE_TIME (LRA) → initial half-period guess: 0.5 ms + 0.1 ms × DRIVE_TIME (§1.2).
    public static func driveTimeHalfPeriod(code: UInt8) -> Double { (0.5 + 0.1 * Double(code & 0x1F)) * 1e-3 }

    /// ZC_DET_TIME code → seconds: 100, 200, 300, 390 µs (§1.2 CONTROL4).
    public static func zeroCrossingDetectTime(code: UInt8) -> Double {
        [100e-6, 200e-6, 300e-6, 390e-6][Int(code & 3)]
    }

    /// AUTO_CAL_TIME code → modelled duration, the middle of the datasheet window:
    /// 150–350, 250–450, 500–700, 1000–1200 ms (§1.2 CONTROL4).
    public static func autoCalibrationDuration(code: UInt8) -> Double {
        [0.25, 0.35, 0.6, 1.1][Int(code & 3)]
    }

    /// FB_BRAKE_FACTOR code → braking/driving gain ratio; nil for 7 = braking disabled (§1.2).
    public static func brakeFactor(code: UInt8) -> Double? {
        let table: [Double?] = [1, 2, 3, 4, 6, 8, 16, nil]
        return table[Int(code & 7)]
    }

    /// LOOP_GAIN code → proportional gain of the modelled amplitude loop, in units of rated drive
    /// per unit of normalised back-EMF error. Chosen [INF] so that every setting is stable at one
    /// update per cycle with the §5.3 actuator (loop factor (T/τ)(1+G) < 2 up to "very high").
    public static func loopGain(code: UInt8) -> Double { [1.0, 2.0, 4.0, 6.0][Int(code & 3)] }

    /// VBAT register while driving: VDD × 255 / 5.6 (§0, §5.4 item 5).
    public static func vbatCode(supplyVolts: Double) -> UInt8 {
        UInt8(clamping: Int((supplyVolts * 255 / 5.6).rounded()))
    }

    /// LRA_PERIOD register for a period in seconds: round(T / 98.46 µs) (§2.2).
    public static func periodCode(seconds: Double) -> UInt8 {
        UInt8(clamping: Int((seconds / periodLSB).rounded()))
    }
}
