/// Maps sound-device frames to the host timeline: when frame n reaches the speaker.
///
/// Each status of the device gives one sample "frame (written − delay) is heard at the
/// status's timestamp". A timestamp is taken when the driver handles a period interrupt, never
/// before the frames moved, so its error is one-sided: the earliest-looking sample is the least
/// delayed one (the same idea as the haptic clock's bracket). The fit is therefore a line along
/// the **lower envelope** of the samples: through the least delayed sample of the older half and
/// of the newer half of the window (found again with each new slope, three times), which gives
/// the device's true rate (its crystal error included) far better than least squares over
/// one-sided jitter; the offset is the lowest sample under that slope.
public struct PlayoutClock: Sendable {
    /// (frame, host s) samples, oldest first.
    private var samples: [(frame: Double, time: Double)] = []
    /// Samples kept (about 10 s at one per 10 ms period).
    public var window = 1_024
    /// Nominal frames per second (the slope until there are samples enough).
    public let nominalRate: Double
    private var slope: Double
    private var offset: Double?

    /// A clock for a device of nominal rate `sampleRate`.
    public init(sampleRate: Double) {
        nominalRate = sampleRate
        slope = 1 / sampleRate
    }

    /// Number of samples held.
    public var sampleCount: Int { samples.count }

    /// Adds a sample: `frame` reaches the speaker at host time `time` s. A sample that repeats the
    /// last one (the device did not move) is ignored.
    public mutating func add(frame: Double, at time: Double) {
        if let last = samples.last, last.time == time, last.frame == frame { return }
        samples.append((frame, time))
        if samples.count > window { samples.removeFirst(samples.count - window) }
        refit()
    }

    /// Forgets every sample (the stream restarted).
    public mutating func reset() {
        samples.removeAll()
        slope = 1 / nominalRate
        offset = nil
    }

    private mutating func refit() {
        let nominal = 1 / nominalRate
        if samples.count >= 8 {
            let half = samples.count / 2
            var fitted = slope
            for _ in 0..<3 {
                func lowest(_ range: Range<Int>) -> (frame: Double, time: Double) {
                    var best = samples[range.lowerBound]
                    for s in samples[range] where s.time - s.frame * fitted < best.time - best.frame * fitted {
                        best = s
                    }
                    return best
                }
                let a = lowest(0..<half), b = lowest(half..<samples.count)
                guard b.frame > a.frame else { break }
                // Within 1000 ppm of nominal: a fit outside it is noise, not a crystal.
                fitted = min(nominal * 1.001, max(nominal * 0.999, (b.time - a.time) / (b.frame - a.frame)))
            }
            slope = fitted
        }
        offset = samples.map { $0.time - $0.frame * slope }.min()
    }

    /// When `frame` reaches the speaker, host s; nil before any sample.
    public func time(ofFrame frame: Double) -> Double? {
        offset.map { $0 + frame * slope }
    }

    /// Seconds per frame, as fitted.
    public var secondsPerFrame: Double { slope }
}
