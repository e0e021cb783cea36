import Foundation
import ThrumTestSupport
import XCTest

/// The wiring diagrams in docs/wiring are what tools/gen-wiring.py draws from the firmware's pin
/// headers (hardware/firmware/ports/*/pins.h, which board.c includes): regenerated into a
/// temporary directory, they must equal the committed files byte for byte, and every wired pin
/// of each header must be in its drawing.
final class WiringDiagramTests: XCTestCase {
    static let boards = ["uno": "avr", "nano": "avr", "bluepill": "cortex-m"]

    func testCommittedDiagramsAreWhatThePinTablesDraw() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-wiring-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", PackageRoot.file("tools/gen-wiring.py").path, "--out", scratch.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        for (board, port) in Self.boards {
            let fresh = try String(contentsOf: scratch.appendingPathComponent("\(board).svg"), encoding: .utf8)
            let committed = try String(contentsOf: PackageRoot.file("docs/wiring/\(board).svg"), encoding: .utf8)
            XCTAssertEqual(committed, fresh, "docs/wiring/\(board).svg is stale: run tools/gen-wiring.py")
            let header = try String(contentsOf: PackageRoot.file("hardware/firmware/ports/\(port)/pins.h"), encoding: .utf8)
            let wired = header.split(separator: "\n").filter { $0.hasPrefix("#define THRUM_PIN_") && $0.contains("->") }
            XCTAssertGreaterThanOrEqual(wired.count, 5, "\(port)/pins.h")
            for line in wired {
                // `#define THRUM_PIN_SDA PC4 /* A4 (SDA) -> DRV2605L SDA */`: the board pin is drawn.
                let comment = line.components(separatedBy: "/*")[1]
                let boardPin = comment.components(separatedBy: "->")[0].trimmingCharacters(in: .whitespaces)
                XCTAssertTrue(fresh.contains(">\(boardPin)<") || fresh.contains(boardPin + ":"), "\(board): \(boardPin) not drawn")
            }
        }
    }

    /// The firmware sources take their pins from the header only (no port bit spelled out).
    func testBoardSourcesNameNoPinOutsideTheHeader() throws {
        for (file, pattern) in [
            ("hardware/firmware/ports/avr/board.c", #"\(1u << P[BCD][0-7]\)"#),
            ("hardware/firmware/ports/avr/library_io.c", #"\(1u << P[BCD][0-7]\)"#),
            ("hardware/firmware/ports/cortex-m/board.c", #"GPIO_SHIFT\([0-9]+\)"#),
        ] {
            let text = try String(contentsOf: PackageRoot.file(file), encoding: .utf8)
            XCTAssertNil(text.range(of: pattern, options: .regularExpression), "\(file) spells a pin itself")
            XCTAssertTrue(text.contains("#include \"pins.h\""), file)
        }
    }
}
