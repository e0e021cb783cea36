internal import CSndFile
import ThrumPattern

/// Audio files through libsndfile (`sf_open`, `sf_readf_float`, `sf_writef_float`): WAV, AIFF,
/// CAF, FLAC, Ogg/Vorbis, Opus and MP3, whatever the installed libsndfile decodes. No decoder of
/// Thrum's own.
public enum SoundFile {
    /// What a file holds, read from its header without decoding (`sf_open` + `SF_INFO`).
    public struct Info: Equatable, Sendable {
        public var frames: Int
        public var sampleRate: Double
        public var channels: Int
        /// Length in seconds.
        public var duration: Double { sampleRate > 0 ? Double(frames) / sampleRate : 0 }
    }

    /// Reads the header of the audio file at `path`.
    /// - Throws: ``AudioError`` `invalidAudioResource` (−4824) when libsndfile cannot open it.
    public static func info(path: String) throws(AudioError) -> Info {
        var info = SF_INFO()
        let file = try open(path, &info)
        sf_close(file)
        return Info(frames: Int(info.frames), sampleRate: Double(info.samplerate), channels: Int(info.channels))
    }

    /// Decodes the whole audio file at `path` to float samples (`sf_readf_float`).
    /// - Throws: ``AudioError`` `invalidAudioResource` (−4824) when libsndfile cannot open or read it.
    public static func decode(path: String) throws(AudioError) -> AudioBuffer {
        var info = SF_INFO()
        let file = try open(path, &info)
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let frames = Int(info.frames)
        var samples = [Float](repeating: 0, count: frames * channels)
        let read = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) }
        guard read >= 0 else {
            throw AudioError(
                .invalidAudioResource, subject: path,
                "libsndfile could not read the audio data: \(String(cString: sf_strerror(file)))")
        }
        if Int(read) < frames { samples.removeLast((frames - Int(read)) * channels) }
        return AudioBuffer(sampleRate: Double(info.samplerate), channels: channels, samples: samples)
    }

    /// Container formats ``write(_:to:format:)`` can produce.
    public enum Format: Sendable {
        /// Microsoft WAV, 16-bit PCM.
        case wav16
        /// FLAC, 16-bit.
        case flac16
        /// AIFF, 16-bit PCM.
        case aiff16
        /// Microsoft WAV, 32-bit float.
        case wavFloat

        var code: Int32 {
            switch self {
            case .wav16: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
            case .flac16: return Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
            case .aiff16: return Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16)
            case .wavFloat: return Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)
            }
        }
    }

    /// Writes `buffer` to `path` (`sf_writef_float`): test fixtures and the bench's 23 s file are
    /// generated this way at run time instead of being committed.
    /// - Throws: ``AudioError`` `invalidAudioResource` (−4824) when libsndfile cannot write.
    public static func write(_ buffer: AudioBuffer, to path: String, format: Format = .wav16) throws(AudioError) {
        var info = SF_INFO()
        info.samplerate = Int32(buffer.sampleRate.rounded())
        info.channels = Int32(buffer.channels)
        info.format = format.code
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioError(
                .invalidAudioResource, subject: path, "libsndfile cannot write it: \(String(cString: sf_strerror(nil)))"
            )
        }
        defer { sf_close(file) }
        let written = buffer.samples.withUnsafeBufferPointer {
            sf_writef_float(file, $0.baseAddress, sf_count_t(buffer.frames))
        }
        guard Int(written) == buffer.frames else {
            throw AudioError(
                .invalidAudioResource, subject: path, "libsndfile wrote \(written) of \(buffer.frames) frames")
        }
    }

    private static func open(_ path: String, _ info: inout SF_INFO) throws(AudioError) -> OpaquePointer {
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioError(
                .invalidAudioResource, subject: path,
                "not an audio file libsndfile decodes (WAV, AIFF, CAF, FLAC, Ogg, MP3 expected): \(String(cString: sf_strerror(nil)))"
            )
        }
        return file
    }
}
