/// A register-level model of a TI DRV2605L driving an ``LRAModel``, in device time (µs).
///
/// Modes modelled: RTP (5), auto-calibration (7), diagnostics (6) and internal trigger (0): GO
/// plays the waveform sequencer with approximate ROM effect envelopes (``ROMWaveform``; TI does
/// not publish the ROM waveforms, so these are Thrum's approximations from the effect names) and
/// self-clears at the end; writing GO = 0 cancels.
///
/// Time only moves forward: ``advance(to:)`` integrates the actuator up to a time, and
/// ``write(address:bytes:at:)`` / ``read(address:register:count:at:)`` first advance to their
/// time, then take effect at exactly that time. Times earlier than the model's clock are treated
/// as "now". The class is not thread-safe; confine an instance to one isolation domain.
public final class DRV2605LModel {
    /// Board and simulation settings.
    public let configuration: DRV2605LConfiguration
    /// The actuator, as of ``time``.
    public private(set) var actuator: LRAModel
    /// The model's current device time, µs.
    public private(set) var time: UInt64 = 0
    /// What was recorded so far.
    public private(set) var trace: SimulationTrace
    /// Outcome of the last calibration or diagnostics run (nil before the first one).
    public private(set) var lastCalibration: Result<CalibrationResult, CalibrationFailure>?

    /// Integration steps taken (``LRAModel`` steps of at most ``DRV2605LConfiguration/internalStepMicros``):
    /// what the simulation cost, whatever the time simulated.
    public private(set) var integrationSteps = 0
    /// Spans passed at once because the actuator was at rest to the last bit
    /// (``LRAModel/isAtRestOpen(upTo:)``), each instead of its integration steps.
    public private(set) var restSteps = 0

    /// Whether a run of quiet trace windows (no drive, the actuator still to 1 nG) keeps only its
    /// first and last window (``SimulationTrace/samples``): the trace of a long idle stretch then
    /// takes constant memory. Off by default: every window is kept.
    public var coalescesQuietWindows = false

    private var registers = DRV2605LRegister.resetImage
    private var settings: DriveSettings
    private var stage = OutputStage()
    private var recorder: TraceRecorder
    private var pendingStart: UInt64?
    private var readyAt: UInt64 = 0
    private var routineEnd: UInt64?
    private var routineWritesResults = true
    private var drivenSinceIdle = false
    private var sequencer: Sequencer?
    private var sequencerTick: UInt64?
    private var sequencerFraction = 0.0

    /// Creates a chip fresh from power-up (registers at reset values, in standby) with an
    /// actuator at rest, at device time `startTime`.
    public init(actuator parameters: LRAParameters = .referenceExample,
                configuration: DRV2605LConfiguration = DRV2605LConfiguration(), startTime: UInt64 = 0) {
        self.configuration = configuration
        actuator = LRAModel(parameters: parameters, maxStep: Double(configuration.internalStepMicros) * 1e-6)
        settings = DriveSettings(registers: registers)
        time = startTime
        trace = SimulationTrace(samplePeriodMicros: max(1, configuration.traceSamplePeriodMicros))
        var rec = TraceRecorder(period: configuration.traceSamplePeriodMicros)
        rec.align(to: startTime)
        recorder = rec
    }

    /// What the output stage is doing now.
    public var activity: OutputActivity { settings.standby ? .off : stage.activity }

    /// The register file as it would read now (without read side effects).
    public func peek(_ register: UInt8) -> UInt8 {
        Int(register) < registers.count ? registers[Int(register)] : 0
    }

    /// Current full-scale closed-loop back-EMF target (A_CAL_BEMF / BEMF_GAIN), volts.
    public var backEMFFullScale: Double { settings.backEMFFullScale }

    // MARK: I²C

    /// I²C write: `bytes[0]` is the register, the rest are written with auto-increment.
    /// Returns 0, or a negative errno (−ENXIO for another address).
    @discardableResult
    public func write(address: UInt8 = 0x5A, bytes: [UInt8], at time: UInt64) -> Int32 {
        switch performWrite(address: address, bytes: bytes, at: time) {
        case .success: return 0
        case .failure(let e): return e.errno
        }
    }

    /// I²C write with a typed error.
    public func performWrite(address: UInt8, bytes: [UInt8], at time: UInt64) -> Result<Void, I2CError> {
        guard address == configuration.address else { return .failure(.noDevice(address: address)) }
        guard let first = bytes.first else { return .failure(.invalidTransfer) }
        advance(to: time)
        for (offset, value) in bytes.dropFirst().enumerated() {
            let reg = Int(first) + offset
            trace.registerWrites.append(RegisterWrite(time: self.time, register: UInt8(truncatingIfNeeded: reg), value: value))
            if reg < registers.count { apply(register: UInt8(reg), value: value) }
        }
        return .success(())
    }

    /// I²C read of `count` bytes starting at `register` (auto-increment). Reading STATUS clears
    /// DIAG_RESULT, FB_STS and OVER_TEMP (§1.2).
    public func read(address: UInt8 = 0x5A, register: UInt8, count: Int, at time: UInt64) -> Result<[UInt8], I2CError> {
        guard address == configuration.address else { return .failure(.noDevice(address: address)) }
        guard count > 0 else { return .failure(.invalidTransfer) }
        advance(to: time)
        refreshLiveRegisters()
        var out = [UInt8]()
        out.reserveCapacity(count)
        for i in 0..<count {
            let reg = Int(register) + i
            out.append(reg < registers.count ? registers[reg] : 0)
            if reg == Int(DRV2605LRegister.status.rawValue) {
                registers[reg] &= ~DRV2605LBits.statusClearOnRead
            }
        }
        return .success(out)
    }

    /// I²C read in the HAL's shape: (0 or a negative errno, bytes read).
    public func readStatus(address: UInt8 = 0x5A, register: UInt8, count: Int, at time: UInt64) -> (Int32, [UInt8]) {
        switch read(address: address, register: register, count: count, at: time) {
        case .success(let bytes): return (0, bytes)
        case .failure(let e): return (e.errno, [])
        }
    }

    /// Returns everything recorded so far and starts an empty trace. Long-running virtual devices
    /// call this periodically: at 1 kHz the envelopes grow by ≈ 170 MB per hour otherwise.
    public func takeTrace() -> SimulationTrace {
        let taken = trace
        trace = SimulationTrace(samplePeriodMicros: taken.samplePeriodMicros)
        return taken
    }

    // MARK: Time

    /// Whether nothing can change in the chip or the actuator until a register is written: no
    /// drive, calibration, sequence or pending start, and the actuator at rest to the last bit
    /// (``LRAModel/isAtRestOpen(upTo:)``), so that ``advance(to:)`` passes any span at once.
    public var isAtRest: Bool {
        !stage.isRunning && pendingStart == nil && routineEnd == nil && sequencerTick == nil
            && actuator.isAtRestOpen(upTo: Double(max(1, configuration.internalStepMicros)) * 1e-6)
    }

    /// Integrates chip and actuator up to `target` µs (no-op if `target` is not in the future).
    public func advance(to target: UInt64) {
        while time < target {
            handleDueEvents()
            var segmentEnd = target
            if let start = pendingStart, start > time, start < segmentEnd { segmentEnd = start }
            if let end = routineEnd, end > time, end < segmentEnd { segmentEnd = end }
            if let tick = sequencerTick, tick > time, tick < segmentEnd { segmentEnd = tick }
            runSegment(to: segmentEnd)
        }
        handleDueEvents()
    }

    private func handleDueEvents() {
        if let start = pendingStart, start <= time { beginPendingDrive() }
        if let end = routineEnd, end <= time { finishRoutine() }
        if let tick = sequencerTick, tick <= time { stepSequencer() }
    }

    /// The inner loop between two events: no register changes, so it works on local copies
    /// (no exclusivity checks, no generic calls — it has to be fast in debug builds too).
    private func runSegment(to end: UInt64) {
        let stepMicros = configuration.internalStepMicros > 0 ? configuration.internalStepMicros : 1
        let supply = configuration.supplyVoltage
        let recording = configuration.recordsEnvelopes
        let coalesce = coalescesQuietWindows
        let settings = self.settings
        let outputEnabled = !settings.standby && !settings.highZ
        let rtp = registers[Int(DRV2605LRegister.rtpInput.rawValue)]
        var actuator = self.actuator
        var stage = self.stage
        var recorder = self.recorder
        var drivenSinceIdle = self.drivenSinceIdle
        var now = time
        let bl = actuator.parameters.forceFactor
        let stepSeconds = Double(stepMicros) * 1e-6
        var steps = 0, rests = 0
        while now < end {
            if !stage.isRunning && actuator.isAtRestOpen(upTo: stepSeconds) {
                // At rest to the last bit: every step would leave the state as it is.
                drivenSinceIdle = false
                rests &+= 1
                if recording {
                    let rest = RestWindows(
                        accelerationG: actuator.caseAccelerationG, envelopeG: actuator.accelerationAmplitudeG, rtp: rtp,
                        activity: settings.standby ? .off : stage.activity, coalescing: coalesce)
                    rest.pass(from: now, to: end, recorder: &recorder, trace: &trace)
                }
                actuator.rest(for: Double(end - now) * 1e-6)
                now = end
                break
            }
            steps &+= 1
            var stepEnd = now + stepMicros
            if stepEnd > end { stepEnd = end }
            if recording && stepEnd > recorder.windowEnd { stepEnd = recorder.windowEnd }
            let dt = Double(stepEnd - now) * 1e-6

            let drive = outputEnabled ? stage.output() : (volts: 0.0, open: true)
            if !drivenSinceIdle && !drive.open && drive.volts != 0 {
                drivenSinceIdle = true
                trace.driveOnsets.append(now)
            }
            actuator.integrate(voltage: drive.volts, open: drive.open, dt: dt)
            stage.observe(velocity: actuator.velocity, forceFactor: bl, dt: dt, settings: settings, supply: supply)
            if !stage.isRunning { drivenSinceIdle = false }
            now = stepEnd
            if recording {
                recorder.accumulate(volts: drive.volts, accelerationG: actuator.caseAccelerationG,
                                    envelopeG: actuator.accelerationAmplitudeG)
                if now >= recorder.windowEnd {
                    recorder.flush(
                        into: &trace, rtp: rtp, activity: settings.standby ? .off : stage.activity, coalescingQuiet: coalesce)
                }
            }
        }
        time = now
        integrationSteps &+= steps
        restSteps &+= rests
        self.actuator = actuator
        self.stage = stage
        self.recorder = recorder
        self.drivenSinceIdle = drivenSinceIdle
    }

    // MARK: Register semantics

    private func apply(register: UInt8, value: UInt8) {
        let now = time
        switch DRV2605LRegister(rawValue: register) {
        case .status, .vbat, .lraPeriod:
            return  // read-only
        case .mode where value & DRV2605LBits.modeDevReset != 0:
            reset()
            return
        case .mode:
            let wasStandby = settings.standby
            registers[Int(register)] = value
            rebuildSettings()
            if sequencer != nil && (settings.mode != 0 || settings.standby) { stopSequencer() }
            if settings.standby {
                stopOutput()
            } else if wasStandby {
                readyAt = now + configuration.standbyExitMicros
            }
        case .go:
            if routineEnd != nil { return }  // calibration and diagnostics cannot be cancelled (§1.2)
            registers[Int(register)] = value & 1
            if value & 1 != 0 && !settings.standby && (settings.mode == 7 || settings.mode == 6) {
                startRoutine(calibrating: settings.mode == 7)
            } else if settings.mode == 0 && !settings.standby {
                if value & 1 != 0 { startSequencer() } else { stopSequencer() }
            }
        case .control4:
            let ro = registers[Int(register)] & DRV2605LBits.control4OTPStatus
            registers[Int(register)] = (value & ~DRV2605LBits.control4OTPStatus) | ro
            rebuildSettings()
        default:
            registers[Int(register)] = value
            rebuildSettings()
        }
        if settings.highZ && stage.isRunning && routineEnd == nil { stopOutput() }
        stage.settingsChanged(settings, supply: configuration.supplyVoltage)
        scheduleDriveIfRequested()
    }

    /// RTP (mode 5) drives continuously without GO (§1.2); from idle the first pulse follows
    /// after the start latency (and after standby exit).
    private func scheduleDriveIfRequested() {
        guard !stage.isRunning, pendingStart == nil, routineEnd == nil, drivesRequested else { return }
        pendingStart = max(time, readyAt) + configuration.driveStartLatencyMicros
    }

    private var drivesRequested: Bool {
        guard !settings.standby, !settings.highZ, settings.mode == 5 else { return false }
        if settings.isLRA && !settings.openLoop { return settings.closedLoopFraction > 0 }
        return settings.openLoopFraction != 0
    }

    private func beginPendingDrive() {
        pendingStart = nil
        guard !stage.isRunning, routineEnd == nil, drivesRequested else { return }
        let program: OutputStage.Program =
            !settings.isLRA ? .erm : (settings.openLoop ? .openLoop : .closedLoop)
        stage.start(program, settings: settings, supply: configuration.supplyVoltage, velocity: actuator.velocity)
    }

    private func startRoutine(calibrating: Bool) {
        pendingStart = nil
        routineWritesResults = calibrating
        let duration = calibrating
            ? settings.autoCalDuration : Double(configuration.diagnosticsMicros) * 1e-6
        routineEnd = time + UInt64((duration * 1e6).rounded())
        stage.start(.calibration, settings: settings, supply: configuration.supplyVoltage,
                    velocity: actuator.velocity, calibrationDuration: duration)
    }

    /// End of the AUTO_CAL_TIME window (or diagnostics): judge, write results, clear GO (§2.4).
    private func finishRoutine() {
        routineEnd = nil
        let halfPeriod = stage.calibrationHalfPeriodCount > 0
            ? stage.calibrationHalfPeriodSum / Double(stage.calibrationHalfPeriodCount) : nil
        let bemf = stage.calibrationBackEMFCount > 0
            ? stage.calibrationBackEMFSum / Double(stage.calibrationBackEMFCount) : 0
        let outcome = AutoCalibration.evaluate(
            isLRA: settings.isLRA, resistance: actuator.parameters.coilResistance, meanHalfPeriod: halfPeriod,
            meanBackEMF: bemf, ratedPeak: stage.calibrationRatedPeak,
            clampPeak: DRV2605LFormulas.overdriveClampPeak(code: settings.clampCode),
            supply: configuration.supplyVoltage)
        lastCalibration = outcome
        let status = Int(DRV2605LRegister.status.rawValue)
        switch outcome {
        case .success(let r):
            registers[status] &= ~DRV2605LBits.statusDiagResult
            if routineWritesResults {
                registers[Int(DRV2605LRegister.autoCalCompensation.rawValue)] = r.compensation
                registers[Int(DRV2605LRegister.autoCalBackEMF.rawValue)] = r.backEMF
                let fb = Int(DRV2605LRegister.feedbackControl.rawValue)
                registers[fb] = (registers[fb] & ~3) | r.backEMFGain
            }
        case .failure:
            registers[status] |= DRV2605LBits.statusDiagResult
        }
        registers[Int(DRV2605LRegister.go.rawValue)] = 0
        rebuildSettings()
        // Stop the buzz with the (new) calibration: brake through the closed loop when possible.
        if settings.isLRA && !settings.openLoop && settings.brakeFactor != nil {
            stage.start(.closedLoop, settings: settings, supply: configuration.supplyVoltage,
                        velocity: actuator.velocity)
        } else {
            stopOutput()
        }
    }

    // MARK: Sequencer (MODE 0 + GO)

    private func rebuildSettings() {
        settings = DriveSettings(registers: registers)
        settings.sequencerFraction = sequencerFraction
    }

    private func startSequencer() {
        let seq = Sequencer(registers: registers, at: time)
        sequencer = seq
        stepSequencer()
    }

    /// Re-reads the envelope; ends the sequence (GO self-clears) when it is over.
    private func stepSequencer() {
        guard let seq = sequencer else { sequencerTick = nil; return }
        if time >= seq.endTime {
            stopSequencer()
            return
        }
        sequencerFraction = seq.level(at: time)
        settings.sequencerFraction = sequencerFraction
        if sequencerFraction > 0, !stage.isRunning, settings.isLRA, !settings.openLoop, !settings.highZ {
            stage.start(.closedLoop, settings: settings, supply: configuration.supplyVoltage, velocity: actuator.velocity)
        }
        sequencerTick = min(time + Sequencer.tickMicros, seq.endTime)
    }

    /// End of the sequence or GO = 0: the loop brakes to a stop on its own.
    private func stopSequencer() {
        sequencer = nil
        sequencerTick = nil
        sequencerFraction = 0
        settings.sequencerFraction = 0
        registers[Int(DRV2605LRegister.go.rawValue)] = 0
    }

    /// DEV_RESET: like a power cycle — every register back to default, playback interrupted (§1.2).
    private func reset() {
        registers = DRV2605LRegister.resetImage
        stopSequencer()
        rebuildSettings()
        routineEnd = nil
        stopOutput()
    }

    private func stopOutput() {
        stage.stop()
        pendingStart = nil
        drivenSinceIdle = false
    }

    /// VBAT and LRA_PERIOD update only while driving; otherwise they keep stale values (§1.2).
    /// LRA_PERIOD is a measurement of the back-EMF's zero crossings, so it updates only while
    /// there is back-EMF to measure (at least the calibration's detection threshold): with no
    /// actuator on the outputs it keeps its reset value 0 [INF].
    private func refreshLiveRegisters() {
        guard !settings.standby, stage.activity == .driving || stage.activity == .calibrating else { return }
        registers[Int(DRV2605LRegister.vbat.rawValue)] = DRV2605LFormulas.vbatCode(supplyVolts: configuration.supplyVoltage)
        if settings.isLRA && !settings.openLoop && stage.measuredBackEMF >= AutoCalibration.minimumBackEMF {
            registers[Int(DRV2605LRegister.lraPeriod.rawValue)] = DRV2605LFormulas.periodCode(seconds: 2 * stage.halfPeriod)
        }
    }
}
