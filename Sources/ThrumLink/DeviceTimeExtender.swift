/// Extends the device's wrapping 32-bit microsecond clock to 64 bits.
///
/// Each new reading is taken as the 64-bit time nearest the previous one with the same low 32
/// bits, so readings must arrive within 2^31 µs (about 35 minutes) of each other.
public struct DeviceTimeExtender: Sendable, Hashable {
    /// The most recent extended reading, or nil before the first.
    public private(set) var latest: UInt64?

    /// Creates an extender with no reading yet; the first reading extends to itself (epoch 0).
    public init() {}

    /// Extends `time` and makes it the new reference.
    public mutating func extend(_ time: UInt32) -> UInt64 {
        let extended = Self.extend(time, near: latest ?? UInt64(time))
        latest = extended
        return extended
    }

    /// The 64-bit time with low 32 bits `time` nearest to `reference`.
    public static func extend(_ time: UInt32, near reference: UInt64) -> UInt64 {
        let delta = Int64(Int32(bitPattern: time &- UInt32(truncatingIfNeeded: reference)))
        let result = Int64(bitPattern: reference) &+ delta
        return result < 0 ? UInt64(time) : UInt64(result)
    }
}
