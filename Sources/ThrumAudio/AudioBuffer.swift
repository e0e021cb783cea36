/// Decoded or synthesised sound: interleaved 32-bit float samples (−1…1) at a sample rate.
public struct AudioBuffer: Equatable, Sendable {
    /// Frames per second.
    public var sampleRate: Double
    /// Samples per frame (1 = mono, 2 = stereo left/right).
    public var channels: Int
    /// Interleaved samples, `frames × channels` of them.
    public var samples: [Float]

    /// Creates a buffer; `samples.count` must be a multiple of `channels`.
    public init(sampleRate: Double, channels: Int, samples: [Float]) {
        precondition(channels > 0 && samples.count % channels == 0, "samples must hold whole frames")
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Number of frames.
    public var frames: Int { samples.count / channels }
    /// Length in seconds.
    public var duration: Double { Double(frames) / sampleRate }

    /// Sample of `channel` at frame `index` (0 outside the buffer).
    @inline(__always)
    public func sample(_ index: Int, channel: Int) -> Float {
        guard index >= 0 && index < frames else { return 0 }
        return samples[index * channels + min(channel, channels - 1)]
    }

    /// The buffer as stereo (mono is copied to both sides; channels past the second are dropped).
    public func stereo() -> AudioBuffer {
        if channels == 2 { return self }
        var out = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            out[2 * i] = sample(i, channel: 0)
            out[2 * i + 1] = sample(i, channel: channels == 1 ? 0 : 1)
        }
        return AudioBuffer(sampleRate: sampleRate, channels: 2, samples: out)
    }

    /// Peak absolute sample value.
    public var peak: Float { samples.reduce(0) { max($0, abs($1)) } }
}
