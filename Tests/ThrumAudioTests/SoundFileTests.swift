import Foundation
import ThrumAudio
import ThrumPattern
import XCTest

final class SoundFileTests: XCTestCase {
    func testWAVRoundTripThroughLibsndfile() throws {
        let dir = try TemporaryDirectory()
        let tone = sine(frequency: 440, seconds: 0.1)
        for (format, name) in [(SoundFile.Format.wav16, "a.wav"), (.flac16, "a.flac"), (.aiff16, "a.aiff")] {
            try SoundFile.write(tone, to: dir.file(name), format: format)
            let info = try SoundFile.info(path: dir.file(name))
            XCTAssertEqual(info.frames, 4_800, name)
            XCTAssertEqual(info.sampleRate, 48_000, name)
            let back = try SoundFile.decode(path: dir.file(name))
            XCTAssertEqual(back.frames, tone.frames, name)
            let worst = zip(back.samples, tone.samples).map { abs($0 - $1) }.max() ?? 1
            XCTAssertLessThan(worst, 1.0 / 16_000, "\(name): 16-bit quantisation only")
        }
    }

    func testUndecodableFileIsInvalidAudioResource() throws {
        let dir = try TemporaryDirectory()
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: dir.file("x.wav")))
        XCTAssertThrowsError(try SoundFile.decode(path: dir.file("x.wav"))) { e in
            let error = e as! AudioError
            XCTAssertEqual(error.code, .invalidAudioResource)
            XCTAssertTrue(error.description.contains("x.wav"), error.description)
        }
    }

    func testResourceLimits() throws {
        let dir = try TemporaryDirectory()
        // 24 s of 8 kHz mono: small on disk, too long.
        try SoundFile.write(sine(frequency: 200, seconds: 24, rate: 8_000), to: dir.file("long.wav"))
        XCTAssertThrowsError(try AudioResource.load(path: dir.file("long.wav"))) { e in
            XCTAssertEqual((e as! AudioError).code, .invalidAudioResource)
            XCTAssertTrue("\(e)".contains("23"), "\(e)")
        }
        // 12 s of 48 kHz stereo float: 4.6 MB, short enough.
        let big = AudioBuffer(sampleRate: 48_000, channels: 2, samples: [Float](repeating: 0.1, count: 48_000 * 12 * 2))
        try SoundFile.write(big, to: dir.file("big.wav"), format: .wavFloat)
        XCTAssertThrowsError(try AudioResource.load(path: dir.file("big.wav"))) { e in
            XCTAssertEqual((e as! AudioError).code, .invalidAudioResource)
            XCTAssertTrue("\(e)".contains("4.2 MB"), "\(e)")
        }
        // 22 s of 16 kHz mono 16-bit: inside both limits.
        try SoundFile.write(sine(frequency: 200, seconds: 22, rate: 16_000), to: dir.file("ok.wav"))
        XCTAssertEqual(try AudioResource.load(path: dir.file("ok.wav")).buffer.frames, 22 * 16_000)
        XCTAssertThrowsError(try AudioResource.load(path: dir.file("missing.wav"))) { e in
            XCTAssertEqual((e as! AudioError).code, .fileNotFound)
        }
    }

    func testResolveLooksInDirectoriesInOrder() throws {
        let a = try TemporaryDirectory(), b = try TemporaryDirectory()
        try SoundFile.write(sine(frequency: 200, seconds: 0.01), to: b.file("s.wav"))
        XCTAssertEqual(AudioResource.resolve("s.wav", in: [a.path, b.path]), b.file("s.wav"))
        XCTAssertNil(AudioResource.resolve("s.wav", in: [a.path]))
        XCTAssertEqual(AudioResource.resolve(b.file("s.wav"), in: []), b.file("s.wav"))
    }
}
