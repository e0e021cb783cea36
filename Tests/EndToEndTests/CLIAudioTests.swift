import Foundation
import ThrumAudio
import ThrumTestSupport
import XCTest

/// `thrum play` and `thrum render` with audio events, run as a user would (virtual device,
/// modelled sound device in virtual time).
final class CLIAudioTests: XCTestCase {
    func events(_ json: Any) -> [[String: Any]] { (json as! [String: Any])["events"] as! [[String: Any]] }

    func testPlayReportsAudioEventsOnTheHapticTimeline() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let n = 9_600
        try SoundFile.write(
            AudioBuffer(sampleRate: 48_000, channels: 1, samples: (0..<n).map { Float(0.4 * sin(Double($0) * 0.2)) }),
            to: dir.appendingPathComponent("tap.wav").path)
        let ahap = try CLITestSupport.write(
            """
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0.05, "EventType": "HapticTransient"}},
              {"Event": {"Time": 0.05, "EventType": "AudioCustom", "EventWaveformPath": "tap.wav"}},
              {"Event": {"Time": 0.4, "EventType": "AudioContinuous", "EventDuration": 0.1}}
            ]}
            """, named: "pair.ahap", in: dir)
        let result = try ThrumProcess.run(["play", ahap, "--json"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let all = events(try CLITestSupport.json(result))
        let audio = all.filter { ($0["type"] as! String).hasPrefix("Audio") }
        XCTAssertEqual(audio.map { $0["type"] as! String }, ["AudioCustom", "AudioContinuous"])
        for e in audio {
            let requested = e["requested_s"] as! Double
            XCTAssertEqual(e["onset_s"] as! Double, requested, accuracy: 0.0003)
            XCTAssertEqual(e["true_onset_s"] as! Double, requested, accuracy: 0.0003, "the modelled device's truth")
        }
        let tap = try XCTUnwrap(all.first { $0["type"] as? String == "HapticTransient" })
        XCTAssertEqual(tap["requested_s"] as! Double, audio[0]["requested_s"] as! Double, "one timeline")

        let quiet = try ThrumProcess.run(["play", ahap, "--json", "--no-audio"])
        XCTAssertEqual(quiet.status, 0, quiet.standardError)
        let q = try CLITestSupport.json(quiet) as! [String: Any]
        XCTAssertEqual(events(q).count, 1)
        XCTAssertEqual((q["audio_events_not_played"] as! [Any]).count, 2)

        let text = try ThrumProcess.run(["play", ahap, "--no-plot"])
        XCTAssertEqual(text.status, 0)
        XCTAssertTrue(text.standardOutput.contains("audio on modelled 10 ms-period sound device"), text.standardOutput)
    }

    /// Over a real port (real time): the sound goes to ALSA (its `null` PCM here), and a device
    /// that cannot be opened is said once, the audio then playing on the null sink.
    func testOverAPortTheSoundGoesToALSAOrFallsBackToTheNullSink() throws {
        let file = Fixtures.ahapPath("every-event-type.ahap")
        for device in ["null", "thrum-no-such-pcm"] {
            let simulator = try SimulatorProcess(arguments: [])
            defer { simulator.stop() }
            let result = try ThrumProcess.run([
                "play", "--port", simulator.ptyPath, "--json", "--audio-device", device, file,
            ])
            XCTAssertEqual(result.status, 0, "\(device): \(result.standardError)")
            let audio = events(try CLITestSupport.json(result)).filter { ($0["type"] as! String).hasPrefix("Audio") }
            XCTAssertEqual(audio.count, 2, device)
            for e in audio { XCTAssertTrue(e["onset_s"] is Double, device) }
            let said = result.standardError.split(separator: "\n").filter { $0.contains("no sound device") }
            if device == "null" {
                XCTAssertTrue(said.isEmpty, result.standardError)
            } else {
                XCTAssertEqual(said.count, 1, result.standardError)
                XCTAssertTrue(said[0].contains("thrum-no-such-pcm") && said[0].contains("null sink"), String(said[0]))
                XCTAssertTrue(said[0].hasPrefix("thrum: no sound device"), "one prefix: \(said[0])")
            }
        }
    }

    func testProjectFixtureWithEveryEventTypePlays() throws {
        let result = try ThrumProcess.run(["play", Fixtures.ahapPath("every-event-type.ahap"), "--json"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let types = events(try CLITestSupport.json(result)).map { $0["type"] as! String }
        XCTAssertTrue(types.contains("AudioContinuous") && types.contains("AudioCustom"), "\(types)")
    }

    func testMissingSoundIsAnErrorWhenPlayedAndAWarningInValidate() throws {
        let path = Fixtures.ahapPath("audio-events.ahap")
        let played = try ThrumProcess.run(["play", path, "--no-plot"])
        XCTAssertEqual(played.status, 1)
        XCTAssertTrue(played.standardError.contains("not-shipped.wav"), played.standardError)
        XCTAssertTrue(played.standardError.contains("-4830"), played.standardError)
        let validated = try ThrumProcess.run(["validate", path])
        XCTAssertEqual(validated.status, 0, validated.standardError + validated.standardOutput)
        XCTAssertTrue(
            (validated.standardOutput + validated.standardError).contains(
                "warning: audio file 'audio/not-shipped.wav' not found"))
        XCTAssertEqual(try ThrumProcess.run(["play", path, "--no-plot", "--no-audio"]).status, 0)
    }

    func testUnknownAudioDeviceIsSaidOnceAndPlaybackGoesOn() throws {
        let result = try ThrumProcess.run([
            "play", Fixtures.ahapPath("every-event-type.ahap"), "--no-plot", "--audio-device", "thrum-no-such-pcm",
        ])
        XCTAssertEqual(result.status, 0, result.standardError)
        let lines = result.standardError.split(separator: "\n").filter { $0.contains("thrum-no-such-pcm") }
        XCTAssertEqual(lines.count, 1, result.standardError)
    }

    func testRenderDrawsTheAudioLevel() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let ahap = try CLITestSupport.write(
            """
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0.0, "EventType": "HapticTransient"}},
              {"Event": {"Time": 0.1, "EventType": "AudioContinuous", "EventDuration": 0.1,
                "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5}]}}
            ]}
            """, named: "tone.ahap", in: dir)
        let svg = dir.appendingPathComponent("out.svg").path
        let result = try ThrumProcess.run(["render", ahap, "--json", "--svg", svg])
        XCTAssertEqual(result.status, 0, result.standardError)
        let summary = try CLITestSupport.json(result) as! [String: Any]
        XCTAssertEqual(summary["audio_events"] as? Int, 1)
        // Volume 0.5 of a tone whose harmonics peak below full scale (brightness 0.5).
        let peak = summary["peak_audio_level"] as! Double
        XCTAssertTrue(peak > 0.25 && peak <= 0.5, "\(peak)")
        XCTAssertTrue(try String(contentsOfFile: svg, encoding: .utf8).contains("series-audio"))
    }
}
