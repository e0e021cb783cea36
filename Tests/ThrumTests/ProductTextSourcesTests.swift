import Foundation
import ThrumTestSupport
import XCTest

/// Product text cites sources a user can reach — the public documents and the repository's own
/// files — never the research notes kept beside the repository or a path on one machine: the
/// README, the docs, the hardware notes, the actuator profiles, the examples and the sources
/// (comments included) are searched for such citations.
final class ProductTextSourcesTests: XCTestCase {
    /// Spellings of a citation that a reader of a clone cannot follow.
    static let unreachable = ["shared/reference", "../shared", "/work/", "/root/", "/home/"]
    /// Where product text lives.
    static let places = ["README.md", "docs", "hardware", "examples", "Sources", "integrations", "tools"]
    static let textExtensions: Set<String> = ["md", "json", "swift", "c", "h", "py", "sh", "ahap", "yaml", "txt", "js", "html", "css"]

    func testProductTextCitesNothingOutsideTheRepository() throws {
        let root = PackageRoot.url
        var found: [String] = []
        for place in Self.places {
            let url = root.appendingPathComponent(place)
            var files: [URL] = []
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)
                while let next = walker?.nextObject() as? URL {
                    if next.pathComponents.contains("build") || next.pathComponents.contains("__pycache__") {
                        continue
                    }
                    if Self.textExtensions.contains(next.pathExtension) { files.append(next) }
                }
            } else {
                files.append(url)
            }
            for file in files {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for spelling in Self.unreachable where line.contains(spelling) {
                        let relative = file.path.replacingOccurrences(of: root.path + "/", with: "")
                        found.append("\(relative):\(number + 1): cites '\(spelling)': \(line.trimmingCharacters(in: .whitespaces).prefix(100))")
                    }
                }
            }
        }
        XCTAssertEqual(found, [], "product text must cite public sources or the repository's own files:\n" + found.joined(separator: "\n"))
    }
}
