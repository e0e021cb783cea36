import XCTest

@testable import ThrumPattern

/// The extra conformance run over the public corpus (`../shared/corpus/ahap`, outside the
/// project): every corpus file behaves as SOURCES.md classifies it. The same behaviours are tested
/// on the project's own fixtures by `FixtureTests`; this run skips where the corpus is missing and
/// fails when it is missing under `CI=true`.
final class CorpusConformanceTests: XCTestCase {
    private func isStrict(_ file: String) -> Bool {
        Corpus.lenientOnly[file] == nil && file != Corpus.fragment && file != Corpus.notAHAP
    }

    func testCorpusIsComplete() throws {
        let files = try Corpus.files()
        let manifest = try SourcesManifest.load(from: Corpus.directory())
        XCTAssertEqual(files.count, 63)
        XCTAssertEqual(Set(files), Set(manifest.keys), "SOURCES.md and the corpus list the same files")
    }

    func testStrictFilesLoadStrictly() throws {
        var loaded = 0
        for file in try Corpus.files() where isStrict(file) {
            do {
                let doc = try AHAPReader(options: .strict).read(contentsOf: Corpus.path(file))
                XCTAssertFalse(doc.pattern.events.isEmpty, file)
                loaded += 1
            } catch {
                XCTFail("\(file): \(error)")
            }
        }
        XCTAssertEqual(loaded, 54)
    }

    func testLenientOnlyFilesFailStrictlyAtTheTrailingCommaAndLoadLeniently() throws {
        for (file, position) in Corpus.lenientOnly.sorted(by: { $0.key < $1.key }) {
            let path = try Corpus.path(file)
            let e = try XCTUnwrap(patternError { _ = try AHAPReader(options: .strict).read(contentsOf: path) }, file)
            XCTAssertEqual(e.code, .invalidPatternData, file)
            XCTAssertEqual(e.line, position.line, file)
            XCTAssertEqual(e.column, position.column, file)
            XCTAssertTrue(e.message.contains("trailing comma"), e.message)
            XCTAssertEqual(e.file, (file as NSString).lastPathComponent)
            XCTAssertNoThrow(try AHAPReader(options: .lenient).read(contentsOf: path), file)
        }
        // The error of a metadata trailing comma points into Metadata.
        let bouncePath = try Corpus.path("apple__unityplugins/Bounce.ahap")
        let bounce = try XCTUnwrap(patternError { _ = try HapticPattern(contentsOf: bouncePath) })
        XCTAssertEqual(bounce.path, "Metadata")
        XCTAssertEqual(
            bounce.description,
            "Bounce.ahap:7:5: error[-4813]: invalid JSON: expected a string key after ',', found '}' "
                + "(a trailing comma is accepted only by the lenient reader) (at Metadata)")
    }

    func testFragmentIsRejectedAsAFragment() throws {
        let path = try Corpus.path(Corpus.fragment)
        for lenient in [false, true] {
            let e = try XCTUnwrap(
                patternError { _ = try HapticPattern(contentsOf: path, options: .init(lenient: lenient)) })
            XCTAssertEqual(e.code, .invalidPatternDictionary)
            XCTAssertEqual(e.code.rawValue, -4814)
            XCTAssertTrue(e.message.contains("fragment"), e.message)
            XCTAssertTrue(e.message.contains("\"Pattern\""), e.message)
            XCTAssertEqual(e.line, 1)
            XCTAssertEqual(e.column, 1)
        }
    }

    func testLofeltHapticClipIsNotAHAP() throws {
        let path = try Corpus.path(Corpus.notAHAP)
        let e = try XCTUnwrap(patternError { _ = try HapticPattern(contentsOf: path) })
        XCTAssertEqual(e.code, .invalidPatternDictionary)
        XCTAssertTrue(e.message.contains("not an AHAP file"), e.message)
        XCTAssertTrue(e.message.contains(".haptic"), e.message)
    }

    func testMisspelledElementKeyLoadsWithUnknownKeyWarning() throws {
        let doc = try AHAPReader().read(contentsOf: Corpus.path(Corpus.misspelledKey))
        XCTAssertEqual(doc.pattern.events.count, 1)
        XCTAssertTrue(doc.pattern.parameterCurves.isEmpty)
        let unknown = doc.warnings.filter { $0.kind == .unknownKey }
        XCTAssertEqual(unknown.count, 1)
        XCTAssertEqual(unknown.first?.path, "Pattern[1].ParameterCurves")
        XCTAssertEqual(unknown.first?.line, 24)
        XCTAssertEqual(unknown.first?.column, 13)
        XCTAssertTrue(unknown.first?.message.contains("did you mean 'ParameterCurve'?") ?? false)
    }

    /// Event counts, absolute-style curves, over-long continuous events and out-of-range values
    /// match what SOURCES.md says for every loadable file.
    func testEveryFileMatchesSourcesFacts() throws {
        let manifest = try SourcesManifest.load(from: Corpus.directory())
        for file in try Corpus.files() where file != Corpus.fragment && file != Corpus.notAHAP {
            let entry = try XCTUnwrap(manifest[file], file)
            let doc = try AHAPReader(options: .lenient).read(contentsOf: Corpus.path(file))
            var counts: [String: Int] = [:]
            for e in doc.pattern.events { counts[e.type.rawValue, default: 0] += 1 }
            XCTAssertEqual(counts, entry.events, file)
            let kinds = doc.warnings.map(\.kind)
            XCTAssertEqual(
                kinds.filter { $0 == .absoluteCurveTimes }.count,
                entry.noted("curves whose first point Time >= curve Time > 0"), file)
            XCTAssertEqual(kinds.filter { $0 == .continuousTooLong }.count, entry.noted("HapticContinuous > 30 s"), file)
            XCTAssertEqual(kinds.filter { $0 == .valueClamped }.count, entry.noted("out-of-range values"), file)
            XCTAssertEqual(
                doc.pattern.events.filter { $0.waveform != nil }.count, entry.noted("events with EventWaveformPath"), file)
            XCTAssertFalse(kinds.contains(.tooManyControlPoints), file)
        }
    }

    func testSelectedEventCounts() throws {
        let expectations: [(String, Int, Int, Int)] = [
            // file, transients, continuous, audio custom
            ("apple__unityplugins/Texture.ahap", 101, 0, 0),
            ("imedboumalek__haptify/warmth.ahap", 984, 1, 0),
            ("Lofelt__NiceVibrations/studio_export.ahap", 24, 1, 0),
            ("HapticlabsIO__react-native-hapticlabs/Button.ahap", 2, 1, 1),
            ("CypherPoet__CoreHapticsUtils/example-1.ahap", 1, 4, 0),
        ]
        for (file, transients, continuous, audio) in expectations {
            let p = try HapticPattern(contentsOf: Corpus.path(file))
            XCTAssertEqual(p.events.filter { $0.type == .hapticTransient }.count, transients, file)
            XCTAssertEqual(p.events.filter { $0.type == .hapticContinuous }.count, continuous, file)
            XCTAssertEqual(p.events.filter { $0.type == .audioCustom }.count, audio, file)
        }
    }

    /// 17_points.ahap is Lofelt's split of a 17-point curve into 16 + 2 points: no curve exceeds
    /// 16, but the second one uses absolute point times (Time 15, first point 15).
    func testSeventeenPointsFile() throws {
        let doc = try AHAPReader().read(contentsOf: Corpus.path("Lofelt__NiceVibrations/17_points.ahap"))
        XCTAssertEqual(doc.pattern.parameterCurves.map(\.controlPoints.count), [16, 2, 2])
        let absolute = doc.warnings.filter { $0.kind == .absoluteCurveTimes }
        XCTAssertEqual(absolute.map(\.path), ["Pattern[1].ParameterCurve.ParameterCurveControlPoints[0].Time"])
        XCTAssertFalse(doc.warnings.contains { $0.kind == .tooManyControlPoints })
    }

    func testSpecificQuirks() throws {
        // No Version → 1.0 without a warning; unsorted events are fine.
        let moby = try AHAPReader().read(contentsOf: Corpus.path("FancyPixel__moby/demo.json"))
        XCTAssertEqual(moby.pattern.version, 1.0)
        XCTAssertTrue(moby.warnings.isEmpty, "\(moby.warnings)")
        // Recoil: sharpness −1 clamped to 0.
        let recoil = try AHAPReader().read(contentsOf: Corpus.path("apple__unityplugins/Recoil.ahap"))
        let clamp = try XCTUnwrap(recoil.warnings.first { $0.kind == .valueClamped })
        XCTAssertTrue(clamp.message.contains("HapticSharpness -1.0 is outside 0.0…1.0; clamped to 0.0"), clamp.message)
        XCTAssertTrue(recoil.pattern.events.flatMap(\.eventParameters).allSatisfy { (0...1).contains($0.value) })
        // Audio files of the Ricochet demo are not in the corpus: warned, path kept.
        let large = try AHAPReader().read(contentsOf: Corpus.path("apple__unityplugins/CollisionLarge.ahap"))
        XCTAssertEqual(large.warnings.map(\.kind), [.audioFileNotFound])
        XCTAssertEqual(large.pattern.events[1].waveform?.path, "CoreHaptics/Ricochet/CollisionLarge.wav")
        // Metadata with newlines is preserved.
        let button = try HapticPattern(contentsOf: Corpus.path("HapticlabsIO__react-native-hapticlabs/Button.ahap"))
        guard case .object(let members)? = button.metadata else { return XCTFail("metadata") }
        XCTAssertTrue(members.contains { if case .string(let s) = $0.value { return s.contains("\n") } else { return false } })
    }
}
