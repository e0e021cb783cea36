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
        let directories = [(file as NSString).deletingLastPathComponent, FileManager.default.currentDirectoryPath].map {
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
        // Rows skip long silences (the render's time axis jumps), so each row is read on its own:
        // the peak of each voice over [t, t + 1/rate), summed over the voices sounding then.
        let step = self.step
        var level = [Double](repeating: 0, count: times.count)
        for (i, t) in times.enumerated() {
            var sum: Float = 0
            for v in voices {
                if v.requestedTime >= t + step { break }
                guard v.endTime > t else { continue }
                let rate = v.buffer.sampleRate
                let lo = max(0, Int(((t - v.requestedTime) * rate).rounded(.down)))
                let hi = min(v.buffer.frames, Int(((t + step - v.requestedTime) * rate).rounded(.up)))
                var peak: Float = 0
                if lo < hi {
                    for j in lo..<hi {
                        peak = max(peak, abs(v.buffer.sample(j, channel: 0)), abs(v.buffer.sample(j, channel: 1)))
                    }
                }
                sum += peak
            }
            level[i] = Double(min(1, sum))
        }
        return level
    }
}
