/// The DRV2605L output stage and its LRA control loop, stepped by ``DRV2605LModel``
/// (reference §2.3 and the simulation recipe of §5.4).
///
/// Closed loop (§5.4 items 1–2):
/// * **Commutation** follows the sign of the actuator's velocity (what back-EMF zero-crossing
///   detection recovers). Each half cycle is a square pulse of the current level, with the
///   output Hi-Z for t_SAMPLE + 75 µs on each side of the crossing. That total off-time of
///   2·t_SAMPLE + 150 µs per half period is exactly the (4·t_SAMPLE + 300 µs)·f term of the §2.1
///   rated-voltage formula, so the modelled drive has the RMS that formula predicts.
///   If no crossing arrives by the predicted half period + ZC_DET_TIME the stage commutates
///   anyway (that is how it starts from rest on the DRIVE_TIME guess).
/// * **Amplitude loop** runs at each crossing (LRA_DRIVE_MODE = 1) or every second one (= 0).
///   It compares the half-cycle back-EMF peak with target = RTP fraction × the calibrated full
///   scale (A_CAL_BEMF / BEMF_GAIN) and sets level = V_rated·(fraction + G·error + ∫) [INF]:
///   feed-forward on the rated voltage, proportional gain G from LOOP_GAIN (doubled by
///   STARTUP_BOOST until the target is first reached), and a slow integral that absorbs
///   calibration mismatch. Large errors saturate at min(OD_CLAMP, VDD): automatic overdrive.
///   A negative command becomes antiphase drive scaled by FB_BRAKE_FACTOR (halved near the end
///   when BRAKE_STABILIZER is set); with the target at 0 the stage brakes until the back-EMF is
///   below 3 % of full scale, then goes Hi-Z. FB_BRAKE_FACTOR = 7 coasts instead.
///
/// Open loop (§5.4 item 3): fixed carrier 1/(OL_LRA_PERIOD × 98.46 µs), level = |input| × the
/// §2.1 open-loop full scale, phase flipped for negative input, 800 µs of gap per period.
/// ERM mode (N_ERM_LRA = 0): a DC level, which on an LRA only displaces the mass (§6 pitfall 1).
struct OutputStage: Sendable {
    enum Program: Sendable { case none, closedLoop, openLoop, erm, calibration }

    /// The back-EMF below which braking ends, as a fraction of full scale [INF].
    static let brakeStopFraction = 0.03
    /// Integral gain relative to LOOP_GAIN [INF].
    static let integralGainRatio = 0.15
    /// Plausible half periods for the tracker: DRIVE_TIME's range, 0.5–4 ms (125 Hz–1 kHz).
    static let halfPeriodRange = 0.5e-3...4.0e-3
    /// Gap each side of the open-loop commutation: 800 µs per period (§2.1 open-loop formula).
    static let openLoopGap = 200e-6

    private(set) var program: Program = .none
    private(set) var braking = false
    /// Peak volts of the current half-cycle pulse (≥ 0).
    private(set) var level = 0.0
    /// Tracked half period in seconds.
    private(set) var halfPeriod = 2.4e-3
    /// Last back-EMF amplitude measured by the loop (volts).
    private(set) var measuredBackEMF = 0.0
    /// Seconds since the current program started.
    private(set) var programTime = 0.0

    private var halfSign = 1.0
    /// Seconds since the last detected back-EMF zero crossing; nil until one was seen.
    /// Forced commutations do not reset it, so the tracker measures the actuator, not the guess.
    private var sinceCrossing: Double?
    private var lastVelocitySign = 0.0
    private var timeInHalf = 0.0
    private var peakSpeed = 0.0
    private var crossingsSinceUpdate = 0
    private var integral = 0.0
    private var boosting = true
    private var openLoopSign = 1.0
    private var windowBefore = 375e-6
    private var windowAfter = 375e-6
    private var ermVolts = 0.0

    // Calibration accumulators (second half of the window).
    private(set) var calibrationDuration = 0.0
    private(set) var calibrationBackEMFSum = 0.0
    private(set) var calibrationBackEMFCount = 0
    private(set) var calibrationHalfPeriodSum = 0.0
    private(set) var calibrationHalfPeriodCount = 0
    private(set) var calibrationRatedPeak = 0.0

    /// Whether the stage is running a program (not Hi-Z idle).
    var isRunning: Bool { program != .none }

    var activity: OutputActivity {
        switch program {
        case .none: return .idle
        case .calibration: return .calibrating
        default: return braking ? .braking : .driving
        }
    }

    /// Stops at once: Hi-Z, no braking (standby, HI_Z, reset, or end of braking).
    mutating func stop() {
        program = .none
        braking = false
        level = 0
    }

    /// Closed-loop drive peak for 100 %: the §2.1 rated RMS spread over the on-time, i.e.
    /// V_peak = V_rms / √(1 − off) = 20.58 mV × RATED / (1 − off).
    func ratedPeak(_ s: DriveSettings) -> Double {
        let f = 1 / (2 * halfPeriod)
        let off = DRV2605LFormulas.closedLoopOffFraction(sampleTime: s.sampleTime, frequency: f)
        return DRV2605LFormulas.ratedVoltageRMS(code: s.ratedCode, sampleTime: s.sampleTime, frequency: f)
            / (1 - off).squareRoot()
    }

    /// Starts `program` with the actuator moving at `velocity` (m/s).
    mutating func start(_ program: Program, settings s: DriveSettings, supply: Double, velocity: Double,
                        calibrationDuration: Double = 0) {
        self.program = program
        programTime = 0
        braking = false
        integral = 0
        boosting = true
        measuredBackEMF = 0
        peakSpeed = 0
        crossingsSinceUpdate = 0
        halfPeriod = min(max(s.initialHalfPeriod, Self.halfPeriodRange.lowerBound), Self.halfPeriodRange.upperBound)
        windowBefore = s.sampleTime + 75e-6
        windowAfter = s.sampleTime + 75e-6
        halfSign = velocity < 0 ? -1 : 1
        sinceCrossing = nil
        lastVelocitySign = velocity > 0 ? 1 : (velocity < 0 ? -1 : 0)
        self.calibrationDuration = calibrationDuration
        calibrationBackEMFSum = 0; calibrationBackEMFCount = 0
        calibrationHalfPeriodSum = 0; calibrationHalfPeriodCount = 0
        switch program {
        case .closedLoop, .calibration:
            timeInHalf = windowAfter  // drive at once: the first pulse is the DRIVE_TIME guess
            update(settings: s, supply: supply)
        case .openLoop:
            halfPeriod = s.openLoopHalfPeriod
            timeInHalf = Self.openLoopGap
            update(settings: s, supply: supply)
        case .erm:
            settingsChanged(s, supply: supply)
        case .none:
            break
        }
    }

    /// Re-reads levels that apply immediately (ERM DC level). Loop levels wait for the next update.
    mutating func settingsChanged(_ s: DriveSettings, supply: Double) {
        if program == .erm {
            let v = s.openLoopFraction * DRV2605LFormulas.ermOpenLoopVolts(code: s.clampCode)
            ermVolts = max(-supply, min(supply, v))
            if s.openLoopFraction == 0 || s.mode != 5 { stop() }
        }
    }

    /// The coil drive for the next step: (volts, open circuit?).
    @inline(__always)
    func output() -> (volts: Double, open: Bool) {
        switch program {
        case .none:
            return (0, true)
        case .erm:
            return (ermVolts, false)
        case .closedLoop, .calibration:
            if level == 0 || timeInHalf < windowAfter || timeInHalf >= halfPeriod - windowBefore { return (0, true) }
            return (braking ? -halfSign * level : halfSign * level, false)
        case .openLoop:
            if level == 0 || timeInHalf < Self.openLoopGap || timeInHalf >= halfPeriod - Self.openLoopGap {
                return (0, true)
            }
            return (halfSign * openLoopSign * level, false)
        }
    }

    /// Observes the actuator after a step of `dt` seconds and runs commutation and the loop.
    @inline(__always)
    mutating func observe(velocity: Double, forceFactor bl: Double, dt: Double, settings s: DriveSettings,
                          supply: Double) {
        guard program != .none else { return }
        programTime += dt
        timeInHalf += dt
        if let t = sinceCrossing { sinceCrossing = t + dt }
        let speed = velocity < 0 ? -velocity : velocity
        if speed > peakSpeed { peakSpeed = speed }
        switch program {
        case .none, .erm:
            return
        case .openLoop:
            if timeInHalf >= halfPeriod {
                timeInHalf -= halfPeriod
                halfSign = -halfSign
                if halfSign > 0 { update(settings: s, supply: supply) }
            }
        case .closedLoop, .calibration:
            let sign: Double = velocity > 0 ? 1 : (velocity < 0 ? -1 : 0)
            if sign != 0 && lastVelocitySign != 0 && sign != lastVelocitySign {
                // Back-EMF zero crossing: a natural half period ends.
                if let measured = sinceCrossing, !braking,
                   measured >= 0.5 * halfPeriod, measured <= 2 * halfPeriod {
                    if program == .calibration && programTime > calibrationDuration / 2 {
                        calibrationHalfPeriodSum += measured
                        calibrationHalfPeriodCount += 1
                    }
                    let tracked = 0.5 * halfPeriod + 0.5 * measured
                    halfPeriod = min(max(tracked, Self.halfPeriodRange.lowerBound), Self.halfPeriodRange.upperBound)
                }
                sinceCrossing = 0
                commutate(newSign: sign, forceFactor: bl, settings: s, supply: supply)
            } else if timeInHalf >= halfPeriod + s.zeroCrossingDetectTime {
                // No crossing seen in the detection window: commutate on the period guess.
                commutate(newSign: -halfSign, forceFactor: bl, settings: s, supply: supply)
            }
            if sign != 0 { lastVelocitySign = sign }
        }
    }

    private mutating func commutate(newSign: Double, forceFactor bl: Double, settings s: DriveSettings,
                                    supply: Double) {
        measuredBackEMF = bl * peakSpeed
        peakSpeed = 0
        halfSign = newSign
        timeInHalf = 0
        crossingsSinceUpdate += 1
        if crossingsSinceUpdate >= (s.updateTwicePerCycle ? 1 : 2) {
            crossingsSinceUpdate = 0
            update(settings: s, supply: supply)
        }
    }

    /// One amplitude-loop update (§5.4 item 2).
    private mutating func update(settings s: DriveSettings, supply: Double) {
        let limit = min(DRV2605LFormulas.overdriveClampPeak(code: s.clampCode), supply)
        switch program {
        case .none, .erm:
            return
        case .openLoop:
            let f = s.mode == 5 ? s.openLoopFraction : 0
            if f == 0 { stop(); return }
            openLoopSign = f < 0 ? -1 : 1
            halfPeriod = s.openLoopHalfPeriod  // OL_LRA_PERIOD changes apply from the next cycle
            level = min(abs(f) * DRV2605LFormulas.openLoopPeak(code: s.clampCode), supply)
        case .calibration:
            // Calibration drives at the rated voltage and measures what the actuator returns.
            calibrationRatedPeak = ratedPeak(s)
            level = min(calibrationRatedPeak, limit)
            if programTime > calibrationDuration / 2 && measuredBackEMF > 0 {
                calibrationBackEMFSum += measuredBackEMF
                calibrationBackEMFCount += 1
            }
        case .closedLoop:
            let fullScale = max(s.backEMFFullScale, 1e-6)
            let fraction = s.driveFraction
            let target = fraction * fullScale
            let error = (target - measuredBackEMF) / fullScale
            let rated = ratedPeak(s)
            var command: Double
            if target > 0 {
                if boosting && measuredBackEMF >= target { boosting = false }
                let gain = s.loopGain * (boosting && s.startupBoost ? 2 : 1)
                if !boosting {
                    integral = min(3, max(-1, integral + Self.integralGainRatio * s.loopGain * error))
                }
                command = fraction + gain * error + integral
            } else {
                integral = 0
                boosting = true
                if measuredBackEMF < Self.brakeStopFraction * fullScale || s.brakeFactor == nil {
                    stop()
                    return
                }
                command = s.loopGain * error
            }
            if command >= 0 {
                braking = false
                level = min(command * rated, limit)
            } else if let factor = s.brakeFactor {
                braking = true
                let stabilise = s.brakeStabilizer && measuredBackEMF < 0.3 * fullScale ? 0.5 : 1
                level = min(-command * factor * stabilise * rated, limit)
            } else {
                braking = false
                level = 0
            }
        }
    }
}
