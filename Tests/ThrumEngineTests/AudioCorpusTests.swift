import Foundation
import ThrumAudio
import ThrumEngine
import ThrumPattern
import ThrumTestSupport
import XCTest

/// Extra conformance run over the public corpus (../shared/corpus/ahap): its files with
/// `AudioCustom` events play through the engine's audio path. The corpus ships the AHAP files
/// without their sounds, so each file is played twice: as it is (every missing sound is
/// `badEventEntry`, −4830, naming the event and the file), and with a short generated WAV put
/// where each `EventWaveformPath` points (then it plays without error, each sound on time).
final class AudioCorpusTests: XCTestCase {
    func testCorpusAudioFilesPlay() throws {
        let corpus = try SharedMaterial.locate("corpus/ahap")
        let files = FileManager.default.enumerator(atPath: corpus.path)!.compactMap { $0 as? String }.filter {
            $0.hasSuffix(".ahap")
        }.sorted()
        var played = 0
        for name in files {
            let path = corpus.appendingPathComponent(name).path
            guard let document = try? AHAPReader(options: .init(lenient: true)).read(contentsOf: path),
                document.pattern.events.contains(where: { $0.type == .audioCustom })
            else { continue }
            let pattern = document.pattern
            let sounds = NSTemporaryDirectory() + "thrum-corpus-audio-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: sounds) }
            try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)

            let bare = EngineRig()
            bare.engine.audio = EngineAudio(
                sink: SoundDeviceModel.recording(clock: bare.clock), clock: bare.clock, searchDirectories: [sounds])
            try bare.engine.start()
            XCTAssertThrowsError(try bare.engine.makePlayer(with: pattern), name) { error in
                XCTAssertEqual((error as? HapticError)?.code, .badEventEntry, name)
                XCTAssertTrue("\(error)".contains("EventWaveformPath"), "\(name): \(error)")
            }

            for e in pattern.events where e.type == .audioCustom {
                let target = (sounds as NSString).appendingPathComponent(e.waveform!.path)
                try FileManager.default.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                let n = 4_800
                try SoundFile.write(
                    AudioBuffer(
                        sampleRate: 48_000, channels: 1, samples: (0..<n).map { Float(0.3 * sin(Double($0) * 0.1)) }),
                    to: target)
            }
            let r = EngineRig()
            let device = SoundDeviceModel.recording(clock: r.clock)
            r.engine.audio = EngineAudio(sink: device, clock: r.clock, searchDirectories: [sounds])
            try r.engine.start()
            r.engine.run(for: 0.3)
            let player = try r.engine.makePlayer(with: pattern)
            let start = r.engine.currentTime + 0.1
            try player.start(atTime: start)
            XCTAssertTrue(r.engine.runUntilPlayersFinished(timeout: pattern.duration + 5), name)
            XCTAssertNil(r.engine.audio?.deviceError, name)
            XCTAssertEqual(device.underrunFrames, 0, name)
            let expected = pattern.events.filter { $0.type == .audioCustom }.count
            XCTAssertEqual(r.engine.audioOnsets.count, expected, name)
            for o in r.engine.audioOnsets {
                XCTAssertEqual(
                    device.playoutTime(ofFrame: o.frame), o.requestedTime, accuracy: 0.0003,
                    "\(name): event \(o.patternIndex)")
            }
            played += 1
        }
        XCTAssertGreaterThan(played, 0, "the corpus has files with AudioCustom events")
    }
}
