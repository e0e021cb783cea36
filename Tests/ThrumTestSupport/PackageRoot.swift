import Foundation

/// The package on disk, found from this file's own path: tests never name a machine path.
public enum PackageRoot {
    /// The first ancestor of this source file that holds `Package.swift`.
    public static let url: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir = dir.deletingLastPathComponent()
        }
        preconditionFailure("no Package.swift above \(#filePath): the tests run from a checkout of the package")
    }()

    /// A file or folder inside the package, e.g. `"examples/heartbeat.ahap"`.
    public static func file(_ relative: String) -> URL { url.appendingPathComponent(relative) }
}
