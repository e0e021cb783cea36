import Foundation
import ThrumTestSupport
import XCTest

@testable import ThrumPattern

/// The public AHAP corpus at `../shared/corpus/ahap` beside the package: an extra conformance
/// run (skipped with a message where it is missing, failing under `CI=true`; see `SharedMaterial`).
enum Corpus {
    /// The corpus directory, or the skip (failure under CI) that says where it was looked for.
    static func directory() throws -> URL {
        try SharedMaterial.locate("corpus/ahap")
    }

    /// Every corpus file (`owner__repo/name`), sorted; licenses, manifests and SOURCES.md excluded.
    static func files() throws -> [String] {
        let dir = try directory()
        var result: [String] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: dir.path) where folder.contains("__") {
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(folder).path)
            where (name.hasSuffix(".ahap") || name.hasSuffix(".json")) && !name.hasPrefix(".") {
                result.append(folder + "/" + name)
            }
        }
        return result.sorted()
    }

    static func path(_ relative: String) throws -> String {
        try directory().appendingPathComponent(relative).path
    }

    // Classification from SOURCES.md.
    static let lenientOnly: [String: (line: Int, column: Int)] = [
        "apple__unityplugins/Bounce.ahap": (7, 5),
        "apple__unityplugins/Bouncing.ahap": (7, 5),
        "apple__unityplugins/Close.ahap": (7, 5),
        "apple__unityplugins/Jump.ahap": (7, 5),
        "apple__unityplugins/Open.ahap": (7, 5),
        "apple__unityplugins/Recharge.ahap": (47, 17),
        "apple__unityplugins/Spin.ahap": (75, 17),
    ]
    static let fragment = "CypherPoet__CoreHapticsUtils/ahap-pattern-elements__example-1.json"
    static let notAHAP = "EvanBacon__expo-ahap/battery_gravity_1.json"
    static let misspelledKey = "Lofelt__NiceVibrations/invalid_fields.ahap"
}

/// Runs `body` and returns the `PatternError` it throws (failing the test when it does not throw).
func patternError(
    _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
) -> PatternError? {
    do {
        try body()
        XCTFail("expected a PatternError", file: file, line: line)
        return nil
    } catch let error as PatternError {
        return error
    } catch {
        XCTFail("expected a PatternError, got \(error)", file: file, line: line)
        return nil
    }
}

/// Reads AHAP text strictly (or leniently) and returns the document.
func readAHAP(_ text: String, lenient: Bool = false, name: String = "test.ahap") throws(PatternError) -> AHAPDocument {
    try AHAPReader(options: AHAPReader.Options(lenient: lenient)).read(string: text, sourceName: name)
}
