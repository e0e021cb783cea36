/// Error codes shaped like `CHHapticError.Code`: Apple's names and raw values
/// (domain `com.apple.CoreHaptics`).
public enum HapticErrorCode: Int, Sendable, CaseIterable, CustomStringConvertible {
    case engineNotRunning = -4805
    case operationNotPermitted = -4806
    case engineStartTimeout = -4808
    case notSupported = -4809
    case serverInitFailed = -4810
    case serverInterrupted = -4811
    case invalidPatternPlayer = -4812
    case invalidPatternData = -4813
    case invalidPatternDictionary = -4814
    case invalidAudioSession = -4815
    case invalidEngineParameter = -4816
    case invalidParameterType = -4820
    case invalidEventType = -4821
    case invalidEventTime = -4822
    case invalidEventDuration = -4823
    case invalidAudioResource = -4824
    case resourceNotAvailable = -4825
    case badEventEntry = -4830
    case badParameterEntry = -4831
    case invalidTime = -4840
    case fileNotFound = -4851
    case insufficientPower = -4897
    case unknownError = -4898
    case memoryError = -4899

    /// Apple's case name followed by the raw value, e.g. `invalidEventTime (-4822)`.
    public var description: String { "\(name) (\(rawValue))" }

    /// Apple's case name, e.g. `invalidEventTime`.
    public var name: String {
        switch self {
        case .engineNotRunning: return "engineNotRunning"
        case .operationNotPermitted: return "operationNotPermitted"
        case .engineStartTimeout: return "engineStartTimeout"
        case .notSupported: return "notSupported"
        case .serverInitFailed: return "serverInitFailed"
        case .serverInterrupted: return "serverInterrupted"
        case .invalidPatternPlayer: return "invalidPatternPlayer"
        case .invalidPatternData: return "invalidPatternData"
        case .invalidPatternDictionary: return "invalidPatternDictionary"
        case .invalidAudioSession: return "invalidAudioSession"
        case .invalidEngineParameter: return "invalidEngineParameter"
        case .invalidParameterType: return "invalidParameterType"
        case .invalidEventType: return "invalidEventType"
        case .invalidEventTime: return "invalidEventTime"
        case .invalidEventDuration: return "invalidEventDuration"
        case .invalidAudioResource: return "invalidAudioResource"
        case .resourceNotAvailable: return "resourceNotAvailable"
        case .badEventEntry: return "badEventEntry"
        case .badParameterEntry: return "badParameterEntry"
        case .invalidTime: return "invalidTime"
        case .fileNotFound: return "fileNotFound"
        case .insufficientPower: return "insufficientPower"
        case .unknownError: return "unknownError"
        case .memoryError: return "memoryError"
        }
    }
}
