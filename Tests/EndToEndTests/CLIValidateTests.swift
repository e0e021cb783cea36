import Foundation
import XCTest

/// `thrum validate`, run as a user would: exit codes, `file:line:column` diagnostics, JSON.
final class CLIValidateTests: XCTestCase {
    func testAValidExamplePasses() throws {
        let path = TestPaths.example("heartbeat.ahap").path
        let result = try ThrumProcess.run(["validate", path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("\(path): ok (4 haptic events"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("1 file: 1 valid, 0 invalid"), result.standardOutput)
    }

    /// One synthetic invalid file per error code, each with the place of the fault.
    static let invalidFiles: [(name: String, text: String, code: Int, line: Int, column: Int, path: String)] = [
        (
            "negative-time.ahap",
            """
            {
              "Version": 1.0,
              "Pattern": [
                { "Event": { "Time": -1.0, "EventType": "HapticTransient", "EventParameters": [] } }
              ]
            }
            """, -4822, 4, 26, "Pattern[0].Event.Time"
        ),
        (
            "bad-type.ahap",
            """
            {
              "Pattern": [
                { "Event": { "Time": 0.0, "EventType": "HapticBuzz", "EventParameters": [] } }
              ]
            }
            """, -4821, 3, 44, "Pattern[0].Event.EventType"
        ),
        (
            "broken-json.ahap",
            """
            {
              "Pattern": [
                { "Event": { "Time": 0.0 "EventType": "HapticTransient" } }
              ]
            }
            """, -4813, 3, 30, "Pattern[0].Event"
        ),
    ]

    func testInvalidFilesReportCodeLineAndColumnInText() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        for file in Self.invalidFiles {
            let path = try CLITestSupport.write(file.text, named: file.name, in: dir)
            let result = try ThrumProcess.run(["validate", path])
            XCTAssertEqual(result.status, 1, "\(file.name): \(result.standardOutput)")
            let prefix = "\(path):\(file.line):\(file.column): error[\(file.code)]: "
            XCTAssertTrue(result.standardOutput.contains(prefix), "\(file.name): expected '\(prefix)' in\n\(result.standardOutput)")
            XCTAssertTrue(result.standardOutput.contains("1 file: 0 valid, 1 invalid"), result.standardOutput)
        }
    }

    func testInvalidFilesReportCodeLineAndColumnInJSON() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        var paths: [String] = []
        for file in Self.invalidFiles { paths.append(try CLITestSupport.write(file.text, named: file.name, in: dir)) }
        let valid = TestPaths.example("metronome.ahap").path
        let result = try ThrumProcess.run(["validate", "--json"] + paths + [valid])
        XCTAssertEqual(result.status, 1)
        let array = try XCTUnwrap(try CLITestSupport.json(result) as? [[String: Any]])
        XCTAssertEqual(array.count, Self.invalidFiles.count + 1)
        for (file, (entry, path)) in zip(Self.invalidFiles, zip(array, paths)) {
            XCTAssertEqual(entry["file"] as? String, path)
            XCTAssertEqual(entry["valid"] as? Bool, false)
            let errors = try XCTUnwrap(entry["errors"] as? [[String: Any]])
            XCTAssertEqual(errors.count, 1)
            XCTAssertEqual(errors[0]["code"] as? Int, file.code, file.name)
            XCTAssertEqual(errors[0]["line"] as? Int, file.line, file.name)
            XCTAssertEqual(errors[0]["column"] as? Int, file.column, file.name)
            if !file.path.isEmpty { XCTAssertEqual(errors[0]["path"] as? String, file.path, file.name) }
            XCTAssertFalse((errors[0]["message"] as? String ?? "").isEmpty)
        }
        let last = try XCTUnwrap(array.last)
        XCTAssertEqual(last["valid"] as? Bool, true)
        XCTAssertEqual((last["errors"] as? [Any])?.count, 0)
    }

    func testWarningsAreReportedWithoutFailing() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let path = try CLITestSupport.write(
            """
            {
              "Version": 1.0,
              "Colour": 3,
              "Pattern": [
                { "Event": { "Time": 0.0, "EventType": "HapticTransient",
                  "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 1.5 } ] } }
              ]
            }
            """, named: "warnings.ahap", in: dir)
        let text = try ThrumProcess.run(["validate", path])
        XCTAssertEqual(text.status, 0)
        XCTAssertTrue(text.standardOutput.contains("\(path):3:3: warning: unknown key 'Colour'"), text.standardOutput)
        XCTAssertTrue(text.standardOutput.contains("2 warnings"), text.standardOutput)

        let json = try ThrumProcess.run(["validate", "--json", path])
        let entry = try XCTUnwrap((try CLITestSupport.json(json) as? [[String: Any]])?.first)
        let warnings = try XCTUnwrap(entry["warnings"] as? [[String: Any]])
        XCTAssertEqual(warnings.map { $0["code"] as? String }, ["unknownKey", "valueClamped"])
        XCTAssertEqual(warnings[1]["line"] as? Int, 6)
        XCTAssertEqual(warnings[1]["path"] as? String, "Pattern[0].Event.EventParameters[0].ParameterValue")
    }

    func testATrailingCommaFailsStrictlyAndPassesLeniently() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let path = try CLITestSupport.write(
            """
            {
              "Version": 1.0,
              "Pattern": [
                { "Event": { "Time": 0.0, "EventType": "HapticTransient", "EventParameters": [] } },
              ]
            }
            """, named: "trailing.ahap", in: dir)
        let strict = try ThrumProcess.run(["validate", path])
        XCTAssertEqual(strict.status, 1)
        XCTAssertTrue(strict.standardOutput.contains("\(path):5:3: error[-4813]:"), strict.standardOutput)
        let lenient = try ThrumProcess.run(["validate", "--lenient", path])
        XCTAssertEqual(lenient.status, 0, lenient.standardOutput)
    }

    func testAMissingFileIsInvalidAndNoFileIsAUsageError() throws {
        let missing = try ThrumProcess.run(["validate", "/nonexistent/nothing.ahap"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.standardOutput.contains("error[-4851]"), missing.standardOutput)
        let none = try ThrumProcess.run(["validate"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.standardError.hasSuffix("Run 'thrum validate --help' for its options.\n"), none.standardError)
    }

    func testFixturesOfEachKind() throws {
        let trailingComma = TestPaths.fixture("trailing-comma-metadata.ahap").path
        let allTypes = TestPaths.fixture("every-event-type.ahap").path
        let notAHAP = TestPaths.fixture("haptic-clip.json").path
        let misspelled = TestPaths.fixture("misspelled-keys.ahap").path

        let strict = try ThrumProcess.run(["validate", "--json", trailingComma, allTypes, notAHAP, misspelled])
        XCTAssertEqual(strict.status, 1)
        let entries = try XCTUnwrap(try CLITestSupport.json(strict) as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["valid"] as? Bool }, [false, true, false, true])
        XCTAssertEqual((entries[0]["errors"] as? [[String: Any]])?.first?["code"] as? Int, -4813)
        XCTAssertEqual((entries[0]["errors"] as? [[String: Any]])?.first?["line"] as? Int, 7)
        XCTAssertEqual((entries[0]["errors"] as? [[String: Any]])?.first?["column"] as? Int, 3)
        XCTAssertEqual((entries[2]["errors"] as? [[String: Any]])?.first?["code"] as? Int, -4814)
        let warnings = try XCTUnwrap(entries[3]["warnings"] as? [[String: Any]])
        XCTAssertTrue(warnings.contains { ($0["message"] as? String ?? "").contains("did you mean 'ParameterCurve'?") })

        let lenient = try ThrumProcess.run(["validate", "--lenient", trailingComma, allTypes])
        XCTAssertEqual(lenient.status, 0, lenient.standardOutput)
    }
}
