import Foundation
import ThrumAudio
import ThrumEngine
import ThrumPattern
import ThrumTime
import XCTest

/// The engine's audio path on the virtual rig with the recording sink, in virtual time.
final class EngineAudioTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "thrum-engine-audio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // A 100 ms 1 kHz click train, generated (no binary committed).
        let n = 4_800
        let samples = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) }
        try SoundFile.write(AudioBuffer(sampleRate: 48_000, channels: 1, samples: samples), to: dir + "/click.wav")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func makeRig() throws -> (EngineRig, SoundDeviceModel) {
        let r = EngineRig()
        let device = SoundDeviceModel.recording(clock: r.clock)
        r.engine.audio = EngineAudio(sink: device, clock: r.clock, searchDirectories: [dir])
        try r.engine.start()
        r.engine.run(for: 0.3)
        return (r, device)
    }

    func pattern(audioAt t: Double = 0.1) -> HapticPattern {
        HapticPattern(
            events: [
                HapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: t),
                HapticEvent(audioWaveform: .init(path: "click.wav"), parameters: [], relativeTime: t),
            ], parameters: [], parameterCurves: [])
    }

    /// When the first non-zero frame of the recording sounds (truth), engine s.
    func firstSound(_ device: SoundDeviceModel) -> Double? {
        let s = device.recorded
        guard let i = stride(from: 0, to: s.count, by: 2).first(where: { abs(s[$0]) > 1e-6 }) else { return nil }
        return device.playoutTime(ofFrame: Double(i / 2))
    }

    func testAudioCustomSoundsWithTheTapOnOneTimeline() throws {
        let (r, device) = try makeRig()
        let player = try r.engine.makePlayer(with: pattern())
        let start = r.engine.currentTime + 0.1
        try player.start(atTime: start)
        XCTAssertTrue(r.engine.runUntilPlayersFinished(timeout: 2))
        let audio = r.engine.audioOnsets
        XCTAssertEqual(audio.count, 1)
        XCTAssertEqual(audio[0].type, "AudioCustom")
        XCTAssertEqual(audio[0].requestedTime, start + 0.1, accuracy: 1e-6)
        XCTAssertEqual(audio[0].onsetTime, start + 0.1, accuracy: 0.0003, "the playout clock's estimate")
        let heard = try XCTUnwrap(firstSound(device))
        XCTAssertEqual(heard, start + 0.1, accuracy: 0.0003, "true speaker onset within 300 µs of the request")
        // The haptic event played too, at its time.
        let haptic = try XCTUnwrap(r.engine.onsets.first)
        XCTAssertEqual(haptic.status, .onTime)
        XCTAssertEqual(device.underrunFrames, 0)
        // The player lasted as long as the sound (the AudioCustom event took the file's length).
        XCTAssertEqual(
            rmsOfRecording(device, from: start + 0.15, to: start + 0.19), 0.5 / 2.squareRoot(), accuracy: 0.02)
    }

    func rmsOfRecording(_ device: SoundDeviceModel, from: Double, to: Double) -> Double {
        let s = device.recorded
        var sum = 0.0, n = 0
        for i in 0..<(s.count / 2) {
            let t = device.playoutTime(ofFrame: Double(i))
            if t >= from && t < to {
                sum += Double(s[2 * i] * s[2 * i])
                n += 1
            }
        }
        return n == 0 ? 0 : (sum / Double(n)).squareRoot()
    }

    func testImmediateStartWaitsForTheSoundDevice() throws {
        let (r, device) = try makeRig()
        let called = r.engine.currentTime
        try r.engine.makePlayer(with: pattern(audioAt: 0)).start(atTime: HapticTimeImmediate)
        XCTAssertTrue(r.engine.runUntilPlayersFinished(timeout: 2))
        let audio = try XCTUnwrap(r.engine.audioOnsets.first)
        let heard = try XCTUnwrap(firstSound(device))
        XCTAssertEqual(heard, audio.requestedTime, accuracy: 0.0003)
        XCTAssertLessThan(audio.requestedTime - called, 0.06, "started within the sound device's latency")
        let haptic = try XCTUnwrap(r.engine.onsets.first)
        XCTAssertEqual(haptic.requestedTime, audio.requestedTime, accuracy: 1e-6, "one timeline")
    }

    func testCapabilitiesSayAudioWhenThereIsASoundDevice() throws {
        let (r, _) = try makeRig()
        XCTAssertTrue(r.engine.capabilitiesForHardware().supportsAudio)
        r.engine.audio = nil
        XCTAssertFalse(r.engine.capabilitiesForHardware().supportsAudio)
    }

    func testPlaysHapticsOnlyAndMutedForAudioAreSilent() throws {
        for mode in ["hapticsOnly", "muted"] {
            let (r, device) = try makeRig()
            if mode == "hapticsOnly" { r.engine.playsHapticsOnly = true } else { r.engine.isMutedForAudio = true }
            try r.engine.makePlayer(with: pattern()).start(atTime: r.engine.currentTime + 0.1)
            XCTAssertTrue(r.engine.runUntilPlayersFinished(timeout: 2))
            XCTAssertNil(firstSound(device), mode)
            XCTAssertTrue(r.engine.audioOnsets.isEmpty, mode)
            XCTAssertEqual(r.engine.onsets.count, 1, "\(mode): the tap still plays")
        }
    }

    func testPlaysAudioOnlyLeavesTheHapticsOut() throws {
        let (r, device) = try makeRig()
        r.engine.playsAudioOnly = true
        try r.engine.makePlayer(with: pattern()).start(atTime: r.engine.currentTime + 0.1)
        XCTAssertTrue(r.engine.runUntilPlayersFinished(timeout: 2))
        XCTAssertNotNil(firstSound(device))
        XCTAssertTrue(r.engine.onsets.isEmpty)
    }

    func testRegisteredResourceAndItsErrors() throws {
        let (r, device) = try makeRig()
        let id = try r.engine.registerAudioResource(URL(fileURLWithPath: dir + "/click.wav"))
        let e = HapticEvent(
            audioResourceID: id, parameters: [.init(parameterID: .audioVolume, value: 0.5)], relativeTime: 0.05,
            duration: 0.05)
        let player = try r.engine.makePlayer(with: HapticPattern(events: [e], parameters: [], parameterCurves: []))
        let start = r.engine.currentTime + 0.1
        try player.start(atTime: start)
        XCTAssertTrue(r.engine.runUntilPlayersFinished(timeout: 2))
        XCTAssertEqual(
            rmsOfRecording(device, from: start + 0.06, to: start + 0.09), 0.25 / 2.squareRoot(), accuracy: 0.02)
        XCTAssertEqual(
            rmsOfRecording(device, from: start + 0.11, to: start + 0.2), 0, accuracy: 1e-6,
            "EventDuration 0.05 s truncates")
        try r.engine.unregisterAudioResource(id)
        XCTAssertThrowsError(try r.engine.unregisterAudioResource(id)) {
            XCTAssertEqual(($0 as! HapticError).code, .invalidAudioResource)
        }
        XCTAssertThrowsError(
            try r.engine.makePlayer(with: HapticPattern(events: [e], parameters: [], parameterCurves: []))
        ) {
            XCTAssertEqual(($0 as! HapticError).code, .invalidAudioResource)
        }
        XCTAssertThrowsError(try r.engine.registerAudioResource(URL(fileURLWithPath: dir + "/none.wav"))) {
            XCTAssertEqual(($0 as! HapticError).code, .fileNotFound)
        }
        try SoundFile.write(
            AudioBuffer(sampleRate: 8_000, channels: 1, samples: [Float](repeating: 0, count: 8_000 * 24)),
            to: dir + "/long.wav")
        XCTAssertThrowsError(try r.engine.registerAudioResource(URL(fileURLWithPath: dir + "/long.wav"))) {
            XCTAssertEqual(($0 as! HapticError).code, .invalidAudioResource)
        }
    }

    func testALongerEventDurationPadsThePatternWithSilence() throws {
        let (r, device) = try makeRig()
        let e = HapticEvent(audioWaveform: .init(path: "click.wav"), parameters: [], relativeTime: 0, duration: 0.5)
        let player = try r.engine.makeAdvancedPlayer(
            with: HapticPattern(events: [e], parameters: [], parameterCurves: []))
        var finished: Double?
        player.completionHandler = { _ in finished = r.engine.currentTime }
        let start = r.engine.currentTime + 0.1
        try player.start(atTime: start)
        XCTAssertTrue(r.engine.runUntilPlayersFinished(timeout: 2))
        XCTAssertEqual(try XCTUnwrap(finished) - start, 0.5, accuracy: 0.01, "the player lasts the EventDuration")
        XCTAssertGreaterThan(rmsOfRecording(device, from: start + 0.02, to: start + 0.09), 0.2)
        XCTAssertEqual(
            rmsOfRecording(device, from: start + 0.11, to: start + 0.5), 0, accuracy: 1e-6,
            "silence after the 0.1 s sound")
    }

    func testMissingWaveformFileIsAnErrorWhenPlayed() throws {
        let (r, _) = try makeRig()
        let e = HapticEvent(audioWaveform: .init(path: "missing.wav"), parameters: [], relativeTime: 0)
        XCTAssertThrowsError(
            try r.engine.makePlayer(with: HapticPattern(events: [e], parameters: [], parameterCurves: []))
        ) { error in
            let h = error as! HapticError
            XCTAssertEqual(h.code, .badEventEntry)
            XCTAssertTrue(h.message.contains("events[0].EventWaveformPath"), h.message)
            XCTAssertTrue(h.message.contains("missing.wav"), h.message)
        }
    }

    func testStopSilencesTheSound() throws {
        let (r, device) = try makeRig()
        let tone = HapticEvent(eventType: .audioContinuous, parameters: [], relativeTime: 0, duration: 1)
        let player = try r.engine.makePlayer(with: HapticPattern(events: [tone], parameters: [], parameterCurves: []))
        let start = r.engine.currentTime + 0.1
        try player.start(atTime: start)
        try player.stop(atTime: start + 0.3)
        r.engine.run(for: 1.5)
        XCTAssertGreaterThan(rmsOfRecording(device, from: start + 0.1, to: start + 0.2), 0.1)
        XCTAssertEqual(rmsOfRecording(device, from: start + 0.31, to: start + 1.0), 0, accuracy: 1e-6)
    }
}
