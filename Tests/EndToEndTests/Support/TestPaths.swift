import Foundation
import ThrumTestSupport
import XCTest

/// Where things are for the end-to-end tests: the built `thrum` binary, the project's examples and
/// fixtures (all inside the repository).
enum TestPaths {
    /// The package root (found from the test-support target's path).
    static var packageRoot: URL { PackageRoot.url }

    /// The `thrum` executable built beside the test bundle.
    static var thrumBinary: URL {
        get throws {
            for candidate in [Bundle.main.bundleURL, Bundle(for: Marker.self).bundleURL.deletingLastPathComponent()] {
                let url = candidate.appendingPathComponent("thrum")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            let fallback = packageRoot.appendingPathComponent(".build/debug/thrum")
            if FileManager.default.isExecutableFile(atPath: fallback.path) { return fallback }
            throw XCTSkip("the thrum binary was not built (run `swift build` first)")
        }
    }

    /// One of the project's own AHAP fixtures (Tests/ThrumTestSupport/Fixtures/ahap).
    static func fixture(_ name: String) -> URL { Fixtures.ahap(name) }

    /// One of the project's own examples.
    static func example(_ name: String) -> URL {
        packageRoot.appendingPathComponent("examples").appendingPathComponent(name)
    }

    private final class Marker {}
}
