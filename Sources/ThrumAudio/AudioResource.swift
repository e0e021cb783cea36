import Foundation
import ThrumPattern

/// A decoded audio file ready to play: what `registerAudioResource(_:options:)` and an AHAP
/// `EventWaveformPath` load, checked against the Core Haptics guides' limits.
public struct AudioResource: Equatable, Sendable {
    /// The guides' limits on one audio resource.
    public struct Limits: Equatable, Sendable {
        /// Largest file, bytes: 4.2 MB (taken as 4 200 000 bytes, the file as stored).
        public var maximumBytes: Int = 4_200_000
        /// Longest sound, s.
        public var maximumDuration: Double = 23
        /// The guides' figures.
        public init() {}
    }

    /// Options of a resource (`CHHapticAudioResourceKeyUseVolumeEnvelope`, `…LoopEnabled`).
    public struct Options: Equatable, Sendable {
        /// Ramp the sound in and out with the event's envelope (default true).
        public var useVolumeEnvelope: Bool
        /// Loop the sound for the event's duration (default false).
        public var loopEnabled: Bool
        /// Apple's defaults.
        public init(useVolumeEnvelope: Bool = true, loopEnabled: Bool = false) {
            self.useVolumeEnvelope = useVolumeEnvelope
            self.loopEnabled = loopEnabled
        }
    }

    /// The file it came from.
    public var path: String
    /// The decoded sound.
    public var buffer: AudioBuffer
    /// Its options.
    public var options: Options

    /// A resource from a sound already decoded (or synthesised).
    public init(path: String, buffer: AudioBuffer, options: Options = Options()) {
        self.path = path
        self.buffer = buffer
        self.options = options
    }

    /// Loads and decodes the file at `path`, refusing one over `limits`.
    /// - Throws: ``AudioError``: `fileNotFound` (−4851) when there is no such file;
    ///   `invalidAudioResource` (−4824) when it is over 4.2 MB or 23 s, or libsndfile cannot decode it.
    public static func load(path: String, options: Options = Options(), limits: Limits = Limits()) throws(AudioError)
        -> AudioResource
    {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw AudioError(.fileNotFound, subject: path, "no such audio file")
        }
        let bytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard bytes <= limits.maximumBytes else {
            throw AudioError(
                .invalidAudioResource, subject: path,
                "the audio file is \(bytes) bytes; an audio resource is at most \(limits.maximumBytes) bytes (4.2 MB)")
        }
        let info = try SoundFile.info(path: path)
        guard info.duration <= limits.maximumDuration else {
            throw AudioError(
                .invalidAudioResource, subject: path,
                "the sound lasts \(String(format: "%.2f", info.duration)) s; an audio resource lasts at most \(limits.maximumDuration) s"
            )
        }
        return AudioResource(path: path, buffer: try SoundFile.decode(path: path), options: options)
    }

    /// Where an `EventWaveformPath` points: itself when absolute, else the first of
    /// `directories` holding it (the AHAP file's directory first, as Core Haptics searches).
    /// Nil when no candidate exists.
    public static func resolve(_ waveformPath: String, in directories: [String]) -> String? {
        if waveformPath.hasPrefix("/") {
            return FileManager.default.fileExists(atPath: waveformPath) ? waveformPath : nil
        }
        for d in directories {
            let candidate = (d as NSString).appendingPathComponent(waveformPath)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }
}
