/// A point on the device's timeline: the firmware's free-running microsecond counter, extended
/// from its 32-bit wire form to 64 bits.
///
/// Host time (``HostTime``, nanoseconds of the host's monotonic clock) and device time run at
/// different rates (the crystals' drift) from unrelated origins, so they are distinct types: the
/// only way from one to the other is the clock model (`ClockModel` in ThrumLink), and mixing them
/// in arithmetic is a compile error.
public struct DeviceTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Microseconds since the device's counter started (signed, so that arithmetic before the
    /// origin stays representable; a real reading is never negative).
    public var microseconds: Int64

    /// Creates a device time from microseconds since the counter started.
    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// The counter's origin.
    public static let zero = DeviceTime(microseconds: 0)

    /// Seconds since the counter started.
    public var seconds: Double { Double(microseconds) / 1e6 }

    /// The 32-bit form a message carries (the low 32 bits).
    public var wire: DeviceTime32 { DeviceTime32(rawValue: UInt32(truncatingIfNeeded: microseconds)) }

    /// The 64-bit time whose low 32 bits are `wire` and which lies nearest this one: how a
    /// device time read from a message is extended, given a recent reference. Exact when the two
    /// are within 2^31 µs (about 35 minutes) of each other; a result before the origin is taken
    /// as the counter's first lap.
    public func extending(_ wire: DeviceTime32) -> DeviceTime {
        let delta = Int64(Int32(bitPattern: wire.rawValue &- self.wire.rawValue))
        let result = microseconds &+ delta
        return result < 0 ? DeviceTime(microseconds: Int64(wire.rawValue)) : DeviceTime(microseconds: result)
    }

    /// The later of `self` and the origin: device time cannot read before its counter started.
    public var clampedToOrigin: DeviceTime { microseconds < 0 ? .zero : self }

    public static func < (a: DeviceTime, b: DeviceTime) -> Bool { a.microseconds < b.microseconds }
    public static func + (t: DeviceTime, d: DeviceDuration) -> DeviceTime {
        DeviceTime(microseconds: t.microseconds + d.microseconds)
    }
    public static func - (t: DeviceTime, d: DeviceDuration) -> DeviceTime {
        DeviceTime(microseconds: t.microseconds - d.microseconds)
    }
    public static func - (a: DeviceTime, b: DeviceTime) -> DeviceDuration {
        DeviceDuration(microseconds: a.microseconds - b.microseconds)
    }
    public static func += (t: inout DeviceTime, d: DeviceDuration) { t = t + d }
    public static func -= (t: inout DeviceTime, d: DeviceDuration) { t = t - d }

    public var description: String { "device \(microseconds) µs" }
}

extension DeviceTime: ExpressibleByIntegerLiteral {
    /// A device time written as a constant number of microseconds (tests, fixed schedules).
    public init(integerLiteral microseconds: Int64) { self.init(microseconds: microseconds) }
}

/// A signed span of device time, in microseconds of the device's crystal.
///
/// Distinct from ``HostDuration``: a span measured by the device's crystal differs from the same
/// span measured by the host's by the drift (tens of ppm).
public struct DeviceDuration: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The span in microseconds.
    public var microseconds: Int64

    /// Creates a span of `microseconds`.
    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// A span of whole microseconds.
    public static func microseconds(_ us: Int64) -> DeviceDuration { DeviceDuration(microseconds: us) }
    /// A span of whole milliseconds.
    public static func milliseconds(_ ms: Int64) -> DeviceDuration { DeviceDuration(microseconds: ms * 1_000) }
    /// The empty span.
    public static let zero = DeviceDuration(microseconds: 0)

    /// The span in seconds.
    public var seconds: Double { Double(microseconds) / 1e6 }

    public static func < (a: DeviceDuration, b: DeviceDuration) -> Bool { a.microseconds < b.microseconds }
    public static func + (a: DeviceDuration, b: DeviceDuration) -> DeviceDuration {
        DeviceDuration(microseconds: a.microseconds + b.microseconds)
    }
    public static func - (a: DeviceDuration, b: DeviceDuration) -> DeviceDuration {
        DeviceDuration(microseconds: a.microseconds - b.microseconds)
    }
    public static prefix func - (a: DeviceDuration) -> DeviceDuration { DeviceDuration(microseconds: -a.microseconds) }

    public var description: String { "\(microseconds) µs (device)" }
}

/// The device's clock as messages carry it: the low 32 bits of ``DeviceTime``, wrapping every
/// 2^32 µs (about 71.6 minutes). Only ``DeviceTime/extending(_:)`` turns it back into a time;
/// it has no arithmetic of its own, so a wrapped value cannot be compared by mistake.
public struct DeviceTime32: Hashable, Sendable, CustomStringConvertible {
    /// The counter's low 32 bits, as on the wire.
    public var rawValue: UInt32

    /// Wraps a value read from or written to a message.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public var description: String { "device \(rawValue) µs (32-bit)" }
}

extension DeviceTime32: ExpressibleByIntegerLiteral {
    /// A wire time written as a constant.
    public init(integerLiteral rawValue: UInt32) { self.init(rawValue: rawValue) }
}

/// A time within a pattern, from its start (`relativeTime` 0), in microseconds of the pattern's
/// own timeline: what the compiler places drive at, before the engine maps the pattern's start to
/// a host time and the clock model maps that to the device.
public struct PatternOffset: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Microseconds from the pattern's start (negative before it: a pre-shifted onset).
    public var microseconds: Int64

    /// Creates an offset of `microseconds` from the pattern's start.
    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// An offset of `seconds` (a pattern's `relativeTime`), rounded to the nearest microsecond.
    public init(seconds: Double) { self.microseconds = Int64((seconds * 1e6).rounded()) }

    /// The pattern's start.
    public static let zero = PatternOffset(microseconds: 0)

    /// The offset in seconds.
    public var seconds: Double { Double(microseconds) / 1e6 }

    /// The same span on the host's timeline (a pattern plays at the host's rate).
    public var hostDuration: HostDuration { .microseconds(microseconds) }

    public static func < (a: PatternOffset, b: PatternOffset) -> Bool { a.microseconds < b.microseconds }

    public var description: String { "+\(microseconds) µs (pattern)" }
}

/// A position in a pattern's own time (what `seek(toOffset:)` names, where a pause stops), which
/// a player plays compiled at some rate: at rate `r` the compiled drive's ``PatternOffset`` is
/// the position divided by `r`. Kept in the caller's seconds so that each conversion to a
/// compiled offset rounds once (to the µs).
public struct PatternPosition: Hashable, Sendable, CustomStringConvertible {
    /// Seconds from the pattern's start, in its own time.
    public let seconds: Double

    /// The position `seconds` into the pattern (finite, ≥ 0: the caller checks).
    public init(seconds: Double) { self.seconds = seconds }

    /// The position compiled offset `offset` of a pattern compiled at `rate` plays.
    public init(compiled offset: PatternOffset, rate: Double) { seconds = offset.seconds * rate }

    /// The pattern's start.
    public static let start = PatternPosition(seconds: 0)

    /// Whether this is the pattern's start.
    public var isStart: Bool { seconds == 0 }

    /// The offset of the drive compiled at `rate` that plays this position, rounded to the µs.
    public func compiled(atRate rate: Double) -> PatternOffset { PatternOffset(seconds: seconds / rate) }

    public var description: String { "pattern position \(seconds) s" }
}
