import XCTest

/// A usage error is one line saying what is wrong and a pointer to the command's help, not the
/// message buried above a screenful of usage (issue 23).
final class CLIUsageErrorTests: XCTestCase {
    func testAMistypedOptionIsOneLineAndTheHelpHint() throws {
        for (command, arguments) in [("play", ["play", "--bogus"]), ("render", ["render", "x.ahap", "--svg"]), ("sim", ["sim", "--link", "out=9-1ms"])] {
            let result = try ThrumProcess.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            let lines = result.standardError.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, result.standardError)
            XCTAssertTrue(lines.first?.hasPrefix("thrum: ") == true, result.standardError)
            XCTAssertEqual(lines.last.map(String.init), "Run 'thrum \(command) --help' for its options.")
            XCTAssertFalse(result.standardError.contains("Usage:"), result.standardError)
        }
    }
}
