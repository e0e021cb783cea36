extension HapticPattern {
    /// The keys of an AHAP document, shaped like `CHHapticPattern.Key` (raw value = AHAP key).
    public struct Key: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let version = Key(rawValue: "Version")
        /// Free-form metadata (not a Core Haptics key; kept verbatim on round trips).
        public static let metadata = Key(rawValue: "Metadata")
        public static let pattern = Key(rawValue: "Pattern")
        public static let event = Key(rawValue: "Event")
        public static let eventType = Key(rawValue: "EventType")
        public static let time = Key(rawValue: "Time")
        /// Legacy alias of `time` inside an `Event`.
        public static let eventTime = Key(rawValue: "EventTime")
        public static let eventDuration = Key(rawValue: "EventDuration")
        public static let eventParameters = Key(rawValue: "EventParameters")
        public static let eventWaveformPath = Key(rawValue: "EventWaveformPath")
        public static let eventWaveformUseVolumeEnvelope = Key(rawValue: "EventWaveformUseVolumeEnvelope")
        public static let eventWaveformLoopEnabled = Key(rawValue: "EventWaveformLoopEnabled")
        public static let parameter = Key(rawValue: "Parameter")
        public static let parameterID = Key(rawValue: "ParameterID")
        public static let parameterValue = Key(rawValue: "ParameterValue")
        /// Legacy alias of `time` inside a `Parameter` (also accepted in a `ParameterCurve`).
        public static let parameterTime = Key(rawValue: "ParameterTime")
        public static let parameterCurve = Key(rawValue: "ParameterCurve")
        public static let parameterCurveControlPoints = Key(rawValue: "ParameterCurveControlPoints")
    }
}
