import Foundation
import ThrumAudio
import ThrumPattern
import XCTest

/// Each audio event type and parameter, rendered and checked sample by sample.
final class AudioEventRendererTests: XCTestCase {
    let renderer = AudioEventRenderer(sampleRate: 48_000)

    func custom(
        _ params: [HapticEventParameter] = [], duration: Double = 0, at t: Double = 0,
        options: AudioResource.Options = .init(),
        sound: AudioBuffer = sine(frequency: 1_000, seconds: 0.2), parameters: [HapticDynamicParameter] = [],
        curves: [HapticParameterCurve] = []
    ) throws -> AudioBuffer {
        let e = HapticEvent(audioResourceID: 1, parameters: params, relativeTime: t, duration: duration)
        let p = HapticPattern(events: [e], parameters: parameters, parameterCurves: curves)
        let program = try renderer.render(p) { _ throws(AudioError) in
            AudioResource(path: "s.wav", buffer: sound, options: options)
        }
        XCTAssertEqual(program.voices.count, 1)
        XCTAssertEqual(program.voices[0].requestedTime, t)
        return program.voices[0].buffer
    }

    func tone(_ params: [HapticEventParameter] = [], duration: Double = 0.2, parameters: [HapticDynamicParameter] = [])
        throws -> AudioBuffer
    {
        let e = HapticEvent(eventType: .audioContinuous, parameters: params, relativeTime: 0, duration: duration)
        let program = try renderer.render(HapticPattern(events: [e], parameters: parameters, parameterCurves: [])) {
            i throws(AudioError) in
            throw AudioError(.invalidAudioResource, subject: "\(i)", "unused")
        }
        return program.voices[0].buffer
    }

    func testAudioCustomPlaysTheFileAtFullLengthWithItsEnvelopeRamps() throws {
        let b = try custom()
        XCTAssertEqual(b.frames, 9_600)
        XCTAssertEqual(b.channels, 2)
        // Mid-file, the sound is the file's (volume 1, centred pan keeps the level).
        XCTAssertEqual(rms(b, channel: 0, from: 2_400, to: 7_200), 0.5 / 2.squareRoot(), accuracy: 0.01)
        XCTAssertEqual(rms(b, channel: 1, from: 2_400, to: 7_200), 0.5 / 2.squareRoot(), accuracy: 0.01)
        // The volume envelope ramps in and out over ≥ 2 ms: the first and last frames are quiet.
        XCTAssertEqual(b.sample(0, channel: 0), 0)
        XCTAssertLessThan(abs(b.sample(b.frames - 1, channel: 0)), 0.05)
        // Without the envelope, the file plays untouched.
        let raw = try custom(options: .init(useVolumeEnvelope: false))
        XCTAssertEqual(
            raw.sample(12, channel: 0), sine(frequency: 1_000, seconds: 0.2).sample(12, channel: 0), accuracy: 1e-6)
    }

    func testEventDurationShortensAndLoopFillsIt() throws {
        XCTAssertEqual(try custom(duration: 0.05).frames, 2_400)
        XCTAssertEqual(try custom(duration: 1).frames, 9_600, "a longer EventDuration does not lengthen the sound")
        let looped = try custom(duration: 0.5, options: .init(loopEnabled: true))
        XCTAssertEqual(looped.frames, 24_000)
        XCTAssertGreaterThan(
            rms(looped, channel: 0, from: 12_000, to: 20_000), 0.3, "the loop keeps sounding past the file's end")
    }

    func testVolumeAndVolumeControl() throws {
        let half = try custom([.init(parameterID: .audioVolume, value: 0.5)])
        XCTAssertEqual(rms(half, channel: 0, from: 2_400, to: 7_200), 0.25 / 2.squareRoot(), accuracy: 0.01)
        let controlled = try custom(
            [.init(parameterID: .audioVolume, value: 0.5)],
            parameters: [.init(parameterID: .audioVolumeControl, value: 0.5, relativeTime: 0)])
        XCTAssertEqual(
            rms(controlled, channel: 0, from: 2_400, to: 7_200), 0.125 / 2.squareRoot(), accuracy: 0.01,
            "volume × control")
        // A curve from 1 down to 0 over the sound: loud at the start, silent at the end.
        let faded = try custom(curves: [
            .init(
                parameterID: .audioVolumeControl,
                controlPoints: [.init(relativeTime: 0, value: 1), .init(relativeTime: 0.2, value: 0)], relativeTime: 0)
        ])
        XCTAssertGreaterThan(rms(faded, channel: 0, from: 480, to: 1_440), 0.3)
        XCTAssertLessThan(rms(faded, channel: 0, from: 8_640, to: 9_120), 0.05)
        XCTAssertEqual(
            rms(faded, channel: 0, from: 4_560, to: 5_040), 0.5 * 0.5 / 2.squareRoot(), accuracy: 0.02,
            "linear between points")
    }

    func testPanAndPanControl() throws {
        let left = try custom([.init(parameterID: .audioPan, value: -1)])
        XCTAssertGreaterThan(rms(left, channel: 0, from: 2_400, to: 7_200), 0.3)
        XCTAssertEqual(rms(left, channel: 1, from: 2_400, to: 7_200), 0, accuracy: 1e-6)
        let back = try custom(
            [.init(parameterID: .audioPan, value: -0.5)],
            parameters: [.init(parameterID: .audioPanControl, value: 1, relativeTime: 0)])
        // −0.5 + 1 = 0.5: right full, left halved.
        XCTAssertEqual(
            rms(back, channel: 0, from: 2_400, to: 7_200) / rms(back, channel: 1, from: 2_400, to: 7_200), 0.5,
            accuracy: 0.01)
    }

    func testPitchReadsTheFileFasterOrSlower() throws {
        let up = try custom([.init(parameterID: .audioPitch, value: 1)])
        XCTAssertEqual(up.frames, 4_800, "an octave up: half the length")
        XCTAssertEqual(crossingRate(up, from: 1_000, to: 4_000), 2_000, accuracy: 40)
        let down = try custom(parameters: [.init(parameterID: .audioPitchControl, value: -1, relativeTime: 0)])
        XCTAssertEqual(down.frames, 19_200)
        XCTAssertEqual(crossingRate(down, from: 2_000, to: 17_000), 500, accuracy: 10)
    }

    func testBrightnessFiltersHighFrequencies() throws {
        let sound = sine(frequency: 8_000, seconds: 0.2)
        let bright = try custom(sound: sound)
        let dull = try custom([.init(parameterID: .audioBrightness, value: 0)], sound: sound)
        XCTAssertLessThan(
            rms(dull, channel: 0, from: 2_400, to: 7_200), rms(bright, channel: 0, from: 2_400, to: 7_200) / 10)
        let controlled = try custom(
            sound: sound, parameters: [.init(parameterID: .audioBrightnessControl, value: -1, relativeTime: 0)])
        XCTAssertEqual(
            rms(controlled, channel: 0, from: 2_400, to: 7_200), rms(dull, channel: 0, from: 2_400, to: 7_200),
            accuracy: 1e-4)
    }

    func testAudioContinuousToneFollowsPitchAndBrightness() throws {
        let centre = try tone()
        XCTAssertEqual(crossingRate(centre, from: 1_000, to: 9_000), 440, accuracy: 10)
        let high = try tone([.init(parameterID: .audioPitch, value: 1)])
        XCTAssertEqual(crossingRate(high, from: 1_000, to: 9_000), 880, accuracy: 15)
        let low = try tone(parameters: [.init(parameterID: .audioPitchControl, value: -1, relativeTime: 0)])
        XCTAssertEqual(crossingRate(low, from: 1_000, to: 9_000), 220, accuracy: 10)
        // Brightness 0 is a pure sine; 1 has strong harmonics.
        XCTAssertEqual(ToneSynthesizer(pitch: 0, brightness: 0).weights[1], 0)
        XCTAssertGreaterThan(ToneSynthesizer(pitch: 0, brightness: 1).weights[1], 0.1)
        XCTAssertEqual(ToneSynthesizer(pitch: 0, brightness: 1).weights.reduce(0, +), 1, accuracy: 1e-9)
    }

    func testAudioContinuousEnvelopeAttackReleaseAndDecay() throws {
        // AttackTime 0.5 → about 0.09 s of attack (the haptic exponential mapping); ReleaseTime 0.5 after the duration.
        let shaped = try tone(
            [.init(parameterID: .attackTime, value: 0.5), .init(parameterID: .releaseTime, value: 0.5)], duration: 0.3)
        let attack = AudioEnvelope(attackTime: 0.5, decayTime: 0, releaseTime: 0.5, sustained: true, holdEnd: 0.3)
        XCTAssertEqual(attack.attack, 0.0909, accuracy: 0.001)
        XCTAssertEqual(
            shaped.duration, 0.3 + attack.release, accuracy: 0.001, "the release rings on after the duration")
        XCTAssertLessThan(
            rms(shaped, channel: 0, from: 0, to: 960), rms(shaped, channel: 0, from: 9_600, to: 12_000) / 4)
        // Sustained 0: the tone decays before its duration ends.
        let decaying = try tone(
            [.init(parameterID: .sustained, value: 0), .init(parameterID: .decayTime, value: 0)], duration: 0.3)
        XCTAssertLessThan(
            rms(decaying, channel: 0, from: 4_800, to: 9_600), 1e-4, "20 ms decay: silent long before 0.3 s")
        // The decay control lengthens it.
        let longer = try tone(
            [.init(parameterID: .sustained, value: 0)], duration: 0.3,
            parameters: [.init(parameterID: .audioDecayTimeControl, value: 1, relativeTime: 0)])
        XCTAssertGreaterThan(rms(longer, channel: 0, from: 4_800, to: 9_600), 0.1)
        XCTAssertEqual(try tone(duration: 40).duration, 30 + AudioEnvelope.minimumRamp, accuracy: 0.001, "30 s at most")
    }

    func testMissingSoundIsTheResourceError() {
        let e = HapticEvent(audioWaveform: .init(path: "nowhere.wav"), parameters: [], relativeTime: 0)
        XCTAssertThrowsError(
            try renderer.render(HapticPattern(events: [e], parameters: [], parameterCurves: [])) {
                i throws(AudioError) in
                throw AudioError(.fileNotFound, subject: "events[\(i)]", "missing")
            }
        ) { XCTAssertEqual(($0 as! AudioError).code, .fileNotFound) }
    }
}
