import ThrumTime

/// A sound device in virtual (or real) time with ALSA's behaviour, for tests, the bench, and as
/// the null sink of a machine without sound hardware.
///
/// The device's crystal runs at `sampleRate × (1 + drift)`; it takes a period from its ring
/// buffer at each period interrupt, and the driver updates the position (and its timestamp)
/// only when that interrupt is handled, `wakeJitter` late at most (uniform, seeded). The delay it
/// reports is the buffered frames plus the fixed output latency (`outputLatency`, the DAC and
/// codec), as `snd_pcm_delay` does. Truth is kept: ``playoutTime(ofFrame:)`` is when a frame
/// really reaches the speaker, and with `recording` every frame written is kept in ``recorded``.
public final class SoundDeviceModel: AudioSink {
    /// The model's parameters.
    public struct Configuration: Sendable {
        /// Frames per second.
        public var sampleRate: Double = 48_000
        /// Period, frames (480 = 10 ms at 48 kHz).
        public var periodFrames = 480
        /// Periods in the ring buffer.
        public var periods = 4
        /// Fixed latency after the buffer (DAC, codec), s.
        public var outputLatency = 0.0015
        /// The device clock's rate error (fraction; 50e-6 = 50 ppm fast).
        public var drift = 30e-6
        /// Largest delay in handling a period interrupt, s.
        public var wakeJitter = 0.001
        /// Seed of the jitter.
        public var seed: UInt64 = 1
        /// Keep every frame written (the recording sink).
        public var recording = false
        /// Name reported.
        public var name = "model"
        /// An ALSA-like 10 ms-period device.
        public init() {}
    }

    public let configuration: Configuration
    private let clock: HostClock
    /// When frame 0 leaves the buffer: the stream starts with the first write, as ALSA's does
    /// when its start threshold is reached (nil before).
    private var start: HostTime?
    private var written = 0
    private var rng: SplitMix64
    /// Interrupt times handled so far: (interrupt index, handled at).
    private var lastHandled: (index: Int, at: HostTime)
    private var jitters: [Int: Double] = [:]
    /// Every frame written, interleaved stereo (when recording).
    public private(set) var recorded: [Float] = []
    public private(set) var underrunFrames = 0

    public var sampleRate: Double { configuration.sampleRate }
    public var periodFrames: Int { configuration.periodFrames }
    public var bufferFrames: Int { configuration.periodFrames * configuration.periods }
    public var name: String { configuration.name }

    /// A device on `clock`; it starts playing with the first frames written.
    public init(clock: HostClock, configuration: Configuration = Configuration()) {
        self.clock = clock
        self.configuration = configuration
        rng = SplitMix64(seed: configuration.seed)
        lastHandled = (0, clock.now())
    }

    /// A null sink: plays nothing, keeps the timing of a 10 ms-period device.
    public static func null(clock: HostClock) -> SoundDeviceModel {
        var c = Configuration()
        c.name = "null"
        return SoundDeviceModel(clock: clock, configuration: c)
    }

    /// A recording sink: keeps every frame written, with the exact playout time of each.
    public static func recording(clock: HostClock, configuration: Configuration = Configuration()) -> SoundDeviceModel {
        var c = configuration
        c.recording = true
        if c.name == "model" { c.name = "recording" }
        return SoundDeviceModel(clock: clock, configuration: c)
    }

    private var deviceRate: Double { configuration.sampleRate * (1 + configuration.drift) }

    /// When the device's crystal reaches frame `frame` (it leaves the buffer), truth.
    private func consumeTime(ofFrame frame: Double) -> HostTime {
        (start ?? clock.now()) + .seconds(frame / deviceRate)
    }

    /// When frame `frame` reaches the speaker, truth (s on the host clock).
    public func playoutTime(ofFrame frame: Double) -> Double {
        consumeTime(ofFrame: frame).seconds + configuration.outputLatency
    }

    private func jitter(_ k: Int) -> Double {
        if let j = jitters[k] { return j }
        let j = configuration.wakeJitter * Double(rng.next() % 1_000_001) / 1_000_000
        jitters[k] = j
        return j
    }

    /// Handles the period interrupts due by now: position and timestamp move in period steps.
    private func advance() {
        let now = clock.now()
        guard start != nil else {
            lastHandled = (0, now)
            return
        }
        while true {
            let k = lastHandled.index + 1
            let handled = consumeTime(ofFrame: Double(k * periodFrames)) + .seconds(jitter(k))
            guard handled <= now else { break }
            // The period just consumed was missing: an underrun (silence played).
            let consumed = k * periodFrames
            if written < consumed {
                underrunFrames += min(periodFrames, consumed - written)
                if configuration.recording { recorded += [Float](repeating: 0, count: 2 * (consumed - written)) }
                written = consumed
            }
            jitters[k] = nil
            lastHandled = (k, handled)
        }
    }

    public func status() throws(AudioError) -> SoundDeviceStatus {
        advance()
        let hwPointer = lastHandled.index * periodFrames
        let latencyFrames = Int((configuration.outputLatency * sampleRate).rounded())
        return SoundDeviceStatus(
            timestamp: lastHandled.at, delayFrames: written - hwPointer + latencyFrames,
            availableFrames: bufferFrames - (written - hwPointer))
    }

    public func write(_ samples: [Float]) throws(AudioError) -> Int {
        advance()
        let hwPointer = lastHandled.index * periodFrames
        let room = bufferFrames - (written - hwPointer)
        let frames = min(room, samples.count / 2)
        guard frames > 0 else { return 0 }
        if start == nil {
            start = clock.now()
            lastHandled = (0, start!)
        }
        if configuration.recording { recorded += samples[0..<(2 * frames)] }
        written += frames
        return frames
    }

    /// Frames written so far (the device's appl_ptr).
    public var framesWritten: Int { written }

    public func close() {}
}
