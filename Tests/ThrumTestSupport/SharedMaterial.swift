import Foundation
import XCTest

/// Public material that stays outside the project: `../shared` beside the package root holds the
/// AHAP corpus and reference notes. Tests that read it are an extra conformance run: where it is
/// missing they skip with a message saying so, except under CI (`CI=true`), where CI provides it
/// and its absence is a failure.
public enum SharedMaterial {
    /// `<package root>/../shared`.
    public static var directory: URL {
        PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared").standardizedFileURL
    }

    /// Whether `environment` says this run is CI (`CI` is `true`, `1` or `yes`, any case).
    public static func isCI(_ environment: [String: String]) -> Bool {
        ["true", "1", "yes"].contains(environment["CI"]?.lowercased() ?? "")
    }

    /// The existing file or folder `relative` inside `shared`, or: an `XCTSkip` naming where it
    /// was looked for (outside CI), or a ``SharedMaterialMissing`` error (under CI).
    public static func locate(
        _ relative: String, in shared: URL = directory,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        let url = shared.appendingPathComponent(relative).standardizedFileURL
        if FileManager.default.fileExists(atPath: url.path) { return url }
        if isCI(environment) { throw SharedMaterialMissing(path: url.path, relative: relative) }
        throw XCTSkip(
            "extra conformance run skipped: \(url.path) is missing (../shared/\(relative) beside the repository); "
                + "the project's own fixtures cover the same behaviours. Under CI=true this is a failure.")
    }
}

/// Under CI the shared material must be there: this error fails the conformance test.
public struct SharedMaterialMissing: Error, CustomStringConvertible {
    /// The absolute path looked at.
    public var path: String
    /// The path asked for, relative to `shared`.
    public var relative: String

    public var description: String {
        "CI=true but \(path) is missing: CI runs with the shared material at ../shared beside the repository "
            + "(../shared/\(relative)); check out or mount it there"
    }
}
