import Foundation
import ThrumTestSupport
import XCTest

/// docs/architecture.md's module table says what each Swift module depends on; Package.swift says
/// it too. The two must agree, row for row (issue 23: they had drifted).
final class ArchitectureDocTests: XCTestCase {
    func testTheModuleTableMatchesPackageSwift() throws {
        let root = PackageRoot.url
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let doc = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)

        // Package.swift: `.target(name: "X", dependencies: [...])` (the library and executable targets).
        var package: [String: Set<String>] = [:]
        let target = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget)\(\s*name:\s*"(Thrum[A-Za-z]*)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        for match in target.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            guard name != "ThrumTestSupport" else { continue }
            var dependencies: Set<String> = []
            if let r = Range(match.range(at: 2), in: manifest) {
                for part in manifest[r].split(separator: ",") {
                    let word = part.trimmingCharacters(in: CharacterSet(charactersIn: " \n\""))
                    if !word.isEmpty { dependencies.insert(word) }
                }
            }
            package[name] = dependencies
        }
        XCTAssertGreaterThanOrEqual(package.count, 12, "parsed Package.swift: \(package.keys.sorted())")

        // The doc: `| \`ThrumX\` | job | Dep, Dep, CDep |` — short names stand for Thrum-prefixed ones.
        var documented: [String: Set<String>] = [:]
        for line in doc.split(separator: "\n") where line.hasPrefix("| `Thrum") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let listed = cells[3] == "—" ? [] : cells[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            // A C target is `C` and a capital (CALSA, CSndFile); anything else short is Thrum-prefixed.
            func isCTarget(_ s: String) -> Bool { s.count > 1 && s.first == "C" && s.dropFirst().first!.isUppercase }
            documented[name] = Set(listed.map { isCTarget($0) || $0.hasPrefix("Thrum") ? $0 : "Thrum" + $0 })
        }
        for (name, dependencies) in package.sorted(by: { $0.key < $1.key }) {
            let row = try XCTUnwrap(documented[name], "docs/architecture.md has no row for \(name)")
            XCTAssertEqual(row, dependencies, "docs/architecture.md's row for \(name) vs Package.swift")
        }
        XCTAssertEqual(Set(documented.keys), Set(package.keys), "rows for modules Package.swift does not have")
    }
}
