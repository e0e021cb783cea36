import ThrumPattern

/// The common part of the feedback generators, shaped like `UIFeedbackGenerator`.
///
/// Triggering is a request, not a guarantee: the methods never throw. A failure (engine not
/// running, device gone…) goes to ``errorHandler`` and ``lastError`` so the caller may ignore it
/// without its own result changing.
public class FeedbackGenerator {
    /// What the generator plays through (an engine, or a ``RecordingHapticPlayer`` in tests).
    public let player: any HapticPlaying
    /// Called with every failure to prepare or play.
    public var errorHandler: ((Error) -> Void)?
    /// The latest failure, nil after a success.
    public private(set) var lastError: Error?

    init(player: any HapticPlaying) { self.player = player }

    /// The request ``prepare()`` readies.
    var preparedRequest: HapticRequest { HapticRequest(presetName: "selection") }

    /// Puts the device into a ready, low-latency state for a few seconds (call it a beat before
    /// the feedback, like `UIFeedbackGenerator.prepare()`).
    public func prepare() {
        perform { try player.prepare(preparedRequest) }
    }

    func trigger(_ request: HapticRequest) {
        perform { try player.play(request) }
    }

    private func perform(_ body: () throws -> Void) {
        do {
            try body()
            lastError = nil
        } catch {
            lastError = error
            errorHandler?(error)
        }
    }
}

/// `UIImpactFeedbackGenerator`: a physical impact.
public final class ImpactFeedbackGenerator: FeedbackGenerator {
    /// `UIImpactFeedbackGenerator.FeedbackStyle` (same raw values).
    public enum FeedbackStyle: Int, Sendable, CaseIterable {
        case light, medium, heavy, soft, rigid

        /// The preset name (`impact.light` …).
        public var presetName: String {
            switch self {
            case .light: return "impact.light"
            case .medium: return "impact.medium"
            case .heavy: return "impact.heavy"
            case .soft: return "impact.soft"
            case .rigid: return "impact.rigid"
            }
        }
    }

    public let style: FeedbackStyle

    /// A generator of `style` impacts played through `player`.
    public init(style: FeedbackStyle = .medium, player: any HapticPlaying) {
        self.style = style
        super.init(player: player)
    }

    override var preparedRequest: HapticRequest { HapticRequest(presetName: style.presetName) }

    /// Plays the impact at full intensity.
    public func impactOccurred() { trigger(HapticRequest(presetName: style.presetName)) }

    /// Plays the impact at `intensity` (clamped to 0…1, like UIKit).
    public func impactOccurred(intensity: Double) {
        let clamped = intensity.isNaN ? 1 : min(1, max(0, intensity))
        trigger(HapticRequest(presetName: style.presetName, intensity: Float(clamped)))
    }
}

/// `UISelectionFeedbackGenerator`: the selection changed.
public final class SelectionFeedbackGenerator: FeedbackGenerator {
    public override init(player: any HapticPlaying) { super.init(player: player) }

    /// Plays the selection tick.
    public func selectionChanged() { trigger(HapticRequest(presetName: "selection")) }
}

/// `UINotificationFeedbackGenerator`: a task succeeded, warned or failed.
public final class NotificationFeedbackGenerator: FeedbackGenerator {
    /// `UINotificationFeedbackGenerator.FeedbackType` (same raw values).
    public enum FeedbackType: Int, Sendable, CaseIterable {
        case success, warning, error

        public var presetName: String {
            switch self {
            case .success: return "notification.success"
            case .warning: return "notification.warning"
            case .error: return "notification.error"
            }
        }
    }

    public override init(player: any HapticPlaying) { super.init(player: player) }

    override var preparedRequest: HapticRequest { HapticRequest(presetName: "notification.success") }

    /// Plays the notification of `notificationType`.
    public func notificationOccurred(_ notificationType: FeedbackType) {
        trigger(HapticRequest(presetName: notificationType.presetName))
    }
}
