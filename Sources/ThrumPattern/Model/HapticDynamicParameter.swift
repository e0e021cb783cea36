/// A step change of a pattern-wide control at a time, shaped like `CHHapticDynamicParameter`.
public struct HapticDynamicParameter: Equatable, Sendable {
    /// A dynamic parameter identifier, shaped like `CHHapticDynamicParameter.ID`; the raw value is the AHAP string.
    public struct ID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let hapticIntensityControl = ID(rawValue: "HapticIntensityControl")
        public static let hapticSharpnessControl = ID(rawValue: "HapticSharpnessControl")
        public static let hapticAttackTimeControl = ID(rawValue: "HapticAttackTimeControl")
        public static let hapticDecayTimeControl = ID(rawValue: "HapticDecayTimeControl")
        public static let hapticReleaseTimeControl = ID(rawValue: "HapticReleaseTimeControl")
        public static let audioVolumeControl = ID(rawValue: "AudioVolumeControl")
        public static let audioPanControl = ID(rawValue: "AudioPanControl")
        public static let audioBrightnessControl = ID(rawValue: "AudioBrightnessControl")
        public static let audioPitchControl = ID(rawValue: "AudioPitchControl")
        public static let audioAttackTimeControl = ID(rawValue: "AudioAttackTimeControl")
        public static let audioDecayTimeControl = ID(rawValue: "AudioDecayTimeControl")
        public static let audioReleaseTimeControl = ID(rawValue: "AudioReleaseTimeControl")
        /// Every dynamic parameter the AHAP format defines.
        public static let allKnown: [ID] = [
            .hapticIntensityControl, .hapticSharpnessControl, .hapticAttackTimeControl,
            .hapticDecayTimeControl, .hapticReleaseTimeControl, .audioVolumeControl, .audioPanControl,
            .audioBrightnessControl, .audioPitchControl, .audioAttackTimeControl, .audioDecayTimeControl,
            .audioReleaseTimeControl,
        ]
        public var description: String { rawValue }
    }

    public var parameterID: ID
    public var value: Float
    /// Seconds relative to the pattern's start (or to `atTime` when sent to a player).
    public var relativeTime: Double

    public init(parameterID: ID, value: Float, relativeTime: Double) {
        self.parameterID = parameterID
        self.value = value
        self.relativeTime = relativeTime
    }
}

/// A linear ramp of a pattern-wide control, shaped like `CHHapticParameterCurve`.
public struct HapticParameterCurve: Equatable, Sendable {
    /// One point of a curve, shaped like `CHHapticParameterCurve.ControlPoint`.
    public struct ControlPoint: Equatable, Sendable {
        /// Seconds relative to the curve's `relativeTime` (Apple's rule).
        public var relativeTime: Double
        public var value: Float
        public init(relativeTime: Double, value: Float) {
            self.relativeTime = relativeTime
            self.value = value
        }
    }

    public var parameterID: HapticDynamicParameter.ID
    public var controlPoints: [ControlPoint]
    /// Seconds relative to the pattern's start.
    public var relativeTime: Double

    public init(parameterID: HapticDynamicParameter.ID, controlPoints: [ControlPoint], relativeTime: Double) {
        self.parameterID = parameterID
        self.controlPoints = controlPoints
        self.relativeTime = relativeTime
    }
}
