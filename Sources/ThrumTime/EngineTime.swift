/// A point on the engine's schedule: host time (``HostTime``'s timeline and rate) in whole
/// microseconds.
///
/// The engine plans drive, deadlines and wake-ups on the host's clock, but in whole microseconds:
/// drive segments, the device's clock and the compiler's pattern offsets all count microseconds,
/// so a schedule kept in nanoseconds would only round again at every segment it sends. The three
/// ways into and out of it are here, each in one place:
/// - host time ↔ engine time: ``init(_:)`` (truncated to the microsecond) and ``hostTime`` (exact);
/// - a Core Haptics time in seconds (`HapticTime`, the engine's API) ↔ engine time:
///   ``init(seconds:)`` (rounded to the nearest microsecond) and ``seconds``;
/// - a pattern offset ↔ engine time, given where the pattern's time 0 plays:
///   ``PatternOffset/engineTime(origin:)`` and ``PatternOffset/init(at:origin:)``.
/// Engine time to device time goes through the host time and the clock model (ThrumLink's
/// `ClockModel`, the engine's `DeviceTimeline`).
public struct EngineTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Microseconds since the host clock's origin.
    public var microseconds: Int64

    /// Creates an engine time from microseconds since the host clock's origin.
    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }

    /// The engine time of `host`, truncated to the microsecond (the way the engine reads its clock).
    @inlinable public init(_ host: HostTime) { microseconds = host.nanoseconds / 1_000 }

    /// The engine time of a Core Haptics time (`HapticTime`, seconds on the engine's clock),
    /// rounded to the nearest microsecond; beyond what 64-bit µs hold it saturates (NaN gives the
    /// origin), as ``HostDuration/seconds(_:)`` does. Never traps.
    @inlinable public init(seconds: Double) { microseconds = EngineDuration.seconds(seconds).microseconds }

    /// The Core Haptics time (s) of something `relativeTime` s after this engine time (a
    /// pattern's event, when this is where the pattern's time 0 plays): summed in µs, then
    /// divided once, so that a whole-µs result is exact.
    @inlinable public func seconds(plus relativeTime: Double) -> Double {
        (Double(microseconds) + relativeTime * 1e6) / 1e6
    }

    /// The same instant on the host's timeline (exact).
    @inlinable public var hostTime: HostTime { HostTime(nanoseconds: microseconds * 1_000) }

    /// Seconds since the host clock's origin (a `HapticTime`).
    @inlinable public var seconds: Double { Double(microseconds) / 1e6 }

    /// The host clock's origin.
    public static let zero = EngineTime(microseconds: 0)
    /// Later than any time the engine schedules: "never" for deadlines and wake-ups.
    public static let distantFuture = EngineTime(microseconds: .max)
    /// Earlier than any time the engine schedules.
    public static let distantPast = EngineTime(microseconds: .min)

    @inlinable public static func < (a: EngineTime, b: EngineTime) -> Bool { a.microseconds < b.microseconds }
    @inlinable public static func + (t: EngineTime, d: EngineDuration) -> EngineTime {
        EngineTime(microseconds: t.microseconds + d.microseconds)
    }
    @inlinable public static func - (t: EngineTime, d: EngineDuration) -> EngineTime {
        EngineTime(microseconds: t.microseconds - d.microseconds)
    }
    @inlinable public static func - (a: EngineTime, b: EngineTime) -> EngineDuration {
        EngineDuration(microseconds: a.microseconds - b.microseconds)
    }
    @inlinable public static func += (t: inout EngineTime, d: EngineDuration) { t = t + d }
    @inlinable public static func -= (t: inout EngineTime, d: EngineDuration) { t = t - d }

    public var description: String { "engine \(microseconds) µs" }
}

/// A signed span on the engine's schedule (host rate), in whole microseconds: a lead, a margin, a
/// timeout, the length of drive. Also a span of a (rate-scaled) pattern's own time, which plays at
/// the host's rate: the difference of two ``PatternOffset``s.
public struct EngineDuration: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The span in microseconds.
    public var microseconds: Int64

    /// Creates a span of `microseconds`.
    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }

    /// `duration` truncated to the microsecond (toward zero): how the engine takes a configured
    /// ``HostDuration`` (lead, margin, timeout) onto its schedule.
    @inlinable public init(truncating duration: HostDuration) { microseconds = duration.nanoseconds / 1_000 }

    /// A span of whole microseconds.
    @inlinable public static func microseconds(_ us: Int64) -> EngineDuration { EngineDuration(microseconds: us) }
    /// A span of whole milliseconds.
    @inlinable public static func milliseconds(_ ms: Int64) -> EngineDuration {
        EngineDuration(microseconds: ms * 1_000)
    }
    /// A span of `s` seconds rounded to the nearest microsecond. Spans beyond what 64-bit µs hold,
    /// and infinities, saturate at the largest span of their sign; NaN gives the empty span.
    @inlinable public static func seconds(_ s: Double) -> EngineDuration {
        let us = (s * 1e6).rounded()
        if us.isNaN { return .zero }
        // Int64.max is not a Double; 2^63 is the first Double past it.
        if us >= 9_223_372_036_854_775_808.0 { return EngineDuration(microseconds: .max) }
        if us <= -9_223_372_036_854_775_808.0 { return EngineDuration(microseconds: .min) }
        return EngineDuration(microseconds: Int64(us))
    }
    /// The empty span.
    public static let zero = EngineDuration(microseconds: 0)

    /// The same span as a ``HostDuration`` (exact).
    @inlinable public var hostDuration: HostDuration { HostDuration(nanoseconds: microseconds * 1_000) }
    /// The span in seconds.
    @inlinable public var seconds: Double { Double(microseconds) / 1e6 }

    @inlinable public static func < (a: EngineDuration, b: EngineDuration) -> Bool { a.microseconds < b.microseconds }
    @inlinable public static func + (a: EngineDuration, b: EngineDuration) -> EngineDuration {
        EngineDuration(microseconds: a.microseconds + b.microseconds)
    }
    @inlinable public static func - (a: EngineDuration, b: EngineDuration) -> EngineDuration {
        EngineDuration(microseconds: a.microseconds - b.microseconds)
    }
    @inlinable public static func += (a: inout EngineDuration, b: EngineDuration) { a = a + b }
    @inlinable public static func * (a: EngineDuration, k: Int64) -> EngineDuration {
        EngineDuration(microseconds: a.microseconds * k)
    }
    /// The span divided by `k`, truncated toward zero.
    @inlinable public static func / (a: EngineDuration, k: Int64) -> EngineDuration {
        EngineDuration(microseconds: a.microseconds / k)
    }
    @inlinable public static prefix func - (a: EngineDuration) -> EngineDuration {
        EngineDuration(microseconds: -a.microseconds)
    }

    public var description: String { "\(microseconds) µs (engine)" }
}

extension PatternOffset {
    /// The engine time at which this offset plays when the pattern's time 0 plays at `origin`:
    /// the one way from a pattern's timeline onto the engine's.
    @inlinable public func engineTime(origin: EngineTime) -> EngineTime {
        EngineTime(microseconds: origin.microseconds + microseconds)
    }

    /// The offset that plays at engine time `t` when the pattern's time 0 plays at `origin`: the
    /// one way from the engine's timeline onto a pattern's.
    @inlinable public init(at t: EngineTime, origin: EngineTime) {
        self.init(microseconds: t.microseconds - origin.microseconds)
    }

    /// The span from the pattern's start to this offset (negative before it).
    @inlinable public var sinceStart: EngineDuration { EngineDuration(microseconds: microseconds) }

    /// The offset `d` later.
    @inlinable public static func + (t: PatternOffset, d: EngineDuration) -> PatternOffset {
        PatternOffset(microseconds: t.microseconds + d.microseconds)
    }
    /// The offset `d` earlier.
    @inlinable public static func - (t: PatternOffset, d: EngineDuration) -> PatternOffset {
        PatternOffset(microseconds: t.microseconds - d.microseconds)
    }
    /// The span from `b` to `a` on the pattern's timeline.
    @inlinable public static func - (a: PatternOffset, b: PatternOffset) -> EngineDuration {
        EngineDuration(microseconds: a.microseconds - b.microseconds)
    }
    /// Earlier than any offset a pattern holds.
    public static let distantPast = PatternOffset(microseconds: .min)
    /// Later than any offset a pattern holds.
    public static let distantFuture = PatternOffset(microseconds: .max)
}
