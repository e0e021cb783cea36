import Foundation
import ThrumLibrary
import ThrumTestSupport
import XCTest

/// Manifest mistakes are refused with the file, line:column and what was expected.
final class LibraryManifestTests: XCTestCase {
    private func error(_ text: String, file: String = "lib/library.json") -> String {
        do {
            _ = try LibraryManifest.parse(text, file: file)
            return "no error"
        } catch {
            return error.description
        }
    }

    func testParsesEntriesWithDefaults() throws {
        let m = try LibraryManifest.parse(
            #"{"name": "l", "presets": [{"id": 1, "ahap": "dir/beat.ahap", "trigger": 3}, {"id": 2, "preset": "impact.heavy"}]}"#,
            file: "library.json")
        XCTAssertEqual(m.version, 1)
        XCTAssertNil(m.actuator)
        XCTAssertEqual(m.entries.map(\.name), ["beat", "impact.heavy"])
        XCTAssertEqual(m.entries.map(\.source), [.ahap("dir/beat.ahap"), .systemPreset("impact.heavy")])
        XCTAssertEqual(m.entries.map(\.trigger), [3, nil])
    }

    func testMistakesNameTheirPlace() {
        XCTAssertEqual(
            error("{\"name\": \"l\",\n \"presets\": [{\"id\": 1, \"preset\": \"a\"},\n  {\"id\": 1, \"preset\": \"b\"}]}"),
            "lib/library.json:3:10: error: presets[1].id: 1 is already used by presets[0]")
        XCTAssertTrue(error(#"{"name": "l", "presets": [{"id": 1}]}"#).contains("presets[0]: give 'ahap' (a file) or 'preset'"))
        XCTAssertTrue(error(#"{"name": "l", "presets": [{"id": 1, "ahap": "a", "preset": "b"}]}"#).contains("not both"))
        XCTAssertTrue(error(#"{"name": "l", "presets": [{"id": 0, "preset": "b"}]}"#).contains("presets[0].id: expected an integer 1…65535"))
        XCTAssertTrue(error(#"{"name": "l", "presets": [{"id": 1, "preset": "b", "trigger": 8}]}"#).contains("trigger: expected an input 0…7"))
        XCTAssertTrue(
            error(#"{"name": "l", "presets": [{"id": 1, "preset": "b", "trigger": 2}, {"id": 2, "preset": "c", "trigger": 2}]}"#)
                .contains("input 2 already plays presets[0]"))
        XCTAssertTrue(error(#"{"name": "l", "presets": [{"id": 1, "preset": "b", "colour": 2}]}"#).contains("unknown key 'colour'"))
        XCTAssertTrue(error(#"{"presets": []}"#).contains("missing key 'name'"))
        XCTAssertTrue(error(#"{"name": "l", "presets": []}"#).contains("'presets' must be a non-empty array"))
        XCTAssertTrue(error("{\"name\": \"l\",").hasPrefix("lib/library.json:1:"), error("{\"name\": \"l\","))
    }

    /// A build whose AHAP file is invalid reports the AHAP reader's diagnostic (with the Core
    /// Haptics error code) under the manifest entry that names it; an unknown preset suggests names.
    func testBuildReportsBadSourcesUnderTheirEntry() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-lib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#.write(
            to: dir.appendingPathComponent("bad.ahap"), atomically: true, encoding: .utf8)
        try "{\"name\": \"l\",\n\"presets\": [{\"id\": 4, \"ahap\": \"bad.ahap\"}]}".write(
            to: dir.appendingPathComponent("library.json"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try LibraryBuilder().build(directory: dir.path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("library.json:2:13: error: preset 4: "), text)
            XCTAssertTrue(text.contains("bad.ahap:1:"), text)
            XCTAssertTrue(text.contains("-4822"), text)
        }
        try "{\"name\": \"l\", \"presets\": [{\"id\": 4, \"preset\": \"impact.hevy\"}]}".write(
            to: dir.appendingPathComponent("library.json"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try LibraryBuilder().build(directory: dir.path)) { error in
            XCTAssertTrue("\(error)".contains("impact.heavy"), "\(error)")
        }
        XCTAssertThrowsError(try LibraryBuilder().build(directory: dir.appendingPathComponent("missing").path)) { error in
            XCTAssertTrue("\(error)".contains("cannot read the manifest"), "\(error)")
        }
    }
}
