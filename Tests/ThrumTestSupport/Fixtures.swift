import Foundation

/// The project's own test fixtures, kept beside this file in `Fixtures/` (written for Thrum, not
/// copied from any corpus). Every AHAP behaviour the public corpus shows has a fixture here, so a
/// clean clone tests all of them.
public enum Fixtures {
    /// `Fixtures/` beside this source file.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// An AHAP (or AHAP-adjacent JSON) fixture by file name, e.g. `"fragment.json"`.
    public static func ahap(_ name: String) -> URL {
        directory.appendingPathComponent("ahap").appendingPathComponent(name)
    }

    /// The path of an AHAP fixture, for APIs and commands that take a path string.
    public static func ahapPath(_ name: String) -> String { ahap(name).path }

    /// Every AHAP fixture's file name (`.ahap` and `.json`), sorted.
    public static func ahapNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("ahap").path)
            .filter { $0.hasSuffix(".ahap") || $0.hasSuffix(".json") }
            .sorted()
    }
}
