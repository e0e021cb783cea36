import Foundation
import ThrumStudio
import ThrumTestSupport
import XCTest

/// The page embedded in the binary is the one under Sources/ThrumStudio/Web (regenerate with
/// tools/gen-studio-assets.py after editing it).
final class StudioAssetsTests: XCTestCase {
    func testEmbeddedCopyMatchesTheFiles() throws {
        let web = PackageRoot.file("Sources/ThrumStudio/Web")
        let names = try FileManager.default.contentsOfDirectory(atPath: web.path).sorted()
        XCTAssertEqual(names, StudioAssets.files.keys.sorted(), "every file under Web/ is embedded")
        for name in names {
            let text = try String(contentsOf: web.appendingPathComponent(name), encoding: .utf8)
            XCTAssertEqual(StudioAssets.files[name], text, "\(name) differs from its embedded copy: run tools/gen-studio-assets.py")
        }
    }

    func testPageInlinesStyleAndScript() {
        XCTAssertFalse(StudioAssets.page.contains("/*STYLE*/"))
        XCTAssertFalse(StudioAssets.page.contains("/*APP*/"))
        XCTAssertTrue(StudioAssets.page.contains("data-event-index"))
    }
}
