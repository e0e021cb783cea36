import Foundation
import Thrum
import XCTest

/// `import Thrum` alone brings the engine, patterns and generators, and `HapticEngine()` finds
/// its device as the docs say.
final class DefaultDeviceTests: XCTestCase {
    func testTheChoiceFollowsTheEnvironmentThenTheConfigFileThenTheVirtualDevice() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-config-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config) }
        XCTAssertEqual(DefaultDevice.choose(environment: ["THRUM_PORT": "/dev/ttyACM3", "XDG_CONFIG_HOME": config.path]),
                       .port("/dev/ttyACM3", source: "THRUM_PORT"))
        XCTAssertEqual(DefaultDevice.choose(environment: ["XDG_CONFIG_HOME": config.path, "HOME": "/nonexistent"]), .virtual)
        try FileManager.default.createDirectory(at: config.appendingPathComponent("thrum"), withIntermediateDirectories: true)
        let file = config.appendingPathComponent("thrum/default-port")
        try "tcp://rig.local:2000\n# the bench rig\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(DefaultDevice.choose(environment: ["XDG_CONFIG_HOME": config.path]), .port("tcp://rig.local:2000", source: file.path))
        XCTAssertEqual(DefaultDevice.choose(environment: ["THRUM_PORT": "  ", "XDG_CONFIG_HOME": config.path]),
                       .port("tcp://rig.local:2000", source: file.path), "a blank THRUM_PORT is not a choice")
        XCTAssertTrue(DefaultDevice.virtual.description.contains("virtual device"))
    }

    func testHapticEngineWithoutArgumentsPlaysOnTheVirtualDevice() throws {
        // Code as written for Core Haptics, renamed: no device named anywhere.
        let engine = try HapticEngine(device: .virtual)
        try engine.start()
        let event = HapticEvent(
            eventType: .hapticTransient,
            parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)], relativeTime: 0)
        let pattern = try HapticPattern(events: [event], parameters: [])
        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: HapticTimeImmediate)
        engine.run(for: 0.3)
        XCTAssertEqual(engine.onsets.map(\.status), [.onTime])
    }

    func testHapticEngineInitWithNoArgumentsTakesTheDefaultChoice() throws {
        try XCTSkipUnless(DefaultDevice.choose() == .virtual, "THRUM_PORT or a default-port file names a device here")
        let engine = try HapticEngine()
        try engine.start()
        try engine.playPattern(from: HapticPattern(events: [HapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0)], parameters: [], parameterCurves: []))
        engine.run(for: 0.3)
        XCTAssertEqual(engine.onsets.map(\.status), [.onTime])
    }

    func testAPortThatCannotBeOpenedIsServerInitFailedWithTheReason() {
        XCTAssertThrowsError(try HapticEngine(device: .port("/dev/thrum-no-such-port", source: "test"))) { error in
            guard let error = error as? HapticError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .serverInitFailed)
            XCTAssertTrue(error.message.contains("/dev/thrum-no-such-port"), error.message)
        }
    }
}

/// `capabilitiesForHardware()` as Core Haptics shapes it.
final class HardwareCapabilityTests: XCTestCase {
    func testTheEnginesDeviceAndTheParameterAttributes() throws {
        let engine = try HapticEngine(device: .virtual)
        XCTAssertFalse(engine.capabilitiesForHardware().supportsHaptics, "not connected yet")
        try engine.start()
        let capability = engine.capabilitiesForHardware()
        XCTAssertTrue(capability.supportsHaptics)
        XCTAssertFalse(capability.supportsAudio)
        XCTAssertNotNil(capability.device)
        XCTAssertEqual(
            try capability.attributes(forEventParameter: .hapticIntensity, eventType: .hapticTransient),
            HapticParameterAttributes(minValue: 0, maxValue: 1, defaultValue: 1))
        XCTAssertEqual(
            try capability.attributes(forEventParameter: .hapticSharpness, eventType: .hapticContinuous).defaultValue, 0.5)
        XCTAssertEqual(try capability.attributes(forEventParameter: .audioPan, eventType: .audioCustom).minValue, -1)
        XCTAssertThrowsError(try capability.attributes(forEventParameter: .hapticSharpness, eventType: .audioContinuous)) { error in
            XCTAssertEqual((error as? HapticError)?.code, .invalidParameterType)
        }
        XCTAssertEqual(
            capability.attributes(forDynamicParameter: .hapticIntensityControl), HapticParameterAttributes(minValue: 0, maxValue: 1, defaultValue: 1))
        XCTAssertEqual(
            capability.attributes(forDynamicParameter: .hapticSharpnessControl), HapticParameterAttributes(minValue: -1, maxValue: 1, defaultValue: 0))
    }

    func testTheClassMethodAsksTheDefaultDevice() throws {
        try XCTSkipUnless(DefaultDevice.choose() == .virtual, "THRUM_PORT or a default-port file names a device here")
        XCTAssertTrue(HapticEngine.capabilitiesForHardware().supportsHaptics)
    }
}

/// `import Thrum` alone brings the audio path too.
final class ThrumAudioImportTests: XCTestCase {
    func testAudioAPIComesWithTheUmbrellaModule() throws {
        let engine = try HapticEngine(device: .virtual)
        XCTAssertNil(engine.audio)
        // ALSA's null PCM: no sound hardware needed.
        try engine.useSoundDevice("null")
        XCTAssertEqual(engine.audio?.output.sink.name, "ALSA null")
        XCTAssertThrowsError(try engine.useSoundDevice("thrum-no-such-pcm")) { XCTAssertEqual(($0 as? AudioError)?.code, .invalidAudioSession) }
        XCTAssertEqual(SoundDeviceModel.null(clock: ManualClock()).sampleRate, 48_000)
        engine.audio?.close()
    }
}
