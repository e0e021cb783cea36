import ThrumAudio
import ThrumTime
import XCTest

/// Records every ALSA call and answers from a script.
final class RecordingALSA: ALSASystem {
    var calls: [String] = []
    var openResult: Int32 = 0
    var writeResults: [Int] = []
    var delay = 960

    func open(_ name: String) -> Result<OpaquePointer, ALSAErrno> {
        calls.append("open \(name)")
        return openResult < 0 ? .failure(ALSAErrno(openResult)) : .success(OpaquePointer(bitPattern: 0x10)!)
    }
    func configure(_ pcm: OpaquePointer, rate: Int, channels: Int, periodFrames: Int, periods: Int)
        -> Result<(rate: Int, periodFrames: Int, bufferFrames: Int), ALSAErrno>
    {
        calls.append("configure \(rate) \(channels) \(periodFrames)x\(periods)")
        return .success((44_100, 441, 1_764))
    }
    func availDelay(_ pcm: OpaquePointer) -> Result<(avail: Int, delay: Int), ALSAErrno> {
        calls.append("avail_delay")
        return .success((1_764 - delay, delay))
    }
    func timestamp(_ pcm: OpaquePointer) -> Int64 {
        calls.append("htimestamp")
        return 5_000_000_000
    }
    func writei(_ pcm: OpaquePointer, _ samples: [Float], frames: Int) -> Int {
        calls.append("writei \(frames)")
        return writeResults.isEmpty ? frames : writeResults.removeFirst()
    }
    func recover(_ pcm: OpaquePointer, _ error: Int32) -> Int32 {
        calls.append("recover \(error)")
        return 0
    }
    func close(_ pcm: OpaquePointer) { calls.append("close") }
}

final class ALSAAudioSinkTests: XCTestCase {
    func testOpensConfiguresAndReportsWhatTheDeviceGranted() throws {
        let alsa = RecordingALSA()
        let sink = try ALSAAudioSink(device: "hw:1", system: alsa)
        XCTAssertEqual(alsa.calls, ["open hw:1", "configure 48000 2 480x4"])
        XCTAssertEqual(sink.sampleRate, 44_100)
        XCTAssertEqual(sink.periodFrames, 441)
        let status = try sink.status()
        XCTAssertEqual(status.timestamp, HostTime(nanoseconds: 5_000_000_000))
        XCTAssertEqual(status.delayFrames, 960)
        XCTAssertEqual(status.availableFrames, 804)
        sink.close()
        XCTAssertEqual(alsa.calls.last, "close")
    }

    func testOpenFailureNamesTheDeviceWithInvalidAudioSession() {
        let alsa = RecordingALSA()
        alsa.openResult = -2
        XCTAssertThrowsError(try ALSAAudioSink(device: "nosuch", system: alsa)) { e in
            let error = e as! AudioError
            XCTAssertEqual(error.code, .invalidAudioSession)
            XCTAssertTrue(error.description.contains("'nosuch'"), error.description)
            XCTAssertTrue(error.description.contains("(-2)"), error.description)
        }
    }

    func testUnderrunIsRecoveredAndCounted() throws {
        let alsa = RecordingALSA()
        alsa.writeResults = [-32, 100]
        let sink = try ALSAAudioSink(device: "default", system: alsa)
        XCTAssertEqual(try sink.write([Float](repeating: 0, count: 200)), 100)
        XCTAssertEqual(Array(alsa.calls.suffix(3)), ["writei 100", "recover -32", "writei 100"])
        XCTAssertEqual(sink.underruns, 1)
        // EAGAIN (buffer full) is not an error: nothing taken.
        alsa.writeResults = [-11]
        XCTAssertEqual(try sink.write([Float](repeating: 0, count: 200)), 0)
    }

    /// The real libasound path on ALSA's `null` PCM (no sound hardware needed).
    func testRealALSANullDeviceTakesFramesAndReportsStatus() throws {
        let sink = try ALSAAudioSink(device: "null")
        defer { sink.close() }
        XCTAssertGreaterThan(sink.periodFrames, 0)
        XCTAssertGreaterThanOrEqual(sink.bufferFrames, sink.periodFrames)
        let taken = try sink.write([Float](repeating: 0.25, count: 2 * sink.periodFrames))
        XCTAssertEqual(taken, sink.periodFrames)
        let status = try sink.status()
        XCTAssertGreaterThanOrEqual(status.delayFrames, 0)
        XCTAssertGreaterThan(status.timestamp.nanoseconds, 0)
        // An AudioOutput keeps it fed through the same calls.
        let output = AudioOutput(sink: sink, clock: MonotonicClock())
        XCTAssertGreaterThanOrEqual(try output.service { _, _, _, _ in }, 0)
    }
}
