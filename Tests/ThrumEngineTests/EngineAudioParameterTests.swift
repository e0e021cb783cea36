import Foundation
import ThrumAudio
import ThrumEngine
import ThrumPattern
import XCTest

/// Each audio event type and audio parameter played by the engine onto the recording sink: what
/// reaches the (modelled) speaker, read back at its true playout times.
final class EngineAudioParameterTests: XCTestCase {
    /// Plays `events` (+ `parameters`) from engine time `start`; returns the recording as stereo
    /// frames from the pattern's time 0 on (truth: the model's playout time of each frame).
    func record(
        _ events: [HapticEvent], parameters: [HapticDynamicParameter] = [], curves: [HapticParameterCurve] = [],
        resource: AudioBuffer? = nil, seconds: Double = 0.6
    ) throws -> AudioBuffer {
        let r = EngineRig()
        let device = SoundDeviceModel.recording(clock: r.clock)
        r.engine.audio = EngineAudio(sink: device, clock: r.clock)
        try r.engine.start()
        r.engine.run(for: 0.3)
        var events = events
        if let resource {
            let dir = NSTemporaryDirectory() + "thrum-param-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try SoundFile.write(resource, to: dir + "/s.wav", format: .wavFloat)
            let id = try r.engine.registerAudioResource(URL(fileURLWithPath: dir + "/s.wav"))
            for i in events.indices where events[i].type == .audioCustom { events[i].audioResourceID = id }
        }
        let player = try r.engine.makePlayer(
            with: HapticPattern(events: events, parameters: parameters, parameterCurves: curves))
        let start = r.engine.currentTime + 0.1
        try player.start(atTime: start)
        r.engine.run(for: 0.1 + seconds + 0.1)
        XCTAssertEqual(device.underrunFrames, 0)
        let s = device.recorded
        var out: [Float] = []
        for i in 0..<(s.count / 2) where device.playoutTime(ofFrame: Double(i)) >= start {
            out.append(s[2 * i])
            out.append(s[2 * i + 1])
            if out.count / 2 >= Int(seconds * 48_000) { break }
        }
        return AudioBuffer(sampleRate: 48_000, channels: 2, samples: out)
    }

    func custom(_ params: [HapticEventParameter], at t: Double = 0.1, duration: Double = 0) -> HapticEvent {
        HapticEvent(audioResourceID: 0, parameters: params, relativeTime: t, duration: duration)
    }

    func tone(_ params: [HapticEventParameter], at t: Double = 0.1, duration: Double = 0.2) -> HapticEvent {
        HapticEvent(eventType: .audioContinuous, parameters: params, relativeTime: t, duration: duration)
    }

    let sound = sine(frequency: 1_000, seconds: 0.2)

    /// Frames of pattern time [a, b) s.
    func span(_ a: Double, _ b: Double) -> (Int, Int) { (Int(a * 48_000), Int(b * 48_000)) }

    func testAudioCustomStartsOnTimeAtItsVolume() throws {
        let b = try record([custom([.init(parameterID: .audioVolume, value: 0.5)])], resource: sound)
        let (a, z) = span(0.15, 0.25)
        XCTAssertEqual(rms(b, channel: 0, from: a, to: z), 0.25 / 2.squareRoot(), accuracy: 0.01)
        XCTAssertEqual(rms(b, channel: 0, from: 0, to: 4_700), 0, accuracy: 1e-6, "silent before 0.1 s")
        let first = try XCTUnwrap((0..<b.frames).first { abs(b.sample($0, channel: 0)) > 1e-6 })
        XCTAssertEqual(Double(first) / 48_000, 0.1, accuracy: 0.0003, "true onset within 300 µs")
    }

    func testPanLeftAndRight() throws {
        let left = try record([custom([.init(parameterID: .audioPan, value: -1)])], resource: sound)
        let (a, z) = span(0.15, 0.25)
        XCTAssertGreaterThan(rms(left, channel: 0, from: a, to: z), 0.3)
        XCTAssertEqual(rms(left, channel: 1, from: a, to: z), 0, accuracy: 1e-6)
        let right = try record(
            [custom([])], parameters: [.init(parameterID: .audioPanControl, value: 1, relativeTime: 0)], resource: sound
        )
        XCTAssertEqual(rms(right, channel: 0, from: a, to: z), 0, accuracy: 1e-6)
    }

    func testPitchAndPitchControl() throws {
        let up = try record([custom([.init(parameterID: .audioPitch, value: 1)])], resource: sound)
        XCTAssertEqual(crossingRate(up, from: 5_500, to: 8_500), 2_000, accuracy: 60)
        let tonal = try record(
            [tone([])], parameters: [.init(parameterID: .audioPitchControl, value: 1, relativeTime: 0)])
        XCTAssertEqual(crossingRate(tonal, from: 6_000, to: 14_000), 880, accuracy: 20)
    }

    func testBrightness() throws {
        let high = sine(frequency: 8_000, seconds: 0.2)
        let (a, z) = span(0.15, 0.25)
        let bright = try record([custom([])], resource: high)
        let dull = try record([custom([.init(parameterID: .audioBrightness, value: 0)])], resource: high)
        XCTAssertLessThan(rms(dull, channel: 0, from: a, to: z), rms(bright, channel: 0, from: a, to: z) / 10)
    }

    func testAudioContinuousEnvelopeAndVolumeCurve() throws {
        let b = try record(
            [tone([.init(parameterID: .attackTime, value: 0.5)], duration: 0.45)],
            curves: [
                .init(
                    parameterID: .audioVolumeControl,
                    controlPoints: [.init(relativeTime: 0, value: 1), .init(relativeTime: 0.1, value: 0.2)],
                    relativeTime: 0.3)
            ])
        // The attack (≈ 0.09 s) rises; the curve takes the level from 1 to 0.2 from 0.3 s to 0.4 s.
        XCTAssertLessThan(rms(b, channel: 0, from: 4_800, to: 5_300), rms(b, channel: 0, from: 10_000, to: 14_000) / 4)
        XCTAssertEqual(
            rms(b, channel: 0, from: 20_160, to: 21_600) / rms(b, channel: 0, from: 12_000, to: 14_000), 0.2,
            accuracy: 0.05)
    }

    func testLoopingAudioCustomFillsItsDuration() throws {
        let short = sine(frequency: 500, seconds: 0.05)
        let dir = NSTemporaryDirectory() + "thrum-loop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SoundFile.write(short, to: dir + "/loop.wav", format: .wavFloat)
        let e = HapticEvent(
            audioWaveform: .init(path: dir + "/loop.wav", loopEnabled: true), parameters: [], relativeTime: 0.1,
            duration: 0.3)
        let b = try record([e])
        XCTAssertGreaterThan(rms(b, channel: 0, from: 15_000, to: 18_000), 0.3, "still sounding at 0.35 s")
        XCTAssertEqual(rms(b, channel: 0, from: 19_500, to: 24_000), 0, accuracy: 1e-6, "silent after 0.4 s")
    }

    func testRunTimeShapeControlsApplyWhereEventsStart() throws {
        let r = EngineRig()
        let device = SoundDeviceModel.recording(clock: r.clock)
        r.engine.audio = EngineAudio(sink: device, clock: r.clock)
        try r.engine.start()
        r.engine.run(for: 0.3)
        // Two tones; pitch +1 and pan −1 sent for the second one's start only.
        let player = try r.engine.makePlayer(
            with: HapticPattern(
                events: [tone([], at: 0, duration: 0.2), tone([], at: 0.4, duration: 0.2)], parameters: [],
                parameterCurves: []))
        let start = r.engine.currentTime + 0.1
        try player.start(atTime: start)
        try player.sendParameters(
            [
                .init(parameterID: .audioPitchControl, value: 1, relativeTime: 0),
                .init(parameterID: .audioPanControl, value: -1, relativeTime: 0),
            ],
            atTime: start + 0.3)
        r.engine.run(for: 0.9)
        let s = device.recorded
        func frames(_ a: Double, _ b: Double) -> AudioBuffer {
            var out: [Float] = []
            for i in 0..<(s.count / 2) {
                let t = device.playoutTime(ofFrame: Double(i)) - start
                if t >= a && t < b { out += [s[2 * i], s[2 * i + 1]] }
            }
            return AudioBuffer(sampleRate: 48_000, channels: 2, samples: out)
        }
        let first = frames(0.02, 0.18), second = frames(0.42, 0.58)
        XCTAssertEqual(crossingRate(first, from: 0, to: first.frames), 440, accuracy: 15)
        XCTAssertEqual(crossingRate(second, from: 0, to: second.frames), 880, accuracy: 20)
        XCTAssertGreaterThan(rms(first, channel: 1, from: 0, to: first.frames), 0.1)
        XCTAssertEqual(rms(second, channel: 1, from: 0, to: second.frames), 0, accuracy: 1e-6, "panned left")
    }

    func testRunTimeVolumeControl() throws {
        let r = EngineRig()
        let device = SoundDeviceModel.recording(clock: r.clock)
        r.engine.audio = EngineAudio(sink: device, clock: r.clock)
        try r.engine.start()
        r.engine.run(for: 0.3)
        let player = try r.engine.makePlayer(
            with: HapticPattern(events: [tone([], at: 0, duration: 0.6)], parameters: [], parameterCurves: []))
        let start = r.engine.currentTime + 0.1
        try player.start(atTime: start)
        try player.sendParameters(
            [.init(parameterID: .audioVolumeControl, value: 0.25, relativeTime: 0)], atTime: start + 0.3)
        r.engine.run(for: 0.9)
        func level(_ a: Double, _ b: Double) -> Double {
            let s = device.recorded
            var sum = 0.0, n = 0
            for i in 0..<(s.count / 2) {
                let t = device.playoutTime(ofFrame: Double(i)) - start
                if t >= a && t < b { sum += Double(s[2 * i] * s[2 * i]); n += 1 }
            }
            return (sum / Double(max(n, 1))).squareRoot()
        }
        XCTAssertEqual(level(0.35, 0.5) / level(0.1, 0.25), 0.25, accuracy: 0.02)
    }
}

/// A mono sine, `seconds` long, at 48 kHz.
func sine(frequency: Double, seconds: Double) -> AudioBuffer {
    let n = Int(seconds * 48_000)
    return AudioBuffer(
        sampleRate: 48_000, channels: 1,
        samples: (0..<n).map { Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / 48_000)) })
}

func rms(_ b: AudioBuffer, channel: Int, from: Int, to: Int) -> Double {
    let end = min(to, b.frames)
    guard end > from else { return 0 }
    var s = 0.0
    for i in from..<end { s += Double(b.sample(i, channel: channel) * b.sample(i, channel: channel)) }
    return (s / Double(end - from)).squareRoot()
}

func crossingRate(_ b: AudioBuffer, from: Int, to: Int) -> Double {
    var n = 0
    for i in (from + 1)..<min(to, b.frames) where b.sample(i - 1, channel: 0) < 0 && b.sample(i, channel: 0) >= 0 {
        n += 1
    }
    return Double(n) / (Double(min(to, b.frames) - from) / 48_000)
}
