import Foundation
import ThrumAudio
import ThrumPattern

/// The sound of a pattern's audio events for `thrum render`: rendered at 48 kHz as `thrum play`
/// plays it (ThrumAudio's renderer), reduced to its peak level per render sample, so it plots
/// on the drive's time axis.
struct AudioPreview {
    /// The rendered voices, by requested time.
    private var voices: [AudioVoice]
    /// The render's sample period, s.
    private var step: Double
    /// Audio events left out (file not found or not decodable), said as warnings.
    var notes: [String]
    /// Audio events rendered.
    var voiceCount: Int { voices.count }

    /// The sound of `pattern` (read from `file`), to be read at the render's times on the
    /// `sampleRate` grid (`levels(at:)`); nil when the pattern has no audio events.
    static func make(pattern: HapticPattern, file: String, sampleRate: Double) -> AudioPreview? {
        guard pattern.events.contains(where: { !$0.type.isHaptic }) else { return nil }
        let directories = [FilePathText.directory(of: file), FileManager.default.currentDirectoryPath].map {
            $0.isEmpty ? "." : $0
        }
        var notes: [String] = []
        var loaded: [Int: AudioResource] = [:]
        var playable = pattern
        var keep = [Bool](repeating: true, count: pattern.events.count)
        for (i, e) in pattern.events.enumerated() where e.type == .audioCustom {
            guard let w = e.waveform, let path = AudioResource.resolve(w.path, in: directories) else {
                notes.append("events[\(i)]: audio file '\(e.waveform?.path ?? "?")' not found; its sound is not drawn")
                keep[i] = false
                continue
            }
            do {
                loaded[i] = try AudioResource.load(
                    path: path, options: .init(useVolumeEnvelope: w.useVolumeEnvelope, loopEnabled: w.loopEnabled))
            } catch {
                notes.append("events[\(i)]: \(error.description); its sound is not drawn")
                keep[i] = false
            }
        }
        // Events left out become silent placeholders so indices stay the pattern's.
        for i in playable.events.indices where !keep[i] {
            playable.events[i].type = HapticEvent.EventType(rawValue: "Omitted")
        }
        let renderer = AudioEventRenderer(sampleRate: 48_000)
        guard
            let program = try? renderer.render(
                playable,
                resource: { (i: Int) throws(AudioError) -> AudioResource in
                    guard let r = loaded[i] else {
                        throw AudioError(.invalidAudioResource, subject: "events[\(i)]", "not loaded")
                    }
                    return r
                })
        else { return nil }
        return AudioPreview(
            voices: program.voices.sorted { $0.requestedTime < $1.requestedTime }, step: 1 / sampleRate, notes: notes)
    }

    /// Peak |sample| (0…1) in each interval [t, t + 1/rate) of `times` (s, increasing).
    func levels(at times: [Double]) -> [Double] {
        var sum = [Float](repeating: 0, count: times.count)
        walk(times) { i, low, high in sum[i] += max(-low, high) }
        return sum.map { Double(min(1, $0)) }
    }

    /// The waveform: the lowest and highest sample (−1…1, the voices summed) in each interval
    /// [t, t + 1/rate) of `times` (s, increasing).
    func extremes(at times: [Double]) -> (low: [Double], high: [Double]) {
        var low = [Double](repeating: 0, count: times.count), high = low
        walk(times) { i, l, h in
            low[i] = max(-1, low[i] + Double(l))
            high[i] = min(1, high[i] + Double(h))
        }
        return (low, high)
    }

    /// Calls `each(row, lowest, highest)` for each voice sounding in each row of `times`
    /// (both channels' samples over the row's interval).
    private func walk(_ times: [Double], _ each: (Int, Float, Float) -> Void) {
        // Rows skip long silences (the render's time axis jumps), so each row is read on its own.
        let step = self.step
        for (i, t) in times.enumerated() {
            for v in voices {
                if v.requestedTime >= t + step { break }
                guard v.endTime > t else { continue }
                let rate = v.buffer.sampleRate
                let lo = max(0, Int(((t - v.requestedTime) * rate).rounded(.down)))
                let hi = min(v.buffer.frames, Int(((t + step - v.requestedTime) * rate).rounded(.up)))
                guard lo < hi else { continue }
                var low: Float = 0, high: Float = 0
                for j in lo..<hi {
                    let a = v.buffer.sample(j, channel: 0), b = v.buffer.sample(j, channel: 1)
                    low = min(low, a, b)
                    high = max(high, a, b)
                }
                each(i, low, high)
            }
        }
    }
}
