import Foundation
import ThrumBench
import ThrumTestSupport
import XCTest

/// The docs' generated tables match what the code generates (`thrum dev table NAME`); when one
/// fails, run tools/docs-tables.sh (or edit the Apple rows by hand) and review the diff. The
/// felt-onset grid runs in virtual time, so its table is the same on every run and machine; it is
/// checked by FeltOnsetGridTests, which runs the grid anyway (the grid is the most costly table).
final class DocTablesTests: XCTestCase {
    private func docs(_ table: DocTable) throws -> String {
        try String(contentsOf: PackageRoot.file(table.docsFile), encoding: .utf8)
    }

    func testEveryBlockTableMatchesItsDocs() throws {
        for table in DocTable.allCases where table.isBlock && table != .feltGrid {
            let block = try XCTUnwrap(
                try table.block(in: docs(table)), "\(table.docsFile) has no \(table.startMarker) block")
            XCTAssertEqual(block, try table.lines(), "\(table.docsFile): run tools/docs-tables.sh")
        }
    }

    func testEveryApplePresetRowStartsAsGenerated() throws {
        let text = try docs(.presetsApple)
        let rows = try DocTable.presetsApple.lines()
        XCTAssertFalse(rows.isEmpty)
        for row in rows { XCTAssertTrue(text.contains(row + " "), "docs/presets.md lacks the row starting \(row)") }
    }

    func testBlockReplacementKeepsTheRestOfTheFile() throws {
        let table = DocTable.preShift
        let text = "intro\n\(table.startMarker)\n| old |\n| rows |\n\(DocTable.endMarker)\noutro\n"
        XCTAssertEqual(table.block(in: text), ["| old |", "| rows |"])
        XCTAssertEqual(
            table.replacingBlock(in: text, with: ["| new |"]),
            "intro\n\(table.startMarker)\n| new |\n\(DocTable.endMarker)\noutro\n")
        XCTAssertNil(table.replacingBlock(in: "no markers", with: []))
        XCTAssertNil(DocTable.feltGrid.block(in: text), "another table's marker does not match")
    }
}
