import ThrumTime

/// A sound device through ALSA (which reaches PipeWire and PulseAudio through their ALSA
/// plugins): interleaved float stereo, non-blocking, monotonic timestamps. An underrun is
/// recovered (`snd_pcm_recover`) and counted.
public final class ALSAAudioSink: AudioSink {
    public let name: String
    public let sampleRate: Double
    public let periodFrames: Int
    public let bufferFrames: Int
    public private(set) var underrunFrames = 0
    /// Underruns recovered.
    public private(set) var underruns = 0
    private let system: ALSASystem
    private let clock: HostClock
    private var pcm: OpaquePointer?

    /// Opens ALSA device `device` ("default", "null", "hw:0,0", "pipewire"…) at `sampleRate`
    /// with a `periodFrames` period and `periods` periods of buffer.
    /// - Throws: ``AudioError`` `invalidAudioSession` (−4815) naming the device and ALSA's reason.
    public init(
        device: String = "default", sampleRate: Int = 48_000, periodFrames: Int = 480, periods: Int = 4,
        clock: HostClock = MonotonicClock(), system: ALSASystem = LibASound()
    ) throws(AudioError) {
        self.system = system
        self.clock = clock
        name = "ALSA \(device)"
        let pcm: OpaquePointer
        switch system.open(device) {
        case .success(let p): pcm = p
        case .failure(let e):
            throw AudioError(.invalidAudioSession, subject: "ALSA device '\(device)'", "cannot be opened: \(e)")
        }
        switch system.configure(pcm, rate: sampleRate, channels: 2, periodFrames: periodFrames, periods: periods) {
        case .success(let got):
            self.sampleRate = Double(got.rate)
            self.periodFrames = got.periodFrames
            self.bufferFrames = got.bufferFrames
        case .failure(let e):
            system.close(pcm)
            throw AudioError(
                .invalidAudioSession, subject: "ALSA device '\(device)'",
                "refuses 2-channel float output at \(sampleRate) Hz: \(e)")
        }
        self.pcm = pcm
    }

    public func status() throws(AudioError) -> SoundDeviceStatus {
        guard let pcm else { throw AudioError(.invalidAudioSession, subject: name, "is closed") }
        var result = system.availDelay(pcm)
        if case .failure(let e) = result {
            try recover(e)
            result = system.availDelay(pcm)
        }
        let (avail, delay): (Int, Int)
        switch result {
        case .success(let v): (avail, delay) = v
        case .failure(let e): throw AudioError(.invalidAudioSession, subject: name, "status failed: \(e)")
        }
        // A device that gives no timestamp (some plugins): the delay is read now.
        let ns = system.timestamp(pcm)
        let stamp = ns > 0 ? HostTime(nanoseconds: ns) : clock.now()
        return SoundDeviceStatus(
            timestamp: stamp, delayFrames: max(0, delay), availableFrames: max(0, min(avail, bufferFrames)))
    }

    public func write(_ samples: [Float]) throws(AudioError) -> Int {
        guard let pcm else { throw AudioError(.invalidAudioSession, subject: name, "is closed") }
        let frames = samples.count / 2
        guard frames > 0 else { return 0 }
        let n = system.writei(pcm, samples, frames: frames)
        if n == -11 { return 0 }  // EAGAIN: full
        if n < 0 {
            try recover(ALSAErrno(Int32(n)))
            let again = system.writei(pcm, samples, frames: frames)
            return max(0, again)
        }
        return n
    }

    private func recover(_ e: ALSAErrno) throws(AudioError) {
        guard let pcm else { return }
        if e.code == -32 {  // EPIPE: underrun
            underruns += 1
            underrunFrames += periodFrames
        }
        guard system.recover(pcm, e.code) >= 0 else {
            throw AudioError(.invalidAudioSession, subject: name, "failed: \(e)")
        }
    }

    public func close() {
        if let pcm { system.close(pcm) }
        pcm = nil
    }

    deinit { close() }
}
