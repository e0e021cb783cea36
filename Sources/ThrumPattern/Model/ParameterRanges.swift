extension HapticEvent.ParameterID {
    /// The value range Core Haptics' headers give for this parameter; values outside are clamped.
    /// Unknown IDs get 0…1.
    public var valueRange: ClosedRange<Float> {
        switch self {
        case .audioPitch, .audioPan: return -1...1
        default: return 0...1
        }
    }
}

extension HapticDynamicParameter.ID {
    /// The value range of this control: 0…1 for the multiplicative ones (haptic intensity,
    /// audio volume), −1…1 for the additive ones.
    public var valueRange: ClosedRange<Float> {
        isMultiplicative ? 0...1 : -1...1
    }

    /// Whether the control multiplies the event value (intensity, volume) rather than adding to it.
    public var isMultiplicative: Bool {
        self == .hapticIntensityControl || self == .audioVolumeControl
    }

    /// The value that leaves events unchanged: 1 for multiplicative controls, 0 otherwise.
    public var neutralValue: Float { isMultiplicative ? 1 : 0 }

    /// Whether the control affects haptic events (true) or audio events (false).
    public var isHaptic: Bool { rawValue.hasPrefix("Haptic") }
}
