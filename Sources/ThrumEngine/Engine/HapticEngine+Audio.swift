import Foundation
import ThrumAudio
import ThrumPattern
import ThrumTime

// The engine's side of audio: resources, and the one place players meet the audio path.
extension HapticEngine {
    /// Registers the audio file at `url` for `HapticEvent(audioResourceID:…)` events, like
    /// `CHHapticEngine.registerAudioResource(_:options:)`; libsndfile decodes it now.
    /// - Throws: ``HapticError`` `fileNotFound` (−4851) for a missing file or a URL that is not a
    ///   file's; `invalidAudioResource` (−4824) for a file over 4.2 MB or 23 s, or one libsndfile cannot decode.
    public func registerAudioResource(_ url: URL, options: AudioResource.Options = AudioResource.Options()) throws
        -> Int
    {
        guard url.isFileURL else { throw HapticError(.fileNotFound, "\(url) is not a file URL") }
        return try audioResources.register(path: url.path, options: options)
    }

    /// Forgets a registered audio resource, like `CHHapticEngine.unregisterAudioResource(_:)`.
    /// - Throws: ``HapticError`` `invalidAudioResource` (−4824) for an id that is not registered.
    public func unregisterAudioResource(_ resourceID: Int) throws {
        try audioResources.unregister(resourceID)
    }

    /// The player for `pattern`: with ``playsAudioOnly`` its haptic events are left out; with an
    /// audio path its sounds are loaded and rendered now (a missing file is an error here, when
    /// played) and each `AudioCustom` event lasts as long as its sound.
    func makeAudioAwarePlayer(_ pattern: HapticPattern, id: Int) throws -> StreamingPatternPlayer {
        var pattern = pattern
        if playsAudioOnly { pattern.events.removeAll { $0.type.isHaptic } }
        guard let audio, !playsHapticsOnly, EngineAudio.hasAudio(pattern) else {
            return StreamingPatternPlayer(engine: self, id: id, pattern: pattern)
        }
        let (adjusted, program, resources) = try audio.prepare(pattern, registry: audioResources)
        audio.adopt(player: id, pattern: pattern, program: program, resources: resources)
        return StreamingPatternPlayer(engine: self, id: id, pattern: adjusted)
    }

    /// Where an immediate start of `player` goes so its first sound is on time: the sound
    /// device's start lead after now, or nil (as soon as the drive can) without sound to play.
    func audioStartTime(for player: StreamingPatternPlayer) -> EngineTime? {
        guard let audio, !playsHapticsOnly, !isMutedForAudio, EngineAudio.hasAudio(player.pattern) else { return nil }
        return timeNow + .seconds(audio.startLead)
    }

    /// Plays this engine's audio events on ALSA device `device` ("default" reaches PipeWire or
    /// PulseAudio on a desktop; "null" plays nowhere): sets ``audio``. For an engine on a real
    /// port (real time); in virtual time, set ``audio`` with a `SoundDeviceModel` on the rig's clock.
    /// - Throws: ``ThrumAudio/AudioError`` `invalidAudioSession` (−4815) when the device cannot be opened.
    public func useSoundDevice(_ device: String = "default", searchDirectories: [String] = ["."]) throws(AudioError) {
        let sink = try ALSAAudioSink(device: device)
        audio?.close()
        audio = EngineAudio(sink: sink, clock: session.pump.clock, searchDirectories: searchDirectories)
    }

    /// Audio onsets played so far (empty without an audio path).
    public var audioOnsets: [AudioOnsetRecord] { audio?.onsets ?? [] }
}
