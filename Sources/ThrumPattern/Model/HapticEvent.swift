/// One haptic or audio event of a pattern, shaped like Core Haptics' `CHHapticEvent`.
///
/// Times are seconds relative to the start of the pattern (`relativeTime`), as in AHAP's `Time`.
public struct HapticEvent: Equatable, Sendable {
    /// The kind of event, shaped like `CHHapticEvent.EventType`; the raw value is the AHAP string.
    public struct EventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A short, fixed-shape impulse (a tap).
        public static let hapticTransient = EventType(rawValue: "HapticTransient")
        /// A sustained vibration of a given duration.
        public static let hapticContinuous = EventType(rawValue: "HapticContinuous")
        /// A looped system audio waveform (kept, not played by the actuator).
        public static let audioContinuous = EventType(rawValue: "AudioContinuous")
        /// A custom audio file (kept, not played by the actuator).
        public static let audioCustom = EventType(rawValue: "AudioCustom")
        /// Every event type the AHAP format defines.
        public static let allKnown: [EventType] = [.hapticTransient, .hapticContinuous, .audioContinuous, .audioCustom]
        /// Whether the actuator plays this event (haptic) or it is kept for a host audio sink (audio).
        public var isHaptic: Bool { self == .hapticTransient || self == .hapticContinuous }
        public var description: String { rawValue }
    }

    /// An event parameter identifier, shaped like `CHHapticEvent.ParameterID`; the raw value is the AHAP string.
    public struct ParameterID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let hapticIntensity = ParameterID(rawValue: "HapticIntensity")
        public static let hapticSharpness = ParameterID(rawValue: "HapticSharpness")
        public static let attackTime = ParameterID(rawValue: "AttackTime")
        public static let decayTime = ParameterID(rawValue: "DecayTime")
        public static let releaseTime = ParameterID(rawValue: "ReleaseTime")
        public static let sustained = ParameterID(rawValue: "Sustained")
        public static let audioVolume = ParameterID(rawValue: "AudioVolume")
        public static let audioPitch = ParameterID(rawValue: "AudioPitch")
        public static let audioPan = ParameterID(rawValue: "AudioPan")
        public static let audioBrightness = ParameterID(rawValue: "AudioBrightness")
        /// Every event parameter the AHAP format defines.
        public static let allKnown: [ParameterID] = [
            .hapticIntensity, .hapticSharpness, .attackTime, .decayTime, .releaseTime, .sustained,
            .audioVolume, .audioPitch, .audioPan, .audioBrightness,
        ]
        public var description: String { rawValue }
    }

    /// Options of an `AudioCustom` event's waveform (AHAP `EventWaveform…` keys).
    public struct Waveform: Equatable, Sendable {
        /// `EventWaveformPath`: the audio file, as written in the file.
        public var path: String
        /// `EventWaveformUseVolumeEnvelope` (default true).
        public var useVolumeEnvelope: Bool
        /// `EventWaveformLoopEnabled` (default false).
        public var loopEnabled: Bool
        public init(path: String, useVolumeEnvelope: Bool = true, loopEnabled: Bool = false) {
            self.path = path
            self.useVolumeEnvelope = useVolumeEnvelope
            self.loopEnabled = loopEnabled
        }
    }

    /// The kind of event.
    public var type: EventType
    /// The event's parameters, fixed for its life.
    public var eventParameters: [HapticEventParameter]
    /// Start time in seconds, relative to the pattern's start.
    public var relativeTime: Double
    /// Duration in seconds (0 for a transient unless it pads the pattern).
    public var duration: Double
    /// The audio file of an `AudioCustom` event.
    public var waveform: Waveform?
    /// The registered audio resource an `AudioCustom` event plays (``init(audioResourceID:parameters:relativeTime:duration:)``),
    /// nil for events from files. AHAP cannot carry it: the writer leaves such events' sound out.
    public var audioResourceID: Int?

    /// Creates an event that needs no duration (a transient), like `CHHapticEvent(eventType:parameters:relativeTime:)`.
    public init(eventType: EventType, parameters: [HapticEventParameter], relativeTime: Double) {
        self.init(eventType: eventType, parameters: parameters, relativeTime: relativeTime, duration: 0)
    }

    /// Creates an event with a duration, like `CHHapticEvent(eventType:parameters:relativeTime:duration:)`.
    public init(eventType: EventType, parameters: [HapticEventParameter], relativeTime: Double, duration: Double) {
        self.type = eventType
        self.eventParameters = parameters
        self.relativeTime = relativeTime
        self.duration = duration
        self.waveform = nil
        self.audioResourceID = nil
    }

    /// Creates an `AudioCustom` event that plays a registered audio resource, like
    /// `CHHapticEvent(audioResourceID:parameters:relativeTime:duration:)`: a shorter `duration`
    /// truncates the sound, 0 plays all of it.
    public init(audioResourceID: Int, parameters: [HapticEventParameter], relativeTime: Double, duration: Double = 0) {
        self.type = .audioCustom
        self.eventParameters = parameters
        self.relativeTime = relativeTime
        self.duration = duration
        self.waveform = nil
        self.audioResourceID = audioResourceID
    }

    /// Creates an `AudioCustom` event that plays an audio file (kept, not played by the actuator).
    public init(audioWaveform: Waveform, parameters: [HapticEventParameter], relativeTime: Double, duration: Double = 0) {
        self.type = .audioCustom
        self.eventParameters = parameters
        self.relativeTime = relativeTime
        self.duration = duration
        self.waveform = audioWaveform
        self.audioResourceID = nil
    }

    /// The value of parameter `id` if the event sets it (the last one wins when repeated).
    public func value(of id: ParameterID) -> Float? {
        eventParameters.last(where: { $0.parameterID == id })?.value
    }
}

/// A parameter fixed for the life of one event, shaped like `CHHapticEventParameter`.
public struct HapticEventParameter: Equatable, Sendable {
    public var parameterID: HapticEvent.ParameterID
    public var value: Float
    public init(parameterID: HapticEvent.ParameterID, value: Float) {
        self.parameterID = parameterID
        self.value = value
    }
}
