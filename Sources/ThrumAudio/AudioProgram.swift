/// One audio event rendered to stereo samples at the output rate, placed on its pattern's timeline.
public struct AudioVoice: Equatable, Sendable {
    /// Index of the event in the pattern.
    public var patternIndex: Int
    /// `AudioCustom` or `AudioContinuous`.
    public var type: String
    /// Requested start, s of pattern time.
    public var requestedTime: Double
    /// The sound, stereo at the program's rate; its frame 0 plays at `requestedTime`.
    public var buffer: AudioBuffer

    /// Creates a voice.
    public init(patternIndex: Int, type: String, requestedTime: Double, buffer: AudioBuffer) {
        self.patternIndex = patternIndex
        self.type = type
        self.requestedTime = requestedTime
        self.buffer = buffer
    }

    /// End of the sound, s of pattern time.
    public var endTime: Double { requestedTime + buffer.duration }
}

/// The audio of a pattern: every audio event rendered (parameters and the pattern's audio
/// controls applied), ready to be mixed onto the sound device's timeline.
public struct AudioProgram: Equatable, Sendable {
    /// Output frames per second.
    public var sampleRate: Double
    /// The voices, in event order.
    public var voices: [AudioVoice]
    /// Things left out, for reporting (events with nothing to play).
    public var notes: [String]

    /// Creates a program.
    public init(sampleRate: Double, voices: [AudioVoice], notes: [String] = []) {
        self.sampleRate = sampleRate
        self.voices = voices
        self.notes = notes
    }

    /// When the last voice ends, s of pattern time (0 without voices).
    public var endTime: Double { voices.map(\.endTime).max() ?? 0 }

    /// Adds the program's sound to `out` (interleaved stereo, `frames` frames): output frame j
    /// plays pattern time `start + j × step` s. Samples are read between source frames by
    /// linear interpolation, so a sub-sample offset of the timeline is kept. `gain(t)` scales
    /// pattern time t (run-time volume); `window` limits playback to pattern times inside it.
    public func mix(
        into out: inout [Float], frames: Int, start: Double, step: Double,
        window: Range<Double> = -Double.infinity..<Double.infinity,
        gain: (Double) -> Float = { _ in 1 }
    ) {
        let end = start + Double(frames) * step
        for v in voices where v.endTime > start && v.requestedTime < end {
            let b = v.buffer
            let rate = b.sampleRate
            var blockGain: Float = 1
            for j in 0..<frames {
                let t = start + Double(j) * step
                guard window.contains(t) else { continue }
                let x = (t - v.requestedTime) * rate
                guard x > -1, x < Double(b.frames) else { continue }
                if j % 64 == 0 { blockGain = gain(t) }
                let i = Int(x.rounded(.down))
                let f = Float(x - Double(i))
                for c in 0..<2 {
                    let a = b.sample(i, channel: c), bb = b.sample(i + 1, channel: c)
                    out[2 * j + c] += (a + (bb - a) * f) * blockGain
                }
            }
        }
    }
}
