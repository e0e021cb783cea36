import Foundation
import XCTest

/// Hostile numbers, paths and failures through the `thrum` binary as a user meets them (issue 13).
final class CLIHostileInputTests: XCTestCase {
    static let transient = #"{"Pattern":[{"Event":{"Time":TIME,"EventType":"HapticTransient"}}]}"#

    func testHugeTimesFailValidateAndRenderWithTheCoreHapticsCodeAndPlace() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let file = try CLITestSupport.write(Self.transient.replacingOccurrences(of: "TIME", with: "1.2e59"), named: "big.ahap", in: dir)
        for command in ["validate", "render"] {
            let result = try ThrumProcess.run([command, file])
            XCTAssertEqual(result.status, 1, command)
            XCTAssertTrue(
                result.standardOutput.contains("big.ahap:1:30: error[-4822]: 'Time' is 1.2e+59 s, beyond the maximum")
                    || result.standardError.contains("big.ahap:1:30: error[-4822]: 'Time' is 1.2e+59 s, beyond the maximum"),
                "\(command): \(result.standardOutput) \(result.standardError)")
        }
    }

    func testAnEventAt3600sRendersQuicklyInFewRows() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let file = try CLITestSupport.write(Self.transient.replacingOccurrences(of: "TIME", with: "3600"), named: "late.ahap", in: dir)
        let csv = dir.appendingPathComponent("late.csv").path
        let result = try ThrumProcess.run(["render", file, "--csv", csv, "--json"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.standardError)
        let summary = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        XCTAssertLessThan(try XCTUnwrap(summary["rows"] as? Int), 300)
        XCTAssertEqual(summary["acceleration_source"] as? String, "predictor", "an hour-long program is not simulated")
        XCTAssertEqual(try XCTUnwrap(summary["end_s"] as? Double), 3600, accuracy: 0.2)
    }

    func testRenderCSVToADirectorySaysItIsADirectory() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let file = try CLITestSupport.write(Self.transient.replacingOccurrences(of: "TIME", with: "0"), named: "t.ahap", in: dir)
        let result = try ThrumProcess.run(["render", file, "--csv", dir.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardError.contains("cannot write the CSV to '\(dir.path)': it is a directory"), result.standardError)
        XCTAssertFalse(result.standardError.contains("NSCocoaErrorDomain"))
        let missing = try ThrumProcess.run(["render", file, "--svg", dir.appendingPathComponent("no/such/dir/x.svg").path])
        XCTAssertTrue(missing.standardError.contains("does not exist"), missing.standardError)
    }

    func testAJSONCommandThatFailsPrintsAJSONErrorObject() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let result = try ThrumProcess.run(["render", dir.appendingPathComponent("missing.ahap").path, "--json"])
        XCTAssertEqual(result.status, 1)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        XCTAssertEqual(object["command"] as? String, "render")
        XCTAssertEqual(object["exit_code"] as? Int, 1)
        let error = try XCTUnwrap(object["error"] as? [String: Any])
        XCTAssertEqual(error["kind"] as? String, "failure")
        XCTAssertTrue((error["message"] as? String)?.contains("no such file") == true, "\(error)")

        let usage = try ThrumProcess.run(["presets", "--json", "--family", "nonsense-family"])
        XCTAssertNotEqual(usage.status, 0)
        let usageObject = try XCTUnwrap(try CLITestSupport.json(usage) as? [String: Any])
        XCTAssertNotNil(usageObject["error"], usage.standardOutput)
    }

    func testSimRefusesDriftsItCannotModel() throws {
        for drift in ["nan", "inf", "-inf", "-2e6", "1e300", "-1e6"] {
            let result = try ThrumProcess.run(["sim", "--drift-ppm", drift], timeout: 10)
            XCTAssertEqual(result.status, 2, drift)
            XCTAssertTrue(result.standardError.contains("--drift-ppm must be a number from -100000 to 100000 ppm"), result.standardError)
        }
    }

    func testFileProblemsAreNamed() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let folder = dir.appendingPathComponent("folder.ahap")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let result = try ThrumProcess.run(["validate", folder.path])
        XCTAssertTrue(result.standardOutput.contains("it is a directory, not a regular file"), result.standardOutput)
        XCTAssertFalse(result.standardOutput.contains(":0:0"))
    }
}
