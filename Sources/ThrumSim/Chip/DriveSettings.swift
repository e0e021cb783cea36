/// The register fields the output stage needs, decoded once per register write so the inner
/// simulation loop never touches the register file.
struct DriveSettings: Sendable {
    var mode: UInt8 = 0
    var standby = true
    var highZ = false
    var isLRA = false
    var openLoop = false
    var bidirectional = true
    var unsignedRTP = false
    var rtp: UInt8 = 0
    var ratedCode: UInt8 = 0x3E
    var clampCode: UInt8 = 0x8C
    var sampleTime = 300e-6
    var loopGain = 2.0
    var brakeFactor: Double? = 4
    var startupBoost = true
    var brakeStabilizer = true
    var updateTwicePerCycle = false
    var initialHalfPeriod = 2.4e-3
    var openLoopHalfPeriod = 2.5e-3
    var zeroCrossingDetectTime = 100e-6
    var backEMFFullScale = 0.034
    var autoCalDuration = 0.6
    /// The sequencer's current envelope level (MODE 0 + GO), 0…1; set by the model, not a register.
    var sequencerFraction = 0.0

    /// Decodes the fields from a register image (reference §1.2).
    init(registers r: [UInt8]) {
        func reg(_ x: DRV2605LRegister) -> UInt8 { r[Int(x.rawValue)] }
        let mode = reg(.mode)
        self.mode = mode & DRV2605LBits.modeMask
        standby = mode & DRV2605LBits.modeStandby != 0
        highZ = reg(.library) & DRV2605LBits.libraryHighZ != 0
        let fb = reg(.feedbackControl)
        isLRA = fb & DRV2605LBits.feedbackLRA != 0
        brakeFactor = DRV2605LFormulas.brakeFactor(code: (fb >> 4) & 7)
        loopGain = DRV2605LFormulas.loopGain(code: (fb >> 2) & 3)
        backEMFFullScale = DRV2605LFormulas.backEMFFullScale(aCalBEMF: reg(.autoCalBackEMF), gainCode: fb & 3)
        let c1 = reg(.control1)
        startupBoost = c1 & DRV2605LBits.control1StartupBoost != 0
        initialHalfPeriod = DRV2605LFormulas.driveTimeHalfPeriod(code: c1 & 0x1F)
        let c2 = reg(.control2)
        bidirectional = c2 & DRV2605LBits.control2Bidirectional != 0
        brakeStabilizer = c2 & DRV2605LBits.control2BrakeStabilizer != 0
        sampleTime = DRV2605LFormulas.sampleTime(code: (c2 >> 4) & 3)
        let c3 = reg(.control3)
        unsignedRTP = c3 & DRV2605LBits.control3UnsignedRTP != 0
        updateTwicePerCycle = c3 & DRV2605LBits.control3LRADriveTwicePerCycle != 0
        openLoop = c3 & DRV2605LBits.control3LRAOpenLoop != 0
        let c4 = reg(.control4)
        zeroCrossingDetectTime = DRV2605LFormulas.zeroCrossingDetectTime(code: c4 >> 6)
        autoCalDuration = DRV2605LFormulas.autoCalibrationDuration(code: (c4 >> 4) & 3)
        let period = max(1, Double(reg(.openLoopPeriod) & 0x7F))
        openLoopHalfPeriod = period * DRV2605LFormulas.periodLSB / 2
        rtp = reg(.rtpInput)
        ratedCode = reg(.ratedVoltage)
        clampCode = reg(.overdriveClamp)
    }

    /// The closed-loop amplitude target 0…1: the RTP byte in mode 5, the sequencer's envelope in
    /// mode 0, nothing otherwise.
    var driveFraction: Double {
        switch mode {
        case 5: return closedLoopFraction
        case 0: return sequencerFraction
        default: return 0
        }
    }

    /// The RTP byte as a closed-loop amplitude fraction 0…1 (reference §1.3).
    ///
    /// Bidirectional: only the upper half of the scale drives (signed 0x00…0x7F, unsigned
    /// 0x80…0xFF map to 0…100 %). Unidirectional: the whole byte maps to 0…100 %; for the signed
    /// format that is −128 → 0 %, +127 → 100 % [INF, from "think of the byte as % of full scale"].
    var closedLoopFraction: Double {
        if !bidirectional {
            // 0…1 "percentage of full scale" of §1.3.
            return unsignedRTP ? Double(rtp) / 255 : (Double(Int8(bitPattern: rtp)) + 128) / 255
        }
        if unsignedRTP { return max(0, Double(Int(rtp) - 128) / 127) }
        return max(0, Double(Int8(bitPattern: rtp)) / 127)
    }

    /// The RTP byte as a signed open-loop / ERM drive fraction −1…1: 50 % of scale = no drive,
    /// below drives in antiphase (open loop is always bidirectional, §1.3).
    var openLoopFraction: Double {
        if unsignedRTP { return max(-1, Double(Int(rtp) - 128) / 127) }
        return max(-1, Double(Int8(bitPattern: rtp)) / 127)
    }
}
