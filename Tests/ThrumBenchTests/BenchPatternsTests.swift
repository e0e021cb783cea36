import Foundation
import ThrumBench
import ThrumCompiler
import ThrumPattern
import ThrumTestSupport
import XCTest

/// The bench's own pattern set: the embedded examples match the repository's files, every kind of
/// pattern is there, each pattern drives the actuator, and the wire-bytes figure uses them.
final class BenchPatternsTests: XCTestCase {
    /// `tools/gen-bench-examples.sh` embeds examples/*.ahap; run it when this fails.
    func testEmbeddedExamplesMatchTheFiles() throws {
        let directory = PackageRoot.file("examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".ahap") }.map { String($0.dropLast(5)) }.sorted()
        let examples = try BenchPatterns.examples()
        XCTAssertEqual(examples.map(\.name), names.map { "example." + $0 }, "run tools/gen-bench-examples.sh")
        for (example, name) in zip(examples, names) {
            let file = try HapticPattern(contentsOf: directory.appendingPathComponent(name + ".ahap").path)
            XCTAssertEqual(example.pattern, file, "\(name): run tools/gen-bench-examples.sh")
        }
    }

    func testTheSetCoversEveryKindAndEveryPatternDrives() throws {
        let all = try BenchPatterns.all()
        XCTAssertEqual(Set(all.map(\.kind)), Set(BenchPattern.Kind.allCases))
        XCTAssertEqual(Set(all.map(\.name)).count, all.count, "names are unique")
        let compiler = PatternCompiler(profile: .default)
        for entry in all {
            let program = compiler.compile(entry.pattern)
            XCTAssertFalse(program.segments.isEmpty, entry.name)
            XCTAssertGreaterThan(program.duration, 0, entry.name)
        }
    }

    /// The built patterns have the shape their kind names (sizes the corpus shows).
    func testBuiltPatternsHaveTheirShapes() throws {
        let all = try BenchPatterns.all()
        func pattern(_ name: String) throws -> HapticPattern {
            try XCTUnwrap(all.first { $0.name == name }?.pattern, name)
        }

        let train = try pattern("transient-train-long")
        XCTAssertEqual(train.events.count, 1_000)
        XCTAssertEqual(train.duration, 99.9, accuracy: 1e-9)
        XCTAssertTrue(train.events.allSatisfy { $0.type == .hapticTransient })

        let curves = try pattern("continuous-curves")
        XCTAssertEqual(curves.events.filter { $0.type == .hapticContinuous }.map(\.duration), [30])
        XCTAssertTrue(curves.parameterCurves.allSatisfy { $0.controlPoints.count <= 16 })
        XCTAssertEqual(curves.parameterCurves.count, 16, "15 chained intensity curves and one sharpness curve")
        XCTAssertEqual(curves.duration, 30)

        let mixed = try pattern("mixed-effects")
        XCTAssertEqual(
            Set(mixed.events.map(\.type)), [.hapticTransient, .hapticContinuous, .audioContinuous])
        XCTAssertEqual(mixed.parameters.count, 3)

        let heartbeat = try pattern("heartbeat-loop")
        XCTAssertEqual(heartbeat.events.count, 36)
        XCTAssertEqual(heartbeat.events.last?.relativeTime ?? 0, 11 * 0.9 + 0.16, accuracy: 1e-9)

        let texture = try pattern("texture")
        XCTAssertEqual(texture.events.count, 120)
        let overlapping = zip(texture.events, texture.events.dropFirst()).filter {
            $0.relativeTime + $0.duration > $1.relativeTime
        }
        XCTAssertGreaterThan(overlapping.count, 0, "a texture's events overlap")
        // Every built pattern round-trips through AHAP, as a user's file would.
        for entry in all {
            XCTAssertEqual(try HapticPattern(data: entry.pattern.ahapData()), entry.pattern, entry.name)
        }
    }

    func testWireBytesRunOnTheSet() throws {
        let all = try BenchPatterns.all()
        let r = WireBytesBench.run(patterns: all)
        XCTAssertEqual(r.patterns, all.count)
        XCTAssertEqual(r.skipped, 0)
        let program = PatternCompiler(profile: .default).compile(all[0].pattern)
        let alone = WireBytesBench.run(patterns: [all[0]])
        XCTAssertEqual(alone.bytes, WireBytesBench.frameBytes(program))
        XCTAssertEqual(alone.seconds, program.duration)
        XCTAssertEqual(r.bytesPerSecond, Double(r.bytes) / r.seconds)
        XCTAssertGreaterThan(r.seconds, 130, "the set is over two minutes of pattern")
    }
}
