import ThrumTime

/// Extends the device's wrapping 32-bit microsecond clock to 64 bits.
///
/// Each new reading is taken as the 64-bit time nearest the previous one with the same low 32
/// bits (``DeviceTime/extending(_:)``), so readings must arrive within 2^31 µs (about 35
/// minutes) of each other.
public struct DeviceTimeExtender: Sendable, Hashable {
    /// The most recent extended reading, or nil before the first.
    public private(set) var latest: DeviceTime?

    /// Creates an extender with no reading yet; the first reading extends to itself (lap 0).
    public init() {}

    /// Extends `time` and makes it the new reference.
    public mutating func extend(_ time: DeviceTime32) -> DeviceTime {
        let extended = (latest ?? DeviceTime(microseconds: Int64(time.rawValue))).extending(time)
        latest = extended
        return extended
    }
}
