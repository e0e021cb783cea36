/// One system ("semantic") haptic: an Apple feedback-generator or feedback-type case, or one
/// effect of the DRV2605L's ROM library, with what Thrum plays for it.
///
/// Apple presets play a `HapticPattern` that Thrum designed from Apple's public descriptions
/// (Apple does not publish its waveforms; see docs/presets.md). ROM effects are played by the
/// driver chip's own sequencer and are described by a `ROMEffect`.
public struct SystemPreset: Equatable, Sendable {
    /// Where a preset comes from.
    public enum Family: String, Equatable, Sendable, CaseIterable {
        /// UIKit `UIImpactFeedbackGenerator`, `UISelectionFeedbackGenerator`,
        /// `UINotificationFeedbackGenerator`, `UICanvasFeedbackGenerator`.
        case uiKit
        /// SwiftUI `SensoryFeedback`.
        case swiftUI
        /// watchOS `WKHapticType`.
        case watchOS
        /// macOS `NSHapticFeedbackManager.FeedbackPattern`.
        case macOS
        /// The DRV2605L ROM effect library (IDs 1…123).
        case drv2605lROM
    }

    /// How to play a preset.
    public enum Content: Equatable, Sendable {
        /// A Core Haptics pattern, compiled and streamed like any other pattern.
        case pattern(HapticPattern)
        /// A DRV2605L ROM library effect, played by the driver's own sequencer (waveform ID 1…123).
        case romEffect(id: UInt8)
    }

    /// The command-line name, e.g. `impact.heavy`, `sensory.levelChange`, `rom.1`.
    public let name: String
    /// Other names that find this preset, e.g. `rom.strong-click-100` for `rom.1`.
    public let aliases: [String]
    /// Where the preset comes from.
    public let family: Family
    /// One line saying what the preset means (Apple's intent, or TI's effect name).
    public let summary: String
    /// The call it stands for, e.g. `UIImpactFeedbackGenerator(style: .heavy).impactOccurred(intensity:)`,
    /// or the driver operation for a ROM effect.
    public let api: String
    /// The preset whose content this one shares because Apple's semantics coincide (e.g.
    /// `sensory.success` plays `notification.success`), or nil when it has its own design.
    public let sameAs: String?
    /// Whether the preset takes an intensity 0…1 (the impact styles, like `impactOccurred(intensity:)`).
    public let acceptsIntensity: Bool
    /// What plays at full intensity.
    public let content: Content

    /// Creates a preset.
    public init(
        name: String, aliases: [String] = [], family: Family, summary: String, api: String,
        sameAs: String? = nil, acceptsIntensity: Bool = false, content: Content
    ) {
        self.name = name
        self.aliases = aliases
        self.family = family
        self.summary = summary
        self.api = api
        self.sameAs = sameAs
        self.acceptsIntensity = acceptsIntensity
        self.content = content
    }

    /// The pattern, when the preset plays one (nil for ROM effects).
    public var pattern: HapticPattern? {
        if case .pattern(let p) = content { return p }
        return nil
    }

    /// The ROM effect, when the preset is one (nil for Apple presets).
    public var romEffect: ROMEffect? {
        if case .romEffect(let id) = content { return ROMEffect.effect(id: id) }
        return nil
    }

    /// Roughly how long the preset is felt, in seconds, for listings and previews: for a pattern,
    /// the latest event end counting each transient as `nominalTransientLength`; for a ROM effect,
    /// its approximate envelope's duration. Core Haptics' own `HapticPattern.duration` gives a lone
    /// transient 0 s; this estimate does not.
    public var approximateDuration: Double {
        switch content {
        case .pattern(let p):
            return p.events.reduce(p.duration) { end, e in
                max(end, e.relativeTime + (e.type == .hapticTransient ? max(e.duration, Self.nominalTransientLength) : e.duration))
            }
        case .romEffect(let id):
            return ROMEffect.effect(id: id)?.envelope.duration ?? 0
        }
    }

    /// The length a transient is counted as in `approximateDuration` (20 ms: a few cycles of a
    /// 150–235 Hz LRA plus braking). An estimate for listings, not what the compiler plays.
    public static let nominalTransientLength = 0.020

    /// What to play at `intensity` (0…1, nil meaning 1), like `impactOccurred(intensity:)`: every
    /// event's `HapticIntensity` is multiplied by `intensity`.
    ///
    /// - Throws: `PresetError.intensityNotAccepted` when an intensity is given to a preset that takes
    ///   none (only the impact styles do, as in UIKit and SwiftUI); `PresetError.intensityOutOfRange`
    ///   when it is outside 0…1 or not a number.
    public func content(intensity: Float?) throws(PresetError) -> Content {
        guard let intensity else { return content }
        guard acceptsIntensity else { throw .intensityNotAccepted(preset: name) }
        guard intensity >= 0, intensity <= 1 else { throw .intensityOutOfRange(intensity, preset: name) }
        guard intensity != 1, case .pattern(let p) = content else { return content }
        return .pattern(p.scalingIntensity(by: intensity))
    }
}

extension HapticPattern {
    /// The pattern with every haptic event's `HapticIntensity` multiplied by `factor` (events
    /// without the parameter get Thrum's default of 1, then scaled).
    func scalingIntensity(by factor: Float) -> HapticPattern {
        var copy = self
        for i in copy.events.indices where copy.events[i].type.isHaptic {
            var params = copy.events[i].eventParameters
            if let j = params.lastIndex(where: { $0.parameterID == .hapticIntensity }) {
                params[j].value *= factor
            } else {
                params.append(HapticEventParameter(parameterID: .hapticIntensity, value: factor))
            }
            copy.events[i].eventParameters = params
        }
        return copy
    }
}
