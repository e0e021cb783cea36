import Foundation
import ThrumCompiler
import ThrumLibrary
import ThrumPattern
import ThrumTestSupport
import XCTest

/// Library images: the example library built, encoded, decoded and expanded back to exactly the
/// compiler's drive; every damaged image refused with a clear error; the packer's sharing.
final class LibraryImageTests: XCTestCase {
    private static let exampleDirectory = PackageRoot.file("examples/library").path

    private func buildExample() throws -> LibraryBuilder.Output {
        try LibraryBuilder().build(directory: Self.exampleDirectory)
    }

    func testCRC32CheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }

    /// Build → encode → decode gives the same image, and each preset expands to exactly the
    /// segments the compiler produces for it, in the form the stream sends them (same starts,
    /// durations, amplitudes and event ids).
    func testExampleLibraryRoundTripsToTheCompilersDrive() throws {
        let built = try buildExample()
        let bytes = try built.image.encode()
        XCTAssertLessThanOrEqual(bytes.count, 4096, "the example library must fit 4 KB")
        let decoded = try LibraryImage.decode(bytes)
        XCTAssertEqual(decoded, built.image)

        let manifest = try LibraryManifest.parse(
            String(contentsOfFile: Self.exampleDirectory + "/library.json", encoding: .utf8), file: "library.json")
        let compiler = PatternCompiler(profile: built.profile)
        var checked = 0
        for entry in manifest.entries {
            let pattern: HapticPattern
            switch entry.source {
            case .ahap(let file):
                pattern = try AHAPReader().read(contentsOf: Self.exampleDirectory + "/" + file).pattern
            case .systemPreset(let name):
                guard case .pattern(let p) = try SystemPresets.preset(named: name).content(intensity: nil) else { continue }
                pattern = p
            }
            let preset = try XCTUnwrap(decoded.preset(id: entry.id))
            XCTAssertEqual(preset.name, entry.name)
            XCTAssertEqual(preset.trigger, entry.trigger)
            let expanded = ProgramPacker.expand(preset, shapes: decoded.shapes)
            XCTAssertEqual(
                expanded.segments, ProgramPacker.deviceForm(compiler.compile(pattern)).segments, "preset \(entry.id) \(entry.name)")
            checked += 1
        }
        XCTAssertEqual(checked, manifest.entries.count)
    }

    /// The firmware's C tests flash a copy of the example library's image
    /// (hardware/firmware/tests/fixtures/examples.thl, their power-loss sweep on flash): it is the
    /// image the builder makes today. When this fails, rebuild it:
    /// `thrum library build examples/library -o hardware/firmware/tests/fixtures/examples.thl`.
    func testFirmwareFixtureIsTheExampleLibraryBuiltToday() throws {
        let fixture = try Data(contentsOf: PackageRoot.file("hardware/firmware/tests/fixtures/examples.thl"))
        XCTAssertEqual([UInt8](fixture), try buildExample().image.encode())
    }

    /// The example library holds every system preset that is not a ROM effect, and the examples.
    func testExampleLibraryHoldsEveryApplePresetAndTheExamples() throws {
        let image = try buildExample().image
        let names = Set(image.presets.map(\.name))
        for preset in SystemPresets.all where preset.romEffect == nil {
            XCTAssertTrue(names.contains(preset.name), "missing \(preset.name)")
        }
        for example in ["heartbeat", "metronome", "swell"] { XCTAssertTrue(names.contains(example), "missing \(example)") }
        XCTAssertTrue(image.presets.contains { $0.trigger != nil }, "the example maps at least one trigger input")
    }

    /// Repeated beats of one intensity and sharpness share one shape; each play costs a few bytes.
    func testRepeatedTransientsShareOneShape() {
        let pattern = TestPatterns.metronome(beats: 8, interval: 0.25)
        let program = PatternCompiler(profile: .default).compile(pattern)
        var packer = ProgramPacker()
        let (items, lead) = packer.pack(program)
        XCTAssertEqual(packer.shapes.count, 1)
        XCTAssertEqual(items.count, 8)
        let bytes = LibraryImage.encodeProgram(items)
        XCTAssertLessThanOrEqual(bytes.count, 8 * 6, "a play is a tag, a relative start, a shape number and an event")
        let preset = LibraryImage.Preset(id: 1, name: "m", lead: lead, items: items)
        XCTAssertEqual(ProgramPacker.expand(preset, shapes: packer.shapes).segments, program.segments)
    }

    // MARK: Damaged images

    private func exampleBytes() throws -> [UInt8] { try buildExample().image.encode() }

    /// Re-seals `bytes` with a correct CRC after an edit (to reach the checks after the CRC).
    private func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        let crc = CRC32.checksum(b[0..<(b.count - 4)])
        for i in 0..<4 { b[b.count - 4 + i] = UInt8((crc >> (8 * UInt32(i))) & 0xFF) }
        return b
    }

    func testEveryTruncationIsRefused() throws {
        let bytes = try exampleBytes()
        for n in 0..<bytes.count {
            XCTAssertThrowsError(try LibraryImage.decode(Array(bytes[0..<n])), "prefix of \(n) bytes") { error in
                guard let e = error as? LibraryImageError else { return XCTFail("\(error)") }
                switch e {
                case .truncated, .notALibrary: break
                default: XCTFail("prefix of \(n) bytes: \(e)")
                }
            }
        }
    }

    func testEveryFlippedByteIsRefused() throws {
        let bytes = try exampleBytes()
        for i in 0..<bytes.count {
            var damaged = bytes
            damaged[i] ^= 0x10
            XCTAssertThrowsError(try LibraryImage.decode(damaged), "byte \(i) flipped")
        }
    }

    func testNewerFormatIsRefusedByName() throws {
        var bytes = try exampleBytes()
        bytes[4] = LibraryImage.formatVersion + 1
        XCTAssertThrowsError(try LibraryImage.decode(resealed(bytes))) { error in
            XCTAssertEqual(error as? LibraryImageError, .newerFormat(found: LibraryImage.formatVersion + 1, supported: LibraryImage.formatVersion))
            XCTAssertTrue("\(error)".contains("newer"))
        }
    }

    func testBadCRCIsReportedWithBothValues() throws {
        var bytes = try exampleBytes()
        bytes[bytes.count - 1] ^= 0xFF
        XCTAssertThrowsError(try LibraryImage.decode(bytes)) { error in
            guard case .badCRC(let stored, let computed)? = error as? LibraryImageError else { return XCTFail("\(error)") }
            XCTAssertNotEqual(stored, computed)
            XCTAssertTrue("\(error)".contains("CRC-32 mismatch"))
        }
    }

    func testNotALibrary() {
        XCTAssertThrowsError(try LibraryImage.decode(Array("not a library image at all, just text".utf8))) { error in
            XCTAssertEqual(error as? LibraryImageError, .notALibrary)
        }
    }

    /// A program pointing at a shape that does not exist (a consistent CRC, so a bug, not damage).
    func testShapeOutOfRangeIsRefusedWithItsField() throws {
        let image = LibraryImage(
            name: "t", version: 1, profile: .init(id: "p", ratedVoltage: 1, odClamp: 2, driveTime: 3, olLraPeriod: 4, sampleTime: 3),
            shapes: [.init(ramps: [.init(duration: 1000, from: 0, to: 255)])],
            presets: [.init(id: 1, name: "a", items: [.shape(after: 0, shape: 0, event: 1)])])
        var bytes = try image.encode()
        // the program is the single item [tag 1, after 0, shape 0, event 1]; point it at shape 5
        let programs = Int(bytes[20]) | Int(bytes[21]) << 8
        XCTAssertEqual(Array(bytes[programs..<(programs + 4)]), [1, 0, 0, 1])
        bytes[programs + 2] = 5
        XCTAssertThrowsError(try LibraryImage.decode(resealed(bytes))) { error in
            XCTAssertTrue("\(error)".contains("presets[0].items[0].shape"), "\(error)")
        }
    }

    func testEncodingRefusesWhatTheFormatCannotHold() {
        let profile = LibraryImage.Profile(id: "p", ratedVoltage: 1, odClamp: 2, driveTime: 3, olLraPeriod: 4, sampleTime: 3)
        let duplicate = LibraryImage(
            name: "t", version: 1, profile: profile, shapes: [],
            presets: [.init(id: 1, name: "a", items: []), .init(id: 1, name: "b", items: [])])
        XCTAssertThrowsError(try duplicate.encode()) { XCTAssertTrue("\($0)".contains("presets[1].id")) }
        let trigger = LibraryImage(name: "t", version: 1, profile: profile, shapes: [], presets: [.init(id: 1, name: "a", trigger: 9, items: [])])
        XCTAssertThrowsError(try trigger.encode()) { XCTAssertTrue("\($0)".contains("trigger")) }
    }
}
