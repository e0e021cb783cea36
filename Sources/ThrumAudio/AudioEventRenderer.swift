import Foundation
import ThrumCompiler
import ThrumPattern

/// Renders a pattern's audio events (`AudioCustom`, `AudioContinuous`) to an ``AudioProgram``,
/// applying event parameters and the pattern's audio dynamic parameters and curves as Core
/// Haptics combines them for haptics: `AudioVolume` × `AudioVolumeControl`, every other value +
/// its control, clamped to the parameter's range. Volume and pan follow their controls sample by
/// sample; pitch, brightness and the envelope times are read when the event starts (release
/// when it ends), as the compiler reads haptic shape controls. Approximations are listed in
/// `docs/audio.md`.
public struct AudioEventRenderer: Sendable {
    /// Output frames per second.
    public var sampleRate: Double
    /// Longest `AudioContinuous` event, s (as for haptic continuous events).
    public static let maximumContinuousDuration = 30.0
    /// `AudioBrightness` when the event sets none: 1 (no filtering) for a file, as Apple's
    /// header says; 0.5 for a synthesised tone, the middle of its range like the haptic sharpness default.
    public static let defaultCustomBrightness = 1.0
    /// See ``defaultCustomBrightness``.
    public static let defaultToneBrightness = 0.5
    /// `AudioVolume` when the event sets none: 1 (no attenuation).
    public static let defaultVolume = 1.0

    /// A renderer for output at `sampleRate`.
    public init(sampleRate: Double = 48_000) { self.sampleRate = sampleRate }

    /// Renders every audio event of `pattern`. `resource(i)` gives the decoded sound of the
    /// `AudioCustom` event at index i (registered resource or `EventWaveformPath`).
    /// - Throws: what `resource` throws (a missing or invalid file: ``AudioError``).
    public func render(_ pattern: HapticPattern, resource: (Int) throws(AudioError) -> AudioResource) throws(AudioError)
        -> AudioProgram
    {
        let controls = AudioControls(pattern)
        var voices: [AudioVoice] = []
        var notes: [String] = []
        for (i, e) in pattern.events.enumerated() {
            guard e.relativeTime.isFinite, e.relativeTime >= 0, e.duration.isFinite else { continue }
            switch e.type {
            case .audioContinuous:
                let d = min(e.duration, Self.maximumContinuousDuration)
                guard d > 0 else {
                    notes.append("event \(i): AudioContinuous without EventDuration plays nothing")
                    continue
                }
                voices.append(
                    AudioVoice(
                        patternIndex: i, type: e.type.rawValue, requestedTime: e.relativeTime,
                        buffer: tone(e, duration: d, controls)))
            case .audioCustom:
                let r = try resource(i)
                voices.append(
                    AudioVoice(
                        patternIndex: i, type: e.type.rawValue, requestedTime: e.relativeTime,
                        buffer: custom(e, r, controls)))
            default:
                continue
            }
        }
        return AudioProgram(sampleRate: sampleRate, voices: voices, notes: notes)
    }

    // MARK: Parameters

    struct Resolved {
        var volume: Double
        var pan: Double
        var pitch: Double
        var brightness: Double
        var envelope: (attack: Double, decay: Double, release: Double, sustained: Bool)
    }

    private func resolve(_ e: HapticEvent, _ c: AudioControls, brightnessDefault: Double) -> Resolved {
        func v(_ id: HapticEvent.ParameterID, _ d: Double) -> Double {
            e.value(of: id).map(Double.init).flatMap { $0.isNaN ? nil : $0 } ?? d
        }
        let t = e.relativeTime
        let end = t + e.duration
        func clamp(_ x: Double, _ lo: Double, _ hi: Double) -> Double { min(hi, max(lo, x)) }
        return Resolved(
            volume: clamp(v(.audioVolume, Self.defaultVolume), 0, 1),
            pan: clamp(v(.audioPan, 0), -1, 1),
            pitch: clamp(v(.audioPitch, 0) + c.pitch.value(at: t), -1, 1),
            brightness: clamp(v(.audioBrightness, brightnessDefault) + c.brightness.value(at: t), 0, 1),
            envelope: (
                clamp(v(.attackTime, 0) + c.attack.value(at: t), 0, 1),
                clamp(v(.decayTime, 0) + c.decay.value(at: t), 0, 1),
                clamp(v(.releaseTime, 0) + c.release.value(at: end), 0, 1), v(.sustained, 1) >= 0.5
            ))
    }

    // MARK: AudioContinuous

    private func tone(_ e: HapticEvent, duration: Double, _ c: AudioControls) -> AudioBuffer {
        let p = resolve(e, c, brightnessDefault: Self.defaultToneBrightness)
        let env = AudioEnvelope(
            attackTime: p.envelope.attack, decayTime: p.envelope.decay, releaseTime: p.envelope.release,
            sustained: p.envelope.sustained,
            holdEnd: duration)
        let frames = Int((env.end * sampleRate).rounded(.up))
        let wave = ToneSynthesizer(pitch: p.pitch, brightness: p.brightness).samples(
            count: frames, sampleRate: sampleRate)
        return stereo(wave, start: e.relativeTime, base: p, c) { env.gain(at: Double($0) / sampleRate) }
    }

    // MARK: AudioCustom

    private func custom(_ e: HapticEvent, _ r: AudioResource, _ c: AudioControls) -> AudioBuffer {
        let p = resolve(e, c, brightnessDefault: Self.defaultCustomBrightness)
        let src = r.buffer.stereo()
        // Pitch: read the file faster or slower (tape-style, the length changes with it).
        let step = src.sampleRate / sampleRate * pow(2, p.pitch)
        let natural = Int((Double(src.frames) / step).rounded(.down))
        var frames = natural
        let loop = r.options.loopEnabled && e.duration > 0
        if e.duration > 0 {
            let requested = Int((e.duration * sampleRate).rounded())
            frames = loop ? requested : min(natural, requested)
        }
        var left = [Float](repeating: 0, count: frames), right = left
        for j in 0..<frames {
            var x = Double(j) * step
            if loop, src.frames > 0 { x = x.truncatingRemainder(dividingBy: Double(src.frames)) }
            let i = Int(x), f = Float(x - Double(i))
            let ni = loop && i + 1 >= src.frames ? 0 : i + 1
            left[j] = src.sample(i, channel: 0) + (src.sample(ni, channel: 0) - src.sample(i, channel: 0)) * f
            right[j] = src.sample(i, channel: 1) + (src.sample(ni, channel: 1) - src.sample(i, channel: 1)) * f
        }
        if p.brightness < 1 {
            lowPass(&left, brightness: p.brightness)
            lowPass(&right, brightness: p.brightness)
        }
        let length = Double(frames) / sampleRate
        var gain: (Int) -> Double = { _ in 1 }
        if r.options.useVolumeEnvelope {
            var env = AudioEnvelope(
                attackTime: p.envelope.attack, decayTime: p.envelope.decay, releaseTime: p.envelope.release,
                sustained: p.envelope.sustained, holdEnd: 0)
            // The release fits inside the sound: it ends with the file (or the EventDuration).
            env.release = min(env.release, length / 2)
            env.holdEnd = max(0, length - env.release)
            gain = { env.gain(at: Double($0) / sampleRate) }
        }
        return stereo(left, right, start: e.relativeTime, base: p, c, envelope: gain)
    }

    /// Brightness as a one-pole low-pass: cut-off 200 Hz × 100^brightness (200 Hz … 20 kHz).
    static func cutoff(brightness: Double) -> Double { 200 * pow(100, brightness) }

    private func lowPass(_ x: inout [Float], brightness: Double) {
        let a = Float(1 - exp(-2 * Double.pi * Self.cutoff(brightness: brightness) / sampleRate))
        var y: Float = 0
        for i in x.indices {
            y += a * (x[i] - y)
            x[i] = y
        }
    }

    // MARK: Volume, pan

    private func stereo(_ mono: [Float], start: Double, base: Resolved, _ c: AudioControls, envelope: (Int) -> Double)
        -> AudioBuffer
    {
        stereo(mono, mono, start: start, base: base, c, envelope: envelope)
    }

    /// Applies volume × `AudioVolumeControl`, the envelope, and pan + `AudioPanControl` (a balance:
    /// the far side is attenuated linearly, the near side kept, so a centred sound keeps its level).
    private func stereo(
        _ left: [Float], _ right: [Float], start: Double, base: Resolved, _ c: AudioControls, envelope: (Int) -> Double
    ) -> AudioBuffer {
        var out = [Float](repeating: 0, count: left.count * 2)
        var gl: Float = 0, gr: Float = 0
        for j in left.indices {
            if j % 64 == 0 {
                let t = start + Double(j) / sampleRate
                let volume = min(1, max(0, base.volume * c.volume.value(at: t)))
                let pan = min(1, max(-1, base.pan + c.pan.value(at: t)))
                gl = Float(volume * min(1, 1 - pan))
                gr = Float(volume * min(1, 1 + pan))
            }
            let g = Float(envelope(j))
            out[2 * j] = left[j] * gl * g
            out[2 * j + 1] = right[j] * gr * g
        }
        return AudioBuffer(sampleRate: sampleRate, channels: 2, samples: out)
    }
}

/// The pattern's audio dynamic parameters over pattern time.
struct AudioControls {
    var volume, pan, pitch, brightness, attack, decay, release: ControlTrack

    init(_ p: HapticPattern) {
        volume = ControlTrack(.audioVolumeControl, in: p, defaultValue: 1, range: 0...1)
        pan = ControlTrack(.audioPanControl, in: p, defaultValue: 0, range: -1...1)
        pitch = ControlTrack(.audioPitchControl, in: p, defaultValue: 0, range: -1...1)
        brightness = ControlTrack(.audioBrightnessControl, in: p, defaultValue: 0, range: -1...1)
        attack = ControlTrack(.audioAttackTimeControl, in: p, defaultValue: 0, range: -1...1)
        decay = ControlTrack(.audioDecayTimeControl, in: p, defaultValue: 0, range: -1...1)
        release = ControlTrack(.audioReleaseTimeControl, in: p, defaultValue: 0, range: -1...1)
    }
}
