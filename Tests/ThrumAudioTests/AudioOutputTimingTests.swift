import ThrumAudio
import ThrumPattern
import ThrumTime
import XCTest

/// The sound device's latency measured and compensated, against the model's truth, in virtual time.
final class AudioOutputTimingTests: XCTestCase {
    /// Plays a click requested at host time `at` through an output with `timing`; returns
    /// (true playout time of the click's first frame − requested) in seconds.
    func clickError(timing: AudioOutput.Timing, at: Double, seed: UInt64 = 1) throws -> Double {
        let clock = ManualClock(start: HostTime(nanoseconds: 1_000_000_000))
        var c = SoundDeviceModel.Configuration()
        c.seed = seed
        let device = SoundDeviceModel.recording(clock: clock, configuration: c)
        var oc = AudioOutput.Configuration()
        oc.timing = timing
        let output = AudioOutput(sink: device, clock: clock, configuration: oc)
        let click = AudioProgram(
            sampleRate: 48_000,
            voices: [
                AudioVoice(
                    patternIndex: 0, type: "AudioCustom", requestedTime: 0,
                    buffer: AudioBuffer(sampleRate: 48_000, channels: 2, samples: [Float](repeating: 1, count: 96)))
            ])
        let end = clock.now() + .seconds(at + 0.2)
        while clock.now() < end {
            try output.service { out, frames, start, step in
                // Pattern time 0 at host time `at` (+ the clock's start).
                click.mix(into: &out, frames: frames, start: start - (1 + at), step: step)
            }
            clock.advance(to: output.nextService(after: clock.now()))
        }
        XCTAssertEqual(device.underrunFrames, 0)
        let frames = device.recorded.count / 2
        guard let first = (0..<frames).first(where: { device.recorded[2 * $0] > 0.5 }) else {
            XCTFail("no click")
            return .nan
        }
        // Interpolation starts the rise one frame early at most: the click's onset is the frame reaching full level.
        return device.playoutTime(ofFrame: Double(first)) - (1 + at)
    }

    func testCompensatedOnsetLandsWithinAFewFramesOfTheRequest() throws {
        var worst = 0.0
        for seed in 1...20 as ClosedRange<UInt64> {
            let e = try clickError(timing: .compensated, at: 0.5 + Double(seed) * 0.0137, seed: seed)
            worst = max(worst, abs(e))
        }
        XCTAssertLessThan(worst, 0.0002, "within 200 µs of the request (worst \(worst * 1e6) µs)")
    }

    func testNaiveBaselineIsLateByTheDeviceLatency() throws {
        let e = try clickError(timing: .naive, at: 0.5)
        // Two periods of fill plus half a period and the output latency: 10–40 ms late.
        XCTAssertGreaterThan(e, 0.010)
        XCTAssertLessThan(e, 0.040)
        let d = try clickError(timing: .delayOnly, at: 0.5)
        XCTAssertLessThan(abs(d), 0.011, "delay without timestamps: off by up to a period")
    }

    func testPlayoutClockFitsDriftAndIgnoresLateTimestamps() {
        var clock = PlayoutClock(sampleRate: 48_000)
        XCTAssertNil(clock.time(ofFrame: 0))
        // A device 100 ppm fast; timestamps late by 0…1 ms.
        var rng = SplitMix64(seed: 7)
        for k in 0..<64 {
            let frame = Double(k * 480)
            clock.add(frame: frame, at: 2 + frame / (48_000 * 1.0001) + rng.unit() * 0.001)
        }
        let truth = 2 + 100_000 / (48_000 * 1.0001)
        XCTAssertEqual(clock.time(ofFrame: 100_000)!, truth, accuracy: 0.0002)
    }

    func testModelCountsUnderrunsWhenNotFed() throws {
        let clock = ManualClock()
        let device = SoundDeviceModel.null(clock: clock)
        XCTAssertEqual(try device.write([Float](repeating: 0, count: 960)), 480)
        clock.advance(by: .milliseconds(50))
        _ = try device.status()
        XCTAssertGreaterThan(device.underrunFrames, 0)
        let status = try device.status()
        XCTAssertEqual(status.availableFrames, device.bufferFrames)
    }
}
