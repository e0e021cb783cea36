import Foundation

/// The compiler's model of how an LRA under the DRV2605L's closed loop follows the drive
/// amplitude, as the firmware plays it. An envelope model (the simulator has the physics), but
/// one with the loop's own law rather than a fitted curve:
///
/// * The acceleration envelope `e` (1 = steady state at the rated voltage, which is the
///   calibrated full scale) moves towards the drive level `L` of the current cycle with time
///   constant τ: `ė = (L − e)/τ`. τ = 2m/(c + c_e·on) with the coil held by the driver only
///   while it drives (`on` = 1 − (4·t_SAMPLE + 300 µs)·f₀, the back-EMF sampling windows leave
///   it open).
/// * The loop updates `L` once per resonance cycle (LRA_DRIVE_MODE = 0), at every second
///   back-EMF zero crossing, from the back-EMF peak of the last half cycle `m`:
///   `L = u + G·(u − m) + ∫` in rated units, G = LOOP_GAIN (high = 4), doubled by STARTUP_BOOST
///   until the target is first reached; clipped at ρ = OD_CLAMP peak ÷ rated drive peak
///   (automatic overdrive). A negative command brakes in antiphase at 3× (FB_BRAKE_FACTOR),
///   halved below 30 % (BRAKE_STABILIZER), also clipped at ρ. With the target at 0 the loop
///   brakes until the back-EMF is under 3 % of full scale, then goes Hi-Z (free ring-down).
/// * From idle, a non-zero RTP write starts the drive at once (the first pulse is the
///   DRIVE_TIME guess at full effort), `startLatency` after the write.
/// * The firmware writes RTP at a segment's start, then at most every `writeInterval`
///   (500 µs) the ramp value it computed `writeTime` (the 73 µs I²C write) earlier; RTP is
///   8 bits, so a ramp that starts at amplitude 0 starts driving at its first non-zero write.
public struct ActuatorResponse: Equatable, Sendable {
    /// Resonance f₀, Hz (the loop tracks the actuator's own).
    public var resonanceHz: Double
    /// Envelope time constant τ while the driver holds the coil, s.
    public var timeConstant: Double
    /// Overdrive (and brake) limit relative to the rated level, ρ > 1.
    public var overdriveRatio: Double
    /// Mean delay from an RTP write to the drive changing while the loop runs (half a
    /// period, updates are once per cycle), s. From idle the drive starts at once.
    public var updateLatency: Double
    /// Ring-down time constant with the coil open (Hi-Z after braking), s.
    public var freeTimeConstant: Double
    /// Proportional loop gain G in rated units per unit of back-EMF error (LOOP_GAIN high = 4).
    public var loopGain: Double = 4
    /// STARTUP_BOOST multiplies G until the target is first reached.
    public var startupBoost: Double = 2
    /// FB_BRAKE_FACTOR (3×).
    public var brakeFactor: Double = 3
    /// Integral gain relative to G, per update.
    public var integralRatio: Double = 0.15
    /// Back-EMF fraction below which braking ends.
    public var brakeStop: Double = 0.03
    /// Firmware: shortest interval between two RTP writes inside a segment, s.
    public var writeInterval: Double = 500e-6
    /// Firmware: duration of one RTP register write (I²C at 400 kHz), s.
    public var writeTime: Double = 73e-6
    /// Driver: from the RTP write to the first pulse when idle, s.
    public var startLatency: Double = 40e-6
    /// Driver: how much earlier than whole periods after the start the loop updates, as a
    /// fraction of the period (the back-EMF zero crossings lead the drive's commutation grid).
    public var updateLead: Double = 0.08

    /// Creates a response model from explicit values (loop and firmware laws at their defaults).
    public init(resonanceHz: Double, timeConstant: Double, overdriveRatio: Double, updateLatency: Double) {
        self.resonanceHz = resonanceHz
        self.timeConstant = timeConstant
        self.overdriveRatio = overdriveRatio
        self.updateLatency = updateLatency
        self.freeTimeConstant = 2 * timeConstant
    }

    /// Derives the response from a profile.
    public init(profile: ActuatorProfile) {
        let p = profile.physical
        let f = profile.datasheet.resonanceHz
        let duty = DriverRegisters.samplingDuty(
            resonanceHz: f, sampleTime: Double(profile.driver.sampleTimeMicroseconds) * 1e-6)
        let ratedPeak = profile.datasheet.ratedVoltageRms / max(duty, 0.1)
        let m = p.movingMassGrams / 1000
        self.init(
            resonanceHz: p.resonanceHz,
            timeConstant: 2 * m / (p.mechanicalDamping + p.electricalDamping * duty * duty),
            overdriveRatio: max(1.02, profile.driver.overdriveClampVoltsPeak / ratedPeak),
            updateLatency: 0.5 / f)
        freeTimeConstant = 2 * p.mechanicalQ / p.omega0
    }

    /// Time for the envelope to rise from `from` to `level` under full overdrive (no latency), s.
    public func riseTime(to level: Double, from: Double = 0) -> Double {
        guard level > from else { return 0 }
        let rho = overdriveRatio
        return timeConstant * log((rho - from) / max(1e-9, rho - level))
    }

    /// Time for the envelope to fall from `from` to `level` under full braking (no latency), s.
    public func fallTime(from: Double, to level: Double = 0) -> Double {
        guard from > level else { return 0 }
        let rho = overdriveRatio
        return timeConstant * log((from + rho) / (level + rho))
    }

    /// One step of the plain overdrive/brake envelope model: `decay` is exp(−dt/τ) for the step.
    @inline(__always)
    public func step(_ e: Double, toward target: Double, decay: Double) -> Double {
        let rho = overdriveRatio
        if target > e {
            return min(target, rho - (rho - e) * decay)
        } else if target < e {
            return max(target, -rho + (e + rho) * decay)
        }
        return e
    }
}

/// The closed-loop envelope of `ActuatorResponse` as a stepper: feed it the RTP target (0…1)
/// over time, read `envelope`.
public struct ClosedLoopEnvelope: Sendable {
    public let response: ActuatorResponse
    /// Acceleration envelope, 1 = steady state at the rated voltage.
    public private(set) var envelope = 0.0
    /// Drive level of the current cycle in rated units (negative: braking).
    public private(set) var level = 0.0
    /// Whether the output stage is driving or braking (false: idle, Hi-Z).
    public private(set) var running = false
    private var boosting = true
    private var integral = 0.0
    private var sinceHalf = 0.0
    private var halves = 0
    private var peakHalf = 0.0
    private let halfPeriod: Double
    // exp(−h/τ) of the last driven step and exp(−dt/τ_free) of the last free one: a sampled
    // preview repeats the same step millions of times (the cached factor is the same number).
    private var drivenStep = Double.nan, drivenDecay = 1.0
    private var freeStep = Double.nan, freeDecay = 1.0
    // The same two factors for one step a caller repeats between other steps (a preview's row
    // period, `preferStep(_:)`): a row split at a half-period boundary does not evict them.
    private var fixedStep = Double.nan, fixedDecay = 1.0, fixedFreeDecay = 1.0

    /// A stepper at rest.
    public init(response: ActuatorResponse) {
        self.response = response
        halfPeriod = 0.5 / response.resonanceHz
    }

    /// One stretch of the envelope recorded by `advance(_:target:recording:)`: from the end of
    /// the previous stretch to `end` (s) the envelope moved monotonically to `envelope`, towards
    /// `level` with the driven τ (`level` is nan for a free ring-down).
    struct Stretch {
        var end: Double
        var envelope: Double
        var level: Double
    }

    /// Advances by `dt` s with RTP target `u` (0…1) held over the step.
    @inline(__always)
    public mutating func advance(_ dt: Double, target u: Double) {
        if !running && u <= 0 {
            // Idle and staying idle (most of a sparse pattern's rows): the free ring-down alone,
            // as the general step below would do it, without the call.
            if envelope > 0 { envelope *= ringDownFactor(dt) }
            return
        }
        var none: [Stretch]? = nil
        advance(dt, target: u, now: 0, recording: &none)
    }

    /// Advances by `dt` s from time `now` with target `u`, appending each monotone stretch.
    mutating func advance(_ dt: Double, target u: Double, now: Double, recording: inout [Stretch]?) {
        var clock = now
        var left = dt
        if !running {
            guard u > 0 else {
                if envelope > 0 {
                    envelope *= ringDownFactor(dt)
                    recording?.append(Stretch(end: now + dt, envelope: envelope, level: .nan))
                }
                return
            }
            running = true
            boosting = true
            integral = 0
            sinceHalf = min(0.9, 2 * response.updateLead) * halfPeriod
            halves = 0
            peakHalf = envelope
            update(target: u, measured: 0)
        }
        while left > 0 {
            let h = min(left, halfPeriod - sinceHalf)
            evolve(h)
            clock += h
            recording?.append(Stretch(end: clock, envelope: envelope, level: level))
            sinceHalf += h
            left -= h
            if sinceHalf >= halfPeriod * (1 - 1e-9) {
                sinceHalf = 0
                let measured = peakHalf
                peakHalf = envelope
                halves += 1
                if halves % 2 == 0 {
                    update(target: u, measured: measured)
                    if !running {
                        if left > 0 {
                            envelope *= ringDownFactor(left)
                            recording?.append(Stretch(end: clock + left, envelope: envelope, level: .nan))
                        }
                        return
                    }
                }
            }
        }
    }

    /// The running loop's state between two half-period boundaries, as a small value the
    /// optimiser keeps in registers. `step(_:)` is `advance(_:target:)` for a step that neither
    /// starts from idle nor reaches the next half-period boundary, the same arithmetic; between
    /// boundaries the target does not enter the step, so the caller needs it only when `step`
    /// declines (and then advances the loop itself).
    struct DrivenSteps {
        fileprivate(set) var envelope: Double
        fileprivate var level: Double
        fileprivate var sinceHalf: Double
        fileprivate var peakHalf: Double
        fileprivate var drivenStep: Double
        fileprivate var drivenDecay: Double
        fileprivate let running: Bool
        fileprivate let halfPeriod: Double
        fileprivate let timeConstant: Double

        /// Takes the step of `dt` s and returns true, or returns false having changed nothing.
        @inline(__always)
        mutating func step(_ dt: Double) -> Bool {
            // As `advance`: h = min(dt, halfPeriod − sinceHalf) must be dt, and the boundary test
            // after `sinceHalf += h` must fail.
            guard running, !(halfPeriod - sinceHalf < dt) else { return false }
            let since = sinceHalf + dt
            guard !(since >= halfPeriod * (1 - 1e-9)) else { return false }
            if dt != drivenStep {
                drivenStep = dt
                drivenDecay = exp(-dt / timeConstant)
            }
            let l = level
            var e = l + (envelope - l) * drivenDecay
            if l < 0 && e < 0 { e = 0 }
            envelope = e
            if e > peakHalf { peakHalf = e }
            sinceHalf = since
            return true
        }

        /// Up to `count` steps of `dt` s in one: as many as `step(_:)` would take in a row before
        /// declining (the next half-period boundary), returning how many (0: nothing changed).
        /// `decays[n]` is exp(−n·dt/τ) (`decays[1]` computed as `exp(-dt / τ)`). The envelope moves monotonically towards the level, so its
        /// value after n steps (l + (e − l)·exp(−n·dt/τ), clipped at 0 when braking) and the half
        /// cycle's peak are those of the n single steps, to rounding (≈ 1e-15).
        @inline(__always)
        mutating func steps(_ count: Int, of dt: Double, decays: [Double], perStep: Double) -> Int {
            guard running, count > 0, !(halfPeriod - sinceHalf < dt) else { return 0 }
            let limit = halfPeriod * (1 - 1e-9)
            // n steps are taken when the boundary test fails after each: sinceHalf + n·dt < limit
            // (estimated with `perStep` = 1/dt, then settled by the test itself).
            // The estimate is almost always exact: each settling loop is entered only when its
            // first step is needed, as a loop the optimiser turns into a 16-lane search costs
            // that search's set-up on every call (10 % of a long render's CPU).
            var n = min(count, Int(max(0, min(Double(count), (limit - sinceHalf) * perStep))))
            if n > 0 && !(sinceHalf + Double(n) * dt < limit) {
                n -= 1
                while n > 0 && !(sinceHalf + Double(n) * dt < limit) { n -= 1 }
            }
            if n < count && sinceHalf + Double(n + 1) * dt < limit {
                n += 1
                while n < count && sinceHalf + Double(n + 1) * dt < limit { n += 1 }
            }
            guard n > 0 else { return 0 }
            if dt != drivenStep {
                drivenStep = dt
                drivenDecay = decays[1]  // exp(−dt/τ), the same number
            }
            let l = level
            var e = n == 1 ? l + (envelope - l) * drivenDecay : l + (envelope - l) * decays[n]
            if l < 0 && e < 0 { e = 0 }
            envelope = e
            if e > peakHalf { peakHalf = e }
            sinceHalf = n == 1 ? sinceHalf + dt : sinceHalf + Double(n) * dt
            return n
        }
    }

    /// The state `DrivenSteps` works on; setting it writes that state back.
    var drivenSteps: DrivenSteps {
        get {
            DrivenSteps(
                envelope: envelope, level: level, sinceHalf: sinceHalf, peakHalf: peakHalf, drivenStep: drivenStep,
                drivenDecay: drivenDecay, running: running, halfPeriod: halfPeriod, timeConstant: response.timeConstant)
        }
        set {
            envelope = newValue.envelope
            sinceHalf = newValue.sinceHalf
            peakHalf = newValue.peakHalf
            drivenStep = newValue.drivenStep
            drivenDecay = newValue.drivenDecay
        }
    }

    /// Keeps exp(−`dt`/τ) and exp(−`dt`/τ_free) for a step taken again and again between others
    /// (the same numbers the steps would compute; no effect on the envelope).
    mutating func preferStep(_ dt: Double) {
        fixedStep = dt
        fixedDecay = exp(-dt / response.timeConstant)
        fixedFreeDecay = exp(-dt / response.freeTimeConstant)
    }

    /// exp(−dt/τ_free), computed once per distinct step.
    @inline(__always)
    private mutating func ringDownFactor(_ dt: Double) -> Double {
        if dt == fixedStep { return fixedFreeDecay }
        if dt != freeStep {
            freeStep = dt
            freeDecay = exp(-dt / response.freeTimeConstant)
        }
        return freeDecay
    }

    @inline(__always)
    private mutating func evolve(_ h: Double) {
        let d: Double
        if h == drivenStep {
            d = drivenDecay
        } else if h == fixedStep {
            d = fixedDecay
        } else {
            drivenStep = h
            drivenDecay = exp(-h / response.timeConstant)
            d = drivenDecay
        }
        let l = level
        var e = l + (envelope - l) * d
        if l < 0 && e < 0 { e = 0 }
        envelope = e
        if e > peakHalf { peakHalf = e }
    }

    /// One amplitude-loop update.
    private mutating func update(target u: Double, measured m: Double) {
        let r = response
        let rho = r.overdriveRatio
        var command: Double
        if u > 0 {
            if boosting && m >= u { boosting = false }
            let g = r.loopGain * (boosting ? r.startupBoost : 1)
            if !boosting { integral = min(3, max(-1, integral + r.integralRatio * r.loopGain * (u - m))) }
            command = u + g * (u - m) + integral
        } else {
            integral = 0
            boosting = true
            if m < r.brakeStop {
                running = false
                level = 0
                return
            }
            command = -r.loopGain * m
        }
        if command >= 0 {
            level = min(command, rho)
        } else {
            let stabilise = m < 0.3 ? 0.5 : 1
            level = -min(-command * r.brakeFactor * stabilise, rho)
        }
    }
}
