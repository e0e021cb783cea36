import Foundation
import ThrumTestSupport
import XCTest

/// The `thrum` tool is a client of the engine like any other (issue 26): it declares every module
/// it imports, and reads the engine through its public surface (``HapticEngine/linkHealth``,
/// ``HapticEngine/deviceStatus``, ``HapticEngine/observeOnsets(_:)``…), not by reaching into the
/// session's link, pump or clock, or the virtual chip's trace. The tool itself compiles without
/// `@testable` (an executable cannot use it), so the engine's internals are out of its reach once
/// they are not public: this guards that they stay so, and that nothing reaches in through what
/// is still public for the tests and the harness.
final class CLISurfaceTests: XCTestCase {
    private let root = PackageRoot.url

    /// Every `.swift` file under `Sources/thrum`, its path and its lines without `//` comments.
    private func toolSources() throws -> [(path: String, lines: [String])] {
        let dir = root.appendingPathComponent("Sources/thrum")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: dir.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
        XCTAssertGreaterThan(files.count, 20, "found the tool's sources")
        return try files.map { file in
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
                return code
            }
            return ("Sources/thrum/" + file, lines)
        }
    }

    func testTheToolDeclaresEveryModuleItImports() throws {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try NSRegularExpression(pattern: #"\.executableTarget\(\s*name:\s*"thrum",\s*dependencies:\s*\[([^\]]*)\]"#)
        let match = try XCTUnwrap(target.firstMatch(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)))
        let declared = Set(
            manifest[Range(match.range(at: 1), in: manifest)!].split(separator: ",")
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty })
        let system: Set<String> = ["Foundation", "Glibc", "Darwin", "Dispatch"]
        var imported: Set<String> = []
        for (path, lines) in try toolSources() {
            for line in lines {
                let words = line.split(separator: " ")
                guard let k = words.firstIndex(of: "import"), k + 1 < words.count else { continue }
                let module = String(words[k + 1])
                XCTAssertFalse(words.contains("@testable"), "\(path): @testable import \(module)")
                if !system.contains(module) { imported.insert(module) }
            }
        }
        XCTAssertTrue(imported.contains("ThrumEngine"), "parsed the imports: \(imported.sorted())")
        XCTAssertEqual(imported.subtracting(declared), [], "imported by Sources/thrum, not declared for the thrum target")
    }

    func testTheToolDoesNotReachIntoTheEngine() throws {
        // What the CLI once reached for: the session behind an engine, its link's clock and frame
        // count, its pump's clock, its own run loop over the session, the chip's trace.
        // And the session itself: connecting, calibrating and the library go through the public
        // ``ThrumDevice`` (engines on it: ``HapticEngine/init(device:profile:configuration:runMode:)``).
        let internals = [
            "engine.session", ".session.link", ".session.pump", ".link.", ".pump.", "runOnce(", "frameClock", "chip.trace",
            "device.session", "DeviceSession", "connection.session", "(session:",
        ]
        var found: [String] = []
        for (path, lines) in try toolSources() {
            for (n, line) in lines.enumerated() {
                for pattern in internals where line.contains(pattern) { found.append("\(path):\(n + 1): \(pattern)") }
            }
        }
        XCTAssertEqual(found, [], "the CLI reads the engine through its public surface")
    }

    /// The session is the package's own (`package` access: the tool, the harness and the tests see
    /// it, a client of the library does not); a client opens a ``ThrumDevice``, and engines are made
    /// on one, not on a session.
    func testTheSessionIsNotPublic() throws {
        let text = try String(
            contentsOf: root.appendingPathComponent("Sources/ThrumEngine/Session/DeviceSession.swift"), encoding: .utf8)
        XCTAssertTrue(text.contains("package final class DeviceSession"), "DeviceSession has package access")
        XCTAssertFalse(text.contains("public final class DeviceSession"))
        var publicUses: [String] = []
        let declaration = try NSRegularExpression(pattern: #"public\s+(convenience\s+|static\s+)?(init|func\s+\w+)\s*\(\s*session:"#)
        for dir in ["Sources/ThrumEngine", "Sources/ThrumHarness", "Sources/ThrumBench", "Sources/Thrum"] {
            let url = root.appendingPathComponent(dir)
            for case let file as String in FileManager.default.enumerator(atPath: url.path)! where file.hasSuffix(".swift") {
                let source = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
                if declaration.firstMatch(in: source, range: NSRange(source.startIndex..., in: source)) != nil {
                    publicUses.append("\(dir)/\(file)")
                }
            }
        }
        XCTAssertEqual(publicUses, [], "a public initialiser or function takes a session")
    }

    func testTheEngineHasNoPublicSession() throws {
        for file in ["Sources/ThrumEngine/Engine/HapticEngine.swift", "Sources/ThrumEngine/Engine/SharedDevice.swift"] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let declaration = try NSRegularExpression(pattern: #"public\s+(private\(set\)\s+)?(var|let)\s+session\b"#)
            XCTAssertNil(
                declaration.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                "\(file) declares a public session: tools read linkHealth, deviceStatus and observeOnsets")
            XCTAssertTrue(text.contains("session"), "\(file) read")
        }
    }
}
