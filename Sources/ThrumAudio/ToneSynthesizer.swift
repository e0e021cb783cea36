import Foundation

/// The sound of an `AudioContinuous` event: Apple leaves the system waveform undocumented, so
/// Thrum plays a harmonic tone whose character follows the event's parameters (see `docs/audio.md`):
/// `AudioPitch` −1…1 sets the fundamental from 220 Hz to 880 Hz (an octave either side of
/// 440 Hz), and `AudioBrightness` 0…1 behaves like haptic sharpness, from a pure sine (dull) to
/// eight harmonics falling as 1/k (bright, close to a sawtooth).
public struct ToneSynthesizer: Equatable, Sendable {
    /// Fundamental at pitch 0, Hz.
    public static let centreFrequency = 440.0
    /// Harmonics at brightness 1.
    public static let harmonics = 8

    /// Fundamental, Hz.
    public var frequency: Double
    /// Brightness, 0…1.
    public var brightness: Double

    /// A tone for a final (clamped) pitch and brightness.
    public init(pitch: Double, brightness: Double) {
        frequency = Self.centreFrequency * pow(2, min(1, max(-1, pitch)))
        self.brightness = min(1, max(0, brightness))
    }

    /// Weights of harmonics 1…``harmonics``, normalised so they sum to 1 (the peak stays ≤ 1).
    public var weights: [Double] {
        let raw = (1...Self.harmonics).map { k in k == 1 ? 1 : pow(brightness, Double(k - 1)) / Double(k) }
        let total = raw.reduce(0, +)
        return raw.map { $0 / total }
    }

    /// `count` samples of the tone at `sampleRate`, starting at phase 0 (harmonics above Nyquist left out).
    public func samples(count: Int, sampleRate: Double) -> [Float] {
        let w = weights
        let nyquist = sampleRate / 2
        var out = [Float](repeating: 0, count: count)
        for (k, weight) in w.enumerated() where weight > 1e-6 && frequency * Double(k + 1) < nyquist {
            let step = 2 * Double.pi * frequency * Double(k + 1) / sampleRate
            for i in 0..<count { out[i] += Float(weight * sin(step * Double(i))) }
        }
        return out
    }
}
