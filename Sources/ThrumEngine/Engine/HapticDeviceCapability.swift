import ThrumPattern

/// What the connected hardware can play, shaped like `CHHapticDeviceCapability`
/// (``HapticEngine/capabilitiesForHardware()``).
public struct HapticDeviceCapability: Sendable {
    /// The engine is connected to a device (whose driver drives an actuator).
    public var supportsHaptics: Bool
    /// Thrum plays no audio yet: false.
    public var supportsAudio: Bool
    /// What the device said of itself (CAPABILITIES), nil before it was connected.
    public var device: DeviceCapabilities?

    /// Creates a capability record.
    public init(supportsHaptics: Bool, supportsAudio: Bool, device: DeviceCapabilities?) {
        self.supportsHaptics = supportsHaptics
        self.supportsAudio = supportsAudio
        self.device = device
    }

    /// The range and default of an event parameter for an event type, as
    /// `attributes(forEventParameter:eventType:)`: the ranges of Core Haptics' headers
    /// (normalised, so the same on every actuator — the profile maps them to the driver), the
    /// defaults the compiler uses.
    /// - Throws: `invalidParameterType` (−4820) for a parameter the event type does not take.
    public func attributes(
        forEventParameter parameter: HapticEvent.ParameterID, eventType: HapticEvent.EventType
    ) throws -> HapticParameterAttributes {
        let haptic: Set<HapticEvent.ParameterID> = [.hapticIntensity, .hapticSharpness, .attackTime, .decayTime, .releaseTime, .sustained]
        let audio: Set<HapticEvent.ParameterID> = [
            .audioVolume, .audioPitch, .audioPan, .audioBrightness, .attackTime, .decayTime, .releaseTime, .sustained,
        ]
        guard (eventType.isHaptic ? haptic : audio).contains(parameter) else {
            throw HapticError(.invalidParameterType, "\(parameter.rawValue) is not a parameter of \(eventType.rawValue) events")
        }
        let range = parameter.valueRange
        let defaults: [HapticEvent.ParameterID: Float] = [
            .hapticIntensity: 1, .hapticSharpness: 0.5, .sustained: 1, .audioVolume: 1, .audioBrightness: 1,
        ]
        return HapticParameterAttributes(minValue: range.lowerBound, maxValue: range.upperBound, defaultValue: defaults[parameter] ?? 0)
    }

    /// The range and neutral value of a dynamic parameter, as `attributes(forDynamicParameter:)`.
    public func attributes(forDynamicParameter parameter: HapticDynamicParameter.ID) -> HapticParameterAttributes {
        let range = parameter.valueRange
        return HapticParameterAttributes(minValue: range.lowerBound, maxValue: range.upperBound, defaultValue: parameter.neutralValue)
    }
}

/// A parameter's range and default (`CHHapticParameterAttributes`).
public struct HapticParameterAttributes: Equatable, Sendable {
    public var minValue: Float
    public var maxValue: Float
    public var defaultValue: Float

    /// Creates the attributes.
    public init(minValue: Float, maxValue: Float, defaultValue: Float) {
        self.minValue = minValue
        self.maxValue = maxValue
        self.defaultValue = defaultValue
    }
}

extension HapticEngine {
    /// What this engine's device can play (`CHHapticEngine.capabilitiesForHardware()`, asked of
    /// the engine: Thrum's hardware is the device it is connected to). Before ``start()`` the
    /// device is not known yet: `supportsHaptics` is false. `supportsAudio` is whether the engine
    /// has an audio path (``audio``, a sound device).
    public func capabilitiesForHardware() -> HapticDeviceCapability {
        HapticDeviceCapability(supportsHaptics: isRunning && session.identity != nil, supportsAudio: audio != nil, device: capabilities)
    }
}
