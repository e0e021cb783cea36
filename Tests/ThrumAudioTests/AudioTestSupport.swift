import Foundation
import ThrumAudio
import XCTest

/// A temporary directory removed at the end of the test.
final class TemporaryDirectory {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "thrum-audio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A mono sine, `seconds` long.
func sine(frequency: Double, seconds: Double, rate: Double = 48_000, amplitude: Float = 0.5) -> AudioBuffer {
    let n = Int(seconds * rate)
    return AudioBuffer(
        sampleRate: rate, channels: 1,
        samples: (0..<n).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) })
}

/// Root mean square of one channel of interleaved stereo frames in [from, to).
func rms(_ b: AudioBuffer, channel: Int, from: Int = 0, to: Int? = nil) -> Double {
    let end = min(to ?? b.frames, b.frames)
    guard end > from else { return 0 }
    var s = 0.0
    for i in from..<end { s += Double(b.sample(i, channel: channel) * b.sample(i, channel: channel)) }
    return (s / Double(end - from)).squareRoot()
}

/// Upward zero crossings per second of channel 0.
func crossingRate(_ b: AudioBuffer, from: Int, to: Int) -> Double {
    var n = 0
    for i in (from + 1)..<to where b.sample(i - 1, channel: 0) < 0 && b.sample(i, channel: 0) >= 0 { n += 1 }
    return Double(n) / (Double(to - from) / b.sampleRate)
}
