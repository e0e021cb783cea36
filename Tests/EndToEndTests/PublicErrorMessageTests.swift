import Foundation
import ThrumAudio
@testable import ThrumBench
import ThrumCompiler
import ThrumEngine
import ThrumLibrary
import ThrumLink
import ThrumPattern
@testable import ThrumSim
import ThrumStudio
import ThrumTestSupport
import ThrumWire
import XCTest

/// Every error type the public API throws carries its message in `localizedDescription`, as a
/// Core Haptics client prints it: not "The operation could not be completed. (… error 1.)".
/// The list below names every public error type of the library modules; a scan of the sources
/// fails the test when a new one is not on it.
final class PublicErrorMessageTests: XCTestCase {
    /// One instance of every public error type, by its type's name.
    static func samples() throws -> [String: any Error] {
        var samples: [String: any Error] = [
            "ALSAErrno": ALSAErrno(-2),
            "AudioError": AudioError(.invalidAudioResource, subject: "a.wav", "not a sound file"),
            "I2CError": I2CError.noDevice(address: 0x48),
            "CalibrationFailure": CalibrationFailure.backEMFTooLow(volts: 0.01),
            "LRAFitError": LRAFitError.forceFactorUndetermined,
            "EngineError": EngineError.clockDidNotConverge(samples: 3),
            "LibraryClientError": LibraryClientError.noStorage,
            "HapticError": HapticError(.engineNotRunning, "the engine is not running"),
            "LinkFailure": LinkFailure.deviceNotResponding(attempts: 5),
            "TransportError": TransportError.notFound(path: "/dev/nothing"),
            "ProfileError": ProfileError(source: "a.json", position: SourcePosition(line: 2, column: 3), path: "ratedVoltage", message: "expected a number"),
            "WireError": WireError.unknownMessage(id: 99, direction: .hostToDevice),
            "BenchError": BenchError.unknownLink("nowhere"),
            "SimulationClockError": SimulationClockError(path: "clock.txt", reason: "expected a number"),
            "AVRTraceError": AVRTraceError(message: "bad trace line 3"),
            "Failure": AVRBench.Failure(message: "simavr did not start"),
            "LibraryImageError": LibraryImageError.notALibrary,
            "LibraryBuildError": LibraryBuildError(file: "library.json", message: "expected an object"),
            "JSONSyntaxError": JSONSyntaxError(position: SourcePosition(line: 1, column: 5), path: "", message: "expected a value"),
            "PresetError": PresetError.unknownName("thud", suggestions: ["thump"]),
            "FileError": LibraryStorage.FileError(description: "cannot read storage.bin"),
            "StudioServerError": StudioServerError("cannot listen on 127.0.0.1:8765: address in use"),
        ]
        XCTAssertThrowsError(try FaultPlan(parsing: "nonsense")) { samples["ParseError"] = $0 }
        // The ported client's case: an event at a negative time.
        XCTAssertThrowsError(
            try HapticPattern(events: [HapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: -1)], parameters: [])
        ) { samples["PatternError"] = $0 }
        return samples
    }

    func testEveryPublicErrorTypeSaysWhatHappenedInItsLocalizedDescription() throws {
        let samples = try Self.samples()
        for (name, error) in samples.sorted(by: { $0.key < $1.key }) {
            let text = error.localizedDescription
            XCTAssertEqual(text, String(describing: error), "\(name): localizedDescription is its message")
            XCTAssertFalse(text.contains("could not be completed"), "\(name): \(text)")
            XCTAssertFalse(text.isEmpty, name)
        }
        let negative = try XCTUnwrap(samples["PatternError"])
        XCTAssertTrue(negative.localizedDescription.contains("Time"), negative.localizedDescription)
    }

    /// The list above is complete: every `public` type conforming to `Error` in a library module.
    func testTheListNamesEveryPublicErrorType() throws {
        let sources = PackageRoot.file("Sources")
        let pattern = try NSRegularExpression(
            pattern: #"public\s+(?:final\s+)?(?:struct|enum|class)\s+(\w+)\s*:[^{]*\bError\b"#)
        var found: Set<String> = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let url as URL in files where url.pathExtension == "swift" {
            // The CLI is a program, not API.
            if url.path.contains("/Sources/thrum/") { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                found.insert(String(text[Range(m.range(at: 1), in: text)!]))
            }
        }
        XCTAssertGreaterThanOrEqual(found.count, 20, "the scan finds the error types")
        let listed = Set(try Self.samples().keys)
        XCTAssertEqual(found.subtracting(listed).sorted(), [], "public error types missing from the list")
        XCTAssertEqual(listed.subtracting(found).sorted(), [], "listed types the scan no longer finds")
    }
}
