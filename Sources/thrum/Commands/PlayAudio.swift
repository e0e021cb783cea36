import Foundation
import ThrumAudio
import ThrumEngine
import ThrumPattern
import ThrumTime

/// `thrum play`'s sound: which device the audio events play on, and what they did.
///
/// On a real port (real time) the audio goes to ALSA (`--audio-device`, default "default");
/// when no sound device opens, that is said once on standard error and the null sink (a
/// modelled 10 ms-period device) takes its place. On the virtual device (virtual time) the audio
/// goes to the modelled sound device, which knows when each frame really sounds; with
/// `--audio-device` the recording is then played on that ALSA device so it can be heard.
struct PlayAudio {
    /// The sink's name.
    var deviceName: String
    /// The modelled device (virtual target, or the null fallback), for truth.
    var model: SoundDeviceModel?
    /// ALSA device to replay the virtual recording on.
    var replayDevice: String?

    /// Gives `engine` its audio path for `pattern`; nil with `--no-audio` or without audio events.
    static func attach(
        to engine: HapticEngine, pattern: HapticPattern, file: String, virtual: Bool, device: String?, disabled: Bool
    ) -> PlayAudio? {
        guard !disabled, pattern.events.contains(where: { !$0.type.isHaptic }) else { return nil }
        let clock = engine.clock
        let directories = [FilePathText.directory(of: file), FileManager.default.currentDirectoryPath].map {
            $0.isEmpty ? "." : $0
        }
        let sink: AudioSink
        var summary: PlayAudio
        if virtual {
            let model = SoundDeviceModel.recording(clock: clock)
            sink = model
            summary = PlayAudio(
                deviceName: "modelled 10 ms-period sound device (virtual time)", model: model, replayDevice: device)
        } else {
            do {
                let alsa = try ALSAAudioSink(device: device ?? "default")
                sink = alsa
                summary = PlayAudio(deviceName: alsa.name, model: nil, replayDevice: nil)
            } catch {
                printError("no sound device: \(error.description); audio events play on the null sink")
                let model = SoundDeviceModel.null(clock: clock)
                sink = model
                summary = PlayAudio(deviceName: "null", model: model, replayDevice: nil)
            }
        }
        engine.audio = EngineAudio(sink: sink, clock: clock, searchDirectories: directories)
        return summary
    }

    /// Lets the playout clock gather samples before the start (0.2 s of run loop).
    static func warmUp(_ engine: HapticEngine) {
        if engine.audio != nil { engine.run(for: 0.2) }
    }

    /// The audio events of `engine`'s player `playerID`, relative to `start` (s), for the report.
    func events(of engine: HapticEngine, playerID: Int, start: Double) -> [[String: Any]] {
        engine.audioOnsets.filter { $0.playerID == playerID }.map { o in
            let truth = model.map { $0.playoutTime(ofFrame: o.frame) - start }
            return [
                "index": o.patternIndex, "type": o.type, "requested_s": JSONOutput.seconds(o.requestedTime - start),
                "onset_s": JSONOutput.seconds(o.onsetTime - start),
                "error_us": ((o.onsetTime - o.requestedTime) * 1e6).rounded(),
                "true_onset_s": JSONOutput.orNull(truth.map(JSONOutput.seconds)),
                "status": "played",
            ] as [String: Any]
        }
    }

    /// Text lines for the report.
    func text(of engine: HapticEngine, playerID: Int, start: Double) -> [String] {
        var lines = [
            "audio on \(deviceName), latency \(String(format: "%.1f", (engine.audio?.output.latency ?? 0) * 1e3)) ms compensated"
        ]
        for e in events(of: engine, playerID: playerID, start: start) {
            let type = (e["type"] as! String).padding(toLength: 17, withPad: " ", startingAt: 0)
            lines.append(
                String(format: "%3d", e["index"] as! Int) + "  \(type)  "
                    + String(
                        format: "%8.2f ms  %8.2f ms  %+7.0f µs", (e["requested_s"] as! Double) * 1e3,
                        (e["onset_s"] as! Double) * 1e3, e["error_us"] as! Double))
        }
        if let e = engine.audio?.deviceError { lines.append("audio stopped: \(e.description)") }
        return lines
    }

    /// On the virtual device with `--audio-device`: plays the recorded sound on that ALSA device
    /// (real time, blocking for the sound's length).
    func replayRecording() {
        guard let replayDevice, let model, !model.recorded.isEmpty else { return }
        do {
            let alsa = try ALSAAudioSink(device: replayDevice)
            defer { alsa.close() }
            var offset = 0
            let samples = model.recorded
            var idle = 0
            while offset < samples.count && idle < 2_000 {
                let end = min(samples.count, offset + 2 * alsa.periodFrames)
                let taken = try alsa.write(Array(samples[offset..<end]))
                if taken == 0 {
                    idle += 1
                    usleep(2_000)
                } else {
                    idle = 0
                }
                offset += 2 * taken
            }
            usleep(UInt32(Double(alsa.bufferFrames) / alsa.sampleRate * 1e6))
        } catch {
            printError("cannot play the recorded sound: \(error.description)")
        }
    }
}
