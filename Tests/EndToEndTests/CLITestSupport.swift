import Foundation
import XCTest

/// Helpers shared by the `CLI*Tests`: a scratch directory and JSON parsing of command output.
enum CLITestSupport {
    /// A fresh temporary directory, removed when the test case tears down.
    static func scratchDirectory(for testCase: XCTestCase) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Writes `text` to `name` in `directory` and returns the file's path.
    static func write(_ text: String, named name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Parses standard output as JSON.
    static func json(_ result: ThrumProcess.Result, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        } catch {
            XCTFail("output is not JSON: \(result.standardOutput.prefix(400))", file: file, line: line)
            throw error
        }
    }
}
