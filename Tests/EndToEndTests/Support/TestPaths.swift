import Foundation
import XCTest

/// Where things are for the end-to-end tests: the package root, the built `thrum` binary, the
/// shared AHAP corpus.
enum TestPaths {
    /// The package root (found from this file's path).
    static var packageRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }

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

    /// The shared AHAP corpus, or a skip that says plainly it is missing.
    static func corpusFile(_ relative: String) throws -> URL {
        let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/ahap")
        guard FileManager.default.fileExists(atPath: corpus.path) else {
            throw XCTSkip("the AHAP corpus is not at \(corpus.path); this test needs ../shared/corpus/ahap")
        }
        return corpus.appendingPathComponent(relative)
    }

    /// One of the project's own examples.
    static func example(_ name: String) -> URL {
        packageRoot.appendingPathComponent("examples").appendingPathComponent(name)
    }

    private final class Marker {}
}
