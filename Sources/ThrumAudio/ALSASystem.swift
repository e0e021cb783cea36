internal import CALSA

/// The ALSA PCM calls ThrumAudio makes, one method per C call (or per fixed group of
/// hardware/software-parameter calls), so tests substitute a recording fake
/// (swift-system's mocking idea). Errors are negative errno values, as ALSA returns them.
public protocol ALSASystem: AnyObject {
    /// `snd_pcm_open(name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)`.
    func open(_ name: String) -> Result<OpaquePointer, ALSAErrno>
    /// `snd_pcm_hw_params_*` (interleaved float, `channels`, rate and period near those asked,
    /// `periods` periods) then `snd_pcm_sw_params_*` (monotonic timestamps, start at the first
    /// period) and `snd_pcm_prepare`. Returns the rate, period and buffer obtained.
    func configure(_ pcm: OpaquePointer, rate: Int, channels: Int, periodFrames: Int, periods: Int)
        -> Result<(rate: Int, periodFrames: Int, bufferFrames: Int), ALSAErrno>
    /// `snd_pcm_avail_delay`: frames writable and the delay, frames.
    func availDelay(_ pcm: OpaquePointer) -> Result<(avail: Int, delay: Int), ALSAErrno>
    /// `snd_pcm_htimestamp`: the timestamp of the last position update, ns (0 when the device gives none).
    func timestamp(_ pcm: OpaquePointer) -> Int64
    /// `snd_pcm_writei` of interleaved float frames; frames written or a negative errno.
    func writei(_ pcm: OpaquePointer, _ samples: [Float], frames: Int) -> Int
    /// `snd_pcm_recover(pcm, err, silent)` after an underrun (−EPIPE) or suspend (−ESTRPIPE).
    func recover(_ pcm: OpaquePointer, _ error: Int32) -> Int32
    /// `snd_pcm_drop` then `snd_pcm_close`.
    func close(_ pcm: OpaquePointer)
}

/// A negative errno from ALSA, with `snd_strerror`'s text.
public struct ALSAErrno: Error, Equatable, Sendable, CustomStringConvertible {
    /// The negative errno.
    public var code: Int32
    /// Creates one.
    public init(_ code: Int32) { self.code = code }
    public var description: String { String(cString: snd_strerror(code)) + " (\(code))" }
}

/// The real calls into libasound.
public final class LibASound: ALSASystem {
    /// The library, its own stderr diagnostics silenced (Thrum's errors carry ALSA's code and text).
    public init() { thrum_alsa_silence_library_errors() }

    public func open(_ name: String) -> Result<OpaquePointer, ALSAErrno> {
        var pcm: OpaquePointer?
        let rc = snd_pcm_open(&pcm, name, SND_PCM_STREAM_PLAYBACK, Int32(SND_PCM_NONBLOCK))
        guard rc >= 0, let pcm else { return .failure(ALSAErrno(rc < 0 ? rc : -1)) }
        return .success(pcm)
    }

    public func configure(_ pcm: OpaquePointer, rate: Int, channels: Int, periodFrames: Int, periods: Int)
        -> Result<(rate: Int, periodFrames: Int, bufferFrames: Int), ALSAErrno>
    {
        var hw: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hw) >= 0, let hw else { return .failure(ALSAErrno(-12)) }
        defer { snd_pcm_hw_params_free(hw) }
        var r = UInt32(rate)
        var period = snd_pcm_uframes_t(periodFrames)
        var buffer = snd_pcm_uframes_t(periodFrames * periods)
        var dir: Int32 = 0
        for rc in [
            snd_pcm_hw_params_any(pcm, hw),
            snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED),
            snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE),
            snd_pcm_hw_params_set_channels(pcm, hw, UInt32(channels)),
            snd_pcm_hw_params_set_rate_near(pcm, hw, &r, &dir),
            snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir),
            snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer),
            snd_pcm_hw_params(pcm, hw),
        ] where rc < 0 { return .failure(ALSAErrno(rc)) }
        snd_pcm_hw_params_get_period_size(hw, &period, &dir)
        snd_pcm_hw_params_get_buffer_size(hw, &buffer)
        var sw: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&sw) >= 0, let sw else { return .failure(ALSAErrno(-12)) }
        defer { snd_pcm_sw_params_free(sw) }
        for rc in [
            snd_pcm_sw_params_current(pcm, sw),
            snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE),
            snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC),
            snd_pcm_sw_params_set_start_threshold(pcm, sw, period),
            snd_pcm_sw_params(pcm, sw),
            snd_pcm_prepare(pcm),
        ] where rc < 0 { return .failure(ALSAErrno(rc)) }
        return .success((Int(r), Int(period), Int(buffer)))
    }

    public func availDelay(_ pcm: OpaquePointer) -> Result<(avail: Int, delay: Int), ALSAErrno> {
        var avail: snd_pcm_sframes_t = 0, delay: snd_pcm_sframes_t = 0
        let rc = snd_pcm_avail_delay(pcm, &avail, &delay)
        return rc < 0 ? .failure(ALSAErrno(rc)) : .success((Int(avail), Int(delay)))
    }

    public func timestamp(_ pcm: OpaquePointer) -> Int64 {
        var avail: snd_pcm_uframes_t = 0
        var ts = snd_htimestamp_t()
        guard snd_pcm_htimestamp(pcm, &avail, &ts) >= 0 else { return 0 }
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    public func writei(_ pcm: OpaquePointer, _ samples: [Float], frames: Int) -> Int {
        samples.withUnsafeBytes { Int(snd_pcm_writei(pcm, $0.baseAddress, snd_pcm_uframes_t(frames))) }
    }

    public func recover(_ pcm: OpaquePointer, _ error: Int32) -> Int32 {
        snd_pcm_recover(pcm, error, 1)
    }

    public func close(_ pcm: OpaquePointer) {
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
    }
}
