import Foundation
import ThrumAudio
import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumTime

/// Audio–haptic skew on one timeline, in virtual time: pairs of a transient and an
/// `AudioContinuous` tone requested at the same `relativeTime`, played by the engine on the
/// virtual device (jittered USB full speed) and on a modelled 10 ms-period sound device with
/// ALSA-like latency, 1 ms period-interrupt jitter and a 30 ppm crystal error. Truth: the
/// haptic felt onset (case acceleration at 50 % of the event's peak, LRA model) and the instant
/// the tone's first non-zero frame reaches the speaker (the sound model's playout time).
public enum AudioHapticBench {
    /// Skews (audio − haptic), µs, and underrun frames.
    public struct Result: Sendable {
        public var skews: [Double] = []
        /// True speaker onset − requested time, µs (the audio side alone).
        public var audioErrors: [Double] = []
        public var underrunFrames = 0
        public var missing = 0
    }

    /// The pairs, `spacing` s apart.
    static func pattern(count: Int, spacing: Double) -> HapticPattern {
        var events: [HapticEvent] = []
        for k in 0..<count {
            let t = 0.05 + Double(k) * spacing
            events.append(
                HapticEvent(
                    eventType: .hapticTransient, parameters: [.init(parameterID: .hapticIntensity, value: 1)],
                    relativeTime: t))
            events.append(
                HapticEvent(
                    eventType: .audioContinuous, parameters: [.init(parameterID: .audioVolume, value: 0.8)],
                    relativeTime: t, duration: 0.04))
        }
        return HapticPattern(events: events, parameters: [], parameterCurves: [])
    }

    /// One run with `timing` (the compensated engine path, or a baseline).
    public static func run(seed: UInt64, count: Int, timing: AudioOutput.Timing, into result: inout Result) throws {
        let rig = BenchSetup.rig(seed: seed, link: BenchSetup.jitteredUSB(seed: seed))
        try rig.connect()
        try rig.calibrateDriver()
        let engine = try rig.engine()
        var model = SoundDeviceModel.Configuration()
        model.seed = seed &* 7 &+ 3
        model.recording = true
        let device = SoundDeviceModel(clock: rig.clock, configuration: model)
        var oc = AudioOutput.Configuration()
        oc.timing = timing
        engine.audio = EngineAudio(sink: device, clock: rig.clock, configuration: oc)
        engine.run(for: 0.4)
        let player = try engine.makePlayer(with: pattern(count: count, spacing: 0.25))
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: Double(count) * 0.25 + 2)
        engine.run(for: 0.1)
        result.underrunFrames += device.underrunFrames
        // A pair whose sound never started counts as missing.
        result.missing += max(0, count - engine.audioOnsets.count)
        let samples = device.recorded
        for onset in engine.audioOnsets {
            let requested = onset.requestedTime * 1e6
            guard
                let felt = FeltOnsetGrid.feltOnset(
                    rig.device.chip.trace, from: requested - 40_000, to: requested + 150_000),
                let heard = firstSound(samples, from: Int(onset.frame) - 4_800, device: device)
            else {
                result.missing += 1
                continue
            }
            result.skews.append(heard * 1e6 - felt)
            result.audioErrors.append(heard * 1e6 - requested)
        }
        engine.stop()
    }

    /// When the first non-zero frame at or after `from` reaches the speaker (host s).
    static func firstSound(_ samples: [Float], from: Int, device: SoundDeviceModel) -> Double? {
        var i = max(0, from)
        while 2 * i + 1 < samples.count {
            if abs(samples[2 * i]) > 1e-6 || abs(samples[2 * i + 1]) > 1e-6 {
                return device.playoutTime(ofFrame: Double(i))
            }
            i += 1
        }
        return nil
    }

    /// Median wall time to decode a generated 23 s stereo 44.1 kHz 16-bit WAV with libsndfile, ms;
    /// the file is written to a temporary directory and removed.
    public static func decodeMilliseconds(runs: Int, clock: any HostClock = MonotonicClock()) throws -> Double {
        let dir = NSTemporaryDirectory() + "thrum-bench-audio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/23s.wav"
        let rate = 44_100.0
        let frames = Int(23 * rate)
        var samples = [Float](repeating: 0, count: 2 * frames)
        for i in 0..<frames {
            let x = Float(0.4 * sin(2 * Double.pi * 330 * Double(i) / rate))
            samples[2 * i] = x
            samples[2 * i + 1] = -x
        }
        try SoundFile.write(AudioBuffer(sampleRate: rate, channels: 2, samples: samples), to: path)
        var times: [Double] = []
        for _ in 0..<runs {
            let start = clock.now()
            let resource = try AudioResource.load(path: path)
            times.append((clock.now() - start).seconds * 1e3)
            precondition(resource.buffer.frames == frames)
        }
        return times.sorted()[times.count / 2]
    }
}

extension Bench {
    static func audioFigures(_ options: BenchOptions, into report: inout BenchReport) throws {
        var compensated = AudioHapticBench.Result(), naive = AudioHapticBench.Result(),
            delayOnly = AudioHapticBench.Result()
        let count = planned(options, full: 40, quick: 8, smoke: 4)
        for seed in seeds(options, full: 3, quick: 1) {
            try AudioHapticBench.run(seed: seed &+ 900, count: count, timing: .compensated, into: &compensated)
            try AudioHapticBench.run(seed: seed &+ 900, count: count, timing: .naive, into: &naive)
            try AudioHapticBench.run(seed: seed &+ 900, count: count, timing: .delayOnly, into: &delayOnly)
        }
        let c = Percentiles(compensated.skews.map(abs)), n = Percentiles(naive.skews.map(abs)),
            d = Percentiles(delayOnly.skews.map(abs))
        func us(_ x: Double?) -> String { x.map { String(Int($0.rounded())) } ?? "–" }
        report.figures.append(
            BenchFigure(
                key: "audio_haptic_skew_p99_us", label: "audio–haptic skew p99 (10 ms-period sound model, usb-fs)",
                value: c.p99, unit: "µs",
                baseline: n.p99, baselineLabel: "start both now", target: "≤ 1000", met: c.p99.map { $0 <= 1_000 },
                note:
                    "true speaker onset of the tone − felt haptic onset; p50 \(us(c.p50)) µs; delay without timestamps p99 \(us(d.p99)) µs; \(compensated.skews.count) pairs, \(compensated.missing) missing"
            ))
        let a = Percentiles(compensated.audioErrors.map(abs))
        report.figures.append(
            BenchFigure(
                key: "audio_onset_error_p99_us",
                label: "sound alone: true speaker onset − requested, p99 (10 ms-period sound model)",
                value: a.p99, unit: "µs",
                note: "p50 \(us(a.p50)) µs; the rest of the skew is the haptic felt onset's own error"))
        report.figures.append(
            BenchFigure(
                key: "audio_underrun_frames", label: "audio underrun frames while streaming (sound model)",
                value: Double(compensated.underrunFrames + naive.underrunFrames + delayOnly.underrunFrames),
                unit: "frames", target: "0",
                met: compensated.underrunFrames + naive.underrunFrames + delayOnly.underrunFrames == 0))
        let decode = try AudioHapticBench.decodeMilliseconds(runs: options.quick ? 3 : 7)
        report.figures.append(
            BenchFigure(
                key: "audio_decode_23s_ms", label: "decode a 23 s stereo 44.1 kHz WAV (libsndfile, median, wall clock)",
                value: decode, unit: "ms",
                target: "≤ 50", met: decode <= 50))
    }
}
