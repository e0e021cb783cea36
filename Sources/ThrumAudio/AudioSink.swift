import ThrumTime

/// Where a sound device stands, as ALSA's `snd_pcm_htimestamp` / `snd_pcm_delay` report it.
public struct SoundDeviceStatus: Equatable, Sendable {
    /// When the device last updated its position (the host clock's timeline).
    public var timestamp: HostTime
    /// Frames between the next frame written and the speaker at `timestamp` (ALSA's delay:
    /// buffered frames plus the hardware's own latency).
    public var delayFrames: Int
    /// Frames that can be written without blocking.
    public var availableFrames: Int

    /// Creates a status.
    public init(timestamp: HostTime, delayFrames: Int, availableFrames: Int) {
        self.timestamp = timestamp
        self.delayFrames = delayFrames
        self.availableFrames = availableFrames
    }
}

/// A sound output: accepts interleaved stereo float frames and reports its delay. The ALSA
/// device (``ALSAAudioSink``), the modelled device of virtual time (``SoundDeviceModel``, also
/// the null and recording sinks) implement it.
public protocol AudioSink: AnyObject {
    /// Frames per second.
    var sampleRate: Double { get }
    /// Frames per period (the device's interrupt granularity).
    var periodFrames: Int { get }
    /// Frames the device's ring buffer holds.
    var bufferFrames: Int { get }
    /// Frames the device found missing since it opened (underruns).
    var underrunFrames: Int { get }
    /// A human name ("ALSA default", "null").
    var name: String { get }
    /// Where the device stands now.
    func status() throws(AudioError) -> SoundDeviceStatus
    /// Writes interleaved stereo frames; returns how many frames were taken.
    func write(_ samples: [Float]) throws(AudioError) -> Int
    /// Stops and releases the device.
    func close()
}
