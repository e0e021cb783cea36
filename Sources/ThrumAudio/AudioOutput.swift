import ThrumTime

/// Keeps a sound device fed from a renderer, on the host timeline: each service reads the
/// device's status (delay and timestamp), refines the ``PlayoutClock``, then writes frames up
/// to the target fill, asking the renderer for the host time span each block will sound at.
/// So a sound requested for host time T is written where the device will play it at T — the
/// device's latency is measured and compensated, as the haptic device's is.
public final class AudioOutput {
    /// How frames are put on the host timeline.
    public enum Timing: String, Sendable, CaseIterable {
        /// Fitted from the device's timestamps and delays (the default).
        case compensated
        /// `now + delay`, without the timestamps (stale by up to a period).
        case delayOnly
        /// The naive baseline: a frame is taken to sound when it is written ("start both now").
        case naive
    }

    /// Tunables.
    public struct Configuration: Sendable {
        /// Frames kept queued ahead of the device, in periods (at least 2).
        public var fillPeriods = 2
        /// How frames are put on the host timeline.
        public var timing: Timing = .compensated
        /// Defaults.
        public init() {}
    }

    /// The device.
    public let sink: AudioSink
    /// The tunables.
    public let configuration: Configuration
    private let clock: HostClock
    /// Frames written since opening (the next frame written is this one).
    public private(set) var framesWritten = 0
    /// The fit of the device's frames to host time.
    public private(set) var playout: PlayoutClock
    private var seenUnderruns = 0
    /// The latest status read.
    public private(set) var lastStatus: SoundDeviceStatus?

    /// Renders `frames` stereo frames into the buffer (zeroed, interleaved) where frame j sounds
    /// at host s `start + j × step`.
    public typealias Renderer = (_ out: inout [Float], _ frames: Int, _ start: Double, _ step: Double) -> Void

    /// Feeds `sink` on `clock`.
    public init(sink: AudioSink, clock: HostClock, configuration: Configuration = Configuration()) {
        self.sink = sink
        self.clock = clock
        self.configuration = configuration
        playout = PlayoutClock(sampleRate: sink.sampleRate)
    }

    /// Frames kept queued.
    public var fillFrames: Int { max(2, configuration.fillPeriods) * sink.periodFrames }

    /// The device's latency now: how long after now the next frame written will sound, s.
    public var latency: Double {
        guard let t = hostTime(ofFrame: Double(framesWritten)) else { return Double(fillFrames) / sink.sampleRate }
        return max(0, t - clock.now().seconds)
    }

    /// How far ahead of now a sound must be requested to start on time: the fill plus the
    /// output latency the device reports, plus one period of margin, s.
    public var startLead: Double {
        let delay = Double(lastStatus?.delayFrames ?? fillFrames)
        return (max(delay, Double(fillFrames)) + Double(sink.periodFrames)) / sink.sampleRate
    }

    /// When frame `frame` sounds, host s (nil before the first status).
    public func hostTime(ofFrame frame: Double) -> Double? {
        playout.time(ofFrame: frame)
    }

    /// Reads the status and writes what is due. Returns the frames written.
    /// - Throws: the sink's ``AudioError`` (`invalidAudioSession`, −4815).
    @discardableResult
    public func service(render: Renderer) throws(AudioError) -> Int {
        let status = try sink.status()
        lastStatus = status
        // Frames the device skipped in an underrun moved its position: follow it.
        if sink.underrunFrames > seenUnderruns {
            framesWritten += sink.underrunFrames - seenUnderruns
            seenUnderruns = sink.underrunFrames
        }
        playout.add(frame: Double(framesWritten - status.delayFrames), at: status.timestamp.seconds)
        let queued = status.delayFrames
        let want = min(status.availableFrames, fillFrames - min(queued, fillFrames) + sink.periodFrames / 2)
        guard want > 0 else { return 0 }
        var block = [Float](repeating: 0, count: want * 2)
        let step = configuration.timing == .compensated ? playout.secondsPerFrame : 1 / sink.sampleRate
        let start: Double
        switch configuration.timing {
        case .compensated:
            start = playout.time(ofFrame: Double(framesWritten)) ?? clock.now().seconds
        case .delayOnly:
            start = clock.now().seconds + Double(queued) / sink.sampleRate
        case .naive:
            start = clock.now().seconds
        }
        render(&block, want, start, step)
        for i in block.indices { block[i] = min(1, max(-1, block[i])) }
        let taken = try sink.write(block)
        framesWritten += taken
        return taken
    }

    /// When the next service is due: half a period after now.
    public func nextService(after now: HostTime) -> HostTime {
        now + .seconds(Double(sink.periodFrames) / sink.sampleRate / 2)
    }

    /// Closes the device.
    public func close() { sink.close() }
}
