import ThrumTime

/// Learns the device's fixed latency from onset reports and tells how much earlier to schedule.
///
/// Each on-time ONSET says when the driver actually began (the register write that starts the
/// segment completed) in device time; the host knows the segment's scheduled `start` in the same
/// clock. Their difference is the latency the device adds after its timer fires — the I²C write
/// (≈ 73 µs at 400 kHz) and the firmware's timer granularity — and involves no clock sync error.
/// The median of the recent differences is robust to the odd late pass; segments are then
/// scheduled that much earlier so the drive begins at the intended instant.
public struct LatencyCompensator: Sendable {
    /// Differences kept (the newest).
    public let capacity: Int
    /// Largest correction applied (protects against nonsense reports).
    public let limit: DeviceDuration
    /// The correction used before the first report (0: none).
    public let prior: DeviceDuration
    private var recent: [DeviceDuration] = []

    /// Creates an empty compensator (no correction until the first report).
    public init(capacity: Int = 64, limit: DeviceDuration = .microseconds(2_000)) {
        self.init(capacity: capacity, limit: limit, prior: .zero)
    }

    /// Creates an empty compensator that corrects by `prior` until the first report.
    public init(capacity: Int = 64, limit: DeviceDuration = .microseconds(2_000), prior: DeviceDuration) {
        self.capacity = capacity
        self.limit = limit
        self.prior = prior
    }

    /// Samples learnt so far (at most `capacity`).
    public var sampleCount: Int { recent.count }

    /// Folds in one on-time onset: `onset` and `scheduled` are device times of one segment.
    public mutating func observe(onset: DeviceTime, scheduled: DeviceTime) {
        let latency = onset - scheduled
        guard latency >= .zero, latency <= limit else { return }
        recent.append(latency)
        if recent.count > capacity { recent.removeFirst(recent.count - capacity) }
    }

    /// How much earlier to schedule: the median latency, or the prior with no samples.
    public var correction: DeviceDuration {
        guard !recent.isEmpty else { return prior }
        let sorted = recent.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1
            ? sorted[mid] : .microseconds((sorted[mid - 1].microseconds + sorted[mid].microseconds) / 2)
    }
}
