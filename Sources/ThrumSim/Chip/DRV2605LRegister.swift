/// DRV2605L register addresses (reference §1.1).
public enum DRV2605LRegister: UInt8, CaseIterable, Sendable {
    case status = 0x00
    case mode = 0x01
    case rtpInput = 0x02
    case library = 0x03
    case waveformSequence1 = 0x04
    case waveformSequence2, waveformSequence3, waveformSequence4
    case waveformSequence5, waveformSequence6, waveformSequence7, waveformSequence8
    case go = 0x0C
    case overdriveTimeOffset = 0x0D
    case sustainPositiveOffset = 0x0E
    case sustainNegativeOffset = 0x0F
    case brakeTimeOffset = 0x10
    case audioToVibeControl = 0x11
    case audioMinInput = 0x12
    case audioMaxInput = 0x13
    case audioMinDrive = 0x14
    case audioMaxDrive = 0x15
    case ratedVoltage = 0x16
    case overdriveClamp = 0x17
    case autoCalCompensation = 0x18
    case autoCalBackEMF = 0x19
    case feedbackControl = 0x1A
    case control1 = 0x1B
    case control2 = 0x1C
    case control3 = 0x1D
    case control4 = 0x1E
    case control5 = 0x1F
    case openLoopPeriod = 0x20
    case vbat = 0x21
    case lraPeriod = 0x22

    /// The DRV2605L (not the non-L DRV2605) reset value, reference §1.1 [DS-xcheck].
    /// LIBRARY resets to 0x01 per the field description; OL_LRA_PERIOD to 0x33 per register dumps.
    public var resetValue: UInt8 {
        switch self {
        case .status: return 0xE0  // DEVICE_ID 7 = DRV2605L, no flags
        case .mode: return 0x40  // STANDBY, internal trigger
        case .library: return 0x01
        case .waveformSequence1: return 0x01  // Strong Click
        case .audioToVibeControl: return 0x05
        case .audioMinInput: return 0x19
        case .audioMaxInput: return 0xFF
        case .audioMinDrive: return 0x19
        case .audioMaxDrive: return 0xFF
        case .ratedVoltage: return 0x3E
        case .overdriveClamp: return 0x8C
        case .autoCalCompensation: return 0x0C
        case .autoCalBackEMF: return 0x6C
        case .feedbackControl: return 0x36
        case .control1: return 0x93
        case .control2: return 0xF5
        case .control3: return 0xA0
        case .control4: return 0x20
        case .control5: return 0x80
        case .openLoopPeriod: return 0x33
        default: return 0x00
        }
    }

    /// Number of addressable registers (0x00–0x22); reads beyond return 0, writes are ignored.
    public static let count = 0x23

    /// The whole register file at reset, indexed by address.
    public static var resetImage: [UInt8] {
        var image = [UInt8](repeating: 0, count: count)
        for r in allCases { image[Int(r.rawValue)] = r.resetValue }
        return image
    }
}

/// Bit masks of the fields the model interprets (reference §1.2).
enum DRV2605LBits {
    static let statusDiagResult: UInt8 = 0x08
    static let statusFeedbackStatus: UInt8 = 0x04
    static let statusOverTemp: UInt8 = 0x02
    /// STATUS bits that a read clears (DIAG_RESULT, FB_STS, OVER_TEMP; §1.2).
    static let statusClearOnRead: UInt8 = 0x0E
    static let modeDevReset: UInt8 = 0x80
    static let modeStandby: UInt8 = 0x40
    static let modeMask: UInt8 = 0x07
    static let libraryHighZ: UInt8 = 0x10
    static let feedbackLRA: UInt8 = 0x80
    static let control1StartupBoost: UInt8 = 0x80
    static let control2Bidirectional: UInt8 = 0x80
    static let control2BrakeStabilizer: UInt8 = 0x40
    static let control3UnsignedRTP: UInt8 = 0x08
    static let control3LRADriveTwicePerCycle: UInt8 = 0x04
    static let control3LRAOpenLoop: UInt8 = 0x01
    static let control4OTPStatus: UInt8 = 0x04
}
