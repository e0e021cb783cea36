import Foundation
import XCTest

/// `thrum presets`: every family, the well-known names, JSON, the family filter.
final class CLIPresetsTests: XCTestCase {
    func testTextListsEveryFamilyAndWellKnownNames() throws {
        let result = try ThrumProcess.run(["presets"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let out = result.standardOutput
        for family in ["[uikit]", "[swiftui]", "[watchos]", "[macos]", "[rom]"] {
            XCTAssertTrue(out.contains(family), "no \(family) group")
        }
        for name in ["impact.heavy", "watch.success", "sensory.levelChange", "mac.alignment", "rom.1 ", "rom.123"] {
            XCTAssertTrue(out.contains("  \(name)"), "\(name) is not listed")
        }
        let heavy = try XCTUnwrap(out.split(separator: "\n").first { $0.contains(" impact.heavy ") })
        XCTAssertTrue(heavy.contains("A collision between large, heavy UI objects."), String(heavy))
    }

    func testJSONParsesAndCoversTheCatalogue() throws {
        let result = try ThrumProcess.run(["presets", "--json"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let presets = try XCTUnwrap(try CLITestSupport.json(result) as? [[String: Any]])
        let names = presets.compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(names).count, names.count, "a preset is listed twice")
        XCTAssertEqual(Set(presets.compactMap { $0["family"] as? String }), ["uikit", "swiftui", "watchos", "macos", "rom"])
        XCTAssertEqual(presets.filter { $0["family"] as? String == "rom" }.count, 123)
        let heavy = try XCTUnwrap(presets.first { $0["name"] as? String == "impact.heavy" })
        XCTAssertEqual(heavy["accepts_intensity"] as? Bool, true)
        XCTAssertEqual(heavy["kind"] as? String, "pattern")
        let success = try XCTUnwrap(presets.first { $0["name"] as? String == "watch.success" })
        XCTAssertEqual(success["events"] as? Int, 3)
        let rom1 = try XCTUnwrap(presets.first { $0["name"] as? String == "rom.1" })
        XCTAssertEqual(rom1["rom_id"] as? Int, 1)
        XCTAssertEqual(rom1["aliases"] as? [String], ["rom.strong-click-100"])
        XCTAssertFalse((rom1["summary"] as? String ?? "").isEmpty)
    }

    func testFamilyFilter() throws {
        let result = try ThrumProcess.run(["presets", "--family", "watchos", "--json"])
        let presets = try XCTUnwrap(try CLITestSupport.json(result) as? [[String: Any]])
        XCTAssertFalse(presets.isEmpty)
        XCTAssertTrue(presets.allSatisfy { $0["family"] as? String == "watchos" })

        let bad = try ThrumProcess.run(["presets", "--family", "android"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.standardError.contains("unknown family 'android'"), bad.standardError)
    }
}
