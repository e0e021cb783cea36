/// A point on the host's monotonic timeline, in nanoseconds since an arbitrary origin.
///
/// Every component that reads time takes a ``HostClock`` and works in `HostTime`, so the same
/// code runs against the real monotonic clock and against a ``ManualClock`` in virtual time.
public struct HostTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// Creates a time from nanoseconds since the clock's origin.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The host time `seconds` after the origin (a `HapticTime` in nanoseconds), rounded to the
    /// nanosecond. The caller checks that `seconds` is finite and in range.
    public init(seconds: Double) { nanoseconds = Int64((seconds * 1e9).rounded()) }

    /// The origin of the timeline.
    public static let zero = HostTime(nanoseconds: 0)

    /// Seconds since the origin, as a floating-point number.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: HostTime, b: HostTime) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (t: HostTime, d: HostDuration) -> HostTime {
        HostTime(nanoseconds: t.nanoseconds + d.nanoseconds)
    }
    public static func - (t: HostTime, d: HostDuration) -> HostTime {
        HostTime(nanoseconds: t.nanoseconds - d.nanoseconds)
    }
    public static func - (a: HostTime, b: HostTime) -> HostDuration {
        HostDuration(nanoseconds: a.nanoseconds - b.nanoseconds)
    }
    public static func += (t: inout HostTime, d: HostDuration) { t = t + d }

    public var description: String { "\(seconds)s" }
}

/// A signed span of host time, in nanoseconds.
public struct HostDuration: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The span in nanoseconds.
    public var nanoseconds: Int64

    /// Creates a span of `nanoseconds`.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// A span of whole microseconds.
    public static func microseconds(_ us: Int64) -> HostDuration { HostDuration(nanoseconds: us * 1_000) }
    /// A span of whole milliseconds.
    public static func milliseconds(_ ms: Int64) -> HostDuration { HostDuration(nanoseconds: ms * 1_000_000) }
    /// A span of seconds, rounded to the nearest nanosecond. Spans beyond what 64-bit
    /// nanoseconds hold (about ±292 years), and infinities, saturate at the largest span of
    /// their sign; NaN gives the empty span. Never traps, whatever the input.
    public static func seconds(_ s: Double) -> HostDuration {
        let ns = (s * 1e9).rounded()
        if ns.isNaN { return .zero }
        // Int64.max is not a Double; 2^63 is the first Double past it.
        if ns >= 9_223_372_036_854_775_808.0 { return HostDuration(nanoseconds: .max) }
        if ns <= -9_223_372_036_854_775_808.0 { return HostDuration(nanoseconds: .min) }
        return HostDuration(nanoseconds: Int64(ns))
    }
    /// The empty span.
    public static let zero = HostDuration(nanoseconds: 0)

    /// The span in seconds.
    public var seconds: Double { Double(nanoseconds) / 1e9 }
    /// The span in microseconds, as a floating-point number.
    public var microseconds: Double { Double(nanoseconds) / 1e3 }

    public static func < (a: HostDuration, b: HostDuration) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: HostDuration, b: HostDuration) -> HostDuration {
        HostDuration(nanoseconds: a.nanoseconds + b.nanoseconds)
    }
    public static func - (a: HostDuration, b: HostDuration) -> HostDuration {
        HostDuration(nanoseconds: a.nanoseconds - b.nanoseconds)
    }
    public static func * (a: HostDuration, k: Int64) -> HostDuration { HostDuration(nanoseconds: a.nanoseconds * k) }
    public static prefix func - (a: HostDuration) -> HostDuration { HostDuration(nanoseconds: -a.nanoseconds) }

    public var description: String { "\(seconds)s" }
}
