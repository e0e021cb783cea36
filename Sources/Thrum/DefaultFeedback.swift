import Foundation
import ThrumEngine

/// What a feedback generator made without a player plays through: an engine of its own on the
/// default device (``DefaultDevice/choose(environment:)``), shared with every other engine and
/// generator of the process on that device (``DeviceRegistry``). The engine is made and started
/// on the generator's first `prepare()` or trigger; a device that cannot be opened is a failure of
/// that call (the generator's `errorHandler` and `lastError`), tried again on the next.
public final class DefaultDevicePlayer: HapticPlaying, @unchecked Sendable {
    private let lock = NSLock()
    private var made: HapticEngine?
    private let choice: DefaultDevice?

    /// A player on `choice` (nil: the default device, ``DeviceRegistry/defaultDevice()``, when first used).
    public init(device choice: DefaultDevice? = nil) {
        self.choice = choice
    }

    /// The engine, once made (nil before the first prepare or trigger, or when the device failed).
    public var engine: HapticEngine? {
        lock.lock()
        defer { lock.unlock() }
        return made
    }

    /// The engine, made and started if needed.
    public func startedEngine() throws -> HapticEngine {
        lock.lock()
        defer { lock.unlock() }
        let engine = try made ?? (choice.map { try HapticEngine(device: $0) } ?? HapticEngine())
        made = engine
        if !engine.isRunning { try engine.start() }
        return engine
    }

    public func prepare(_ request: HapticRequest) throws { try startedEngine().prepare(request) }
    public func play(_ request: HapticRequest) throws { try startedEngine().play(request) }
}

extension ImpactFeedbackGenerator {
    /// `UIImpactFeedbackGenerator(style:)` and `init()`: impacts of `style` on the default device.
    public convenience init(style: FeedbackStyle = .medium) {
        self.init(style: style, player: DefaultDevicePlayer())
    }

    /// iOS 17.5's `UIImpactFeedbackGenerator(style:view:)`. A view says where on the screen the
    /// feedback belongs; a Thrum device has one actuator, so `view` is accepted and ignored and the
    /// generator plays on the default device.
    public convenience init(style: FeedbackStyle = .medium, view: AnyObject?) {
        self.init(style: style)
    }

    /// iOS 17.5's `impactOccurred(at:)`: the location is ignored (one actuator).
    public func impactOccurred(at location: CGPoint) { impactOccurred() }

    /// iOS 17.5's `impactOccurred(intensity:at:)`: the location is ignored (one actuator).
    public func impactOccurred(intensity: Double, at location: CGPoint) { impactOccurred(intensity: intensity) }
}

extension SelectionFeedbackGenerator {
    /// `UISelectionFeedbackGenerator()`: selection ticks on the default device.
    public convenience init() { self.init(player: DefaultDevicePlayer()) }

    /// iOS 17.5's `UISelectionFeedbackGenerator(view:)`: `view` accepted and ignored (one actuator).
    public convenience init(view: AnyObject?) { self.init() }

    /// iOS 17.5's `selectionChanged(at:)`: the location is ignored (one actuator).
    public func selectionChanged(at location: CGPoint) { selectionChanged() }
}

extension NotificationFeedbackGenerator {
    /// `UINotificationFeedbackGenerator()`: notifications on the default device.
    public convenience init() { self.init(player: DefaultDevicePlayer()) }

    /// iOS 17.5's `UINotificationFeedbackGenerator(view:)`: `view` accepted and ignored (one actuator).
    public convenience init(view: AnyObject?) { self.init() }

    /// iOS 17.5's `notificationOccurred(_:at:)`: the location is ignored (one actuator).
    public func notificationOccurred(_ notificationType: FeedbackType, at location: CGPoint) {
        notificationOccurred(notificationType)
    }
}
