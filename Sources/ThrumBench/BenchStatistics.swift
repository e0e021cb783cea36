import ThrumHarness
/// Order statistics of a set of measurements.
public struct Percentiles: Sendable {
    /// The values, sorted ascending.
    public let sorted: [Double]

    /// Sorts `values`.
    public init(_ values: [Double]) { sorted = values.sorted() }

    /// The `p`-th percentile (0…100), nearest rank; nil when empty.
    public func percentile(_ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    /// Median.
    public var p50: Double? { percentile(50) }
    /// 99th percentile.
    public var p99: Double? { percentile(99) }
    /// Largest value.
    public var max: Double? { sorted.last }
    /// Number of values.
    public var count: Int { sorted.count }
}
