/// Maps sound-device frames to the host timeline: when frame n reaches the speaker.
///
/// Each status of the device gives one sample "frame (written − delay) is heard at the
/// status's timestamp". The fit is a line over the recent samples: its slope (the device's true
/// rate, drift included) by least squares, its offset by the lower envelope — a timestamp is
/// taken when the driver handles a period interrupt, never before it, so the earliest-looking
/// sample is the least delayed one (the same idea as the haptic clock's bracket).
public struct PlayoutClock: Sendable {
    /// (frame, host s) samples, oldest first.
    private var samples: [(frame: Double, time: Double)] = []
    /// Samples kept.
    public var window = 64
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
        let n = Double(samples.count)
        if samples.count >= 8 {
            let mf = samples.reduce(0) { $0 + $1.frame } / n
            let mt = samples.reduce(0) { $0 + $1.time } / n
            var sff = 0.0, sft = 0.0
            for s in samples {
                sff += (s.frame - mf) * (s.frame - mf)
                sft += (s.frame - mf) * (s.time - mt)
            }
            // Keep the slope within 1000 ppm of nominal: a fit outside it is noise, not a crystal.
            if sff > 0 {
                let nominal = 1 / nominalRate
                slope = min(nominal * 1.001, max(nominal * 0.999, sft / sff))
            }
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
