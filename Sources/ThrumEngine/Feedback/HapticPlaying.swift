import ThrumPattern

/// One request to a ``HapticPlaying``: a system preset by name at an intensity (what the feedback
/// generators ask for), or a custom pattern (what an app's own haptic manager plays).
public struct HapticRequest: Equatable, Sendable, CustomStringConvertible {
    /// The preset's catalogue name, e.g. `impact.heavy`, `selection`, `notification.error`; empty
    /// for a custom pattern.
    public var presetName: String
    /// The intensity asked for (`impactOccurred(intensity:)`), nil for the preset's default.
    public var intensity: Float?
    /// The custom pattern, nil for a preset.
    public var pattern: HapticPattern?

    /// A preset request.
    public init(presetName: String, intensity: Float? = nil) {
        self.presetName = presetName
        self.intensity = intensity
    }

    /// A custom pattern request.
    public init(pattern: HapticPattern) {
        self.presetName = ""
        self.pattern = pattern
    }

    /// What the request plays: the custom pattern, or the preset at that intensity (from `SystemPresets`).
    public func content() throws -> SystemPreset.Content {
        if let pattern { return .pattern(pattern) }
        do {
            return try SystemPresets.pattern(for: presetName, intensity: intensity)
        } catch {
            throw HapticError(.invalidPatternData, "\(error)")
        }
    }

    public var description: String {
        if let pattern { return "custom pattern (\(pattern.events.count) events, \(pattern.duration) s)" }
        return intensity.map { "\(presetName) @\($0)" } ?? presetName
    }
}

/// What feedback generators play through. The engine is one; tests substitute a
/// ``RecordingHapticPlayer`` to check an app's haptic contract without hardware.
public protocol HapticPlaying: AnyObject {
    /// Gets ready to play `request` with low latency (a hint; may do nothing).
    func prepare(_ request: HapticRequest) throws
    /// Plays `request` now.
    func play(_ request: HapticRequest) throws
}

extension HapticEngine: HapticPlaying {
    /// Prepares the engine (see ``prepare()``) and preloads the request's pattern on the device
    /// (``prepare(_:)-(HapticPattern)``), so that the next ``play(_:)`` of the same request is a
    /// few-byte GO. A ROM effect preset needs no preload (the driver holds it).
    public func prepare(_ request: HapticRequest) throws {
        switch try request.content() {
        case .pattern(let pattern): try prepare(pattern)
        case .romEffect: try prepare()
        }
    }

    /// Plays the request's preset once, now (starting the engine if needed).
    public func play(_ request: HapticRequest) throws {
        switch try request.content() {
        case .pattern(let pattern):
            try playPattern(from: pattern)
        case .romEffect(let id):
            try playROMEffect(Int(id))
        }
    }
}

extension HapticPlaying {
    /// Plays a custom pattern now (``HapticRequest/init(pattern:)``): an app's haptic manager
    /// calls this, and a test hands it a ``RecordingHapticPlayer`` to see the patterns it played.
    public func play(pattern: HapticPattern) throws { try play(HapticRequest(pattern: pattern)) }
    /// Gets ready to play a custom pattern (a preload on the device).
    public func prepare(pattern: HapticPattern) throws { try prepare(HapticRequest(pattern: pattern)) }
}

/// A ``HapticPlaying`` that records what was asked of it and plays nothing: hand it to the
/// feedback generators in a unit test and assert on ``requests``. Set ``failure`` to make every
/// play fail, to check that a failed haptic does not change the app's own result.
public final class RecordingHapticPlayer: HapticPlaying {
    /// One call.
    public enum Call: Equatable, Sendable {
        case prepare(HapticRequest)
        case play(HapticRequest)
    }

    /// Every call, oldest first.
    public private(set) var calls: [Call] = []
    /// When set, `play` throws it (after recording the call).
    public var failure: HapticError?

    public init() {}

    /// The requests played, oldest first.
    public var requests: [HapticRequest] {
        calls.compactMap { if case .play(let r) = $0 { r } else { nil } }
    }

    /// The preset names played, oldest first (custom patterns are left out: see ``playedPatterns``).
    public var playedNames: [String] { requests.filter { $0.pattern == nil }.map(\.presetName) }
    /// The custom patterns played, oldest first.
    public var playedPatterns: [HapticPattern] { requests.compactMap(\.pattern) }

    public func prepare(_ request: HapticRequest) throws { calls.append(.prepare(request)) }

    public func play(_ request: HapticRequest) throws {
        calls.append(.play(request))
        _ = try request.content()  // an unknown name or a bad intensity fails here as it would for real
        if let failure { throw failure }
    }

    /// Forgets the calls.
    public func reset() { calls.removeAll() }
}
