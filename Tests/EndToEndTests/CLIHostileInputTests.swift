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

    /// `render x.ahap --csv x.ahap` (or through a symbolic link, or a hard link) is refused
    /// before anything is written: the input stays as it was.
    func testRenderRefusesToOverwriteItsInput() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let text = Self.transient.replacingOccurrences(of: "TIME", with: "0")
        let file = try CLITestSupport.write(text, named: "t.ahap", in: dir)
        let symlink = dir.appendingPathComponent("t-link.csv").path
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: file)
        let hardlink = dir.appendingPathComponent("t-hard.svg").path
        try FileManager.default.linkItem(atPath: file, toPath: hardlink)
        let dotted = dir.appendingPathComponent("sub/../t.ahap").path
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for args in [["--csv", file], ["--svg", symlink], ["--svg", hardlink], ["--csv", dotted]] {
            let result = try ThrumProcess.run(["render", file] + args)
            XCTAssertEqual(result.status, 2, "\(args): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains("would overwrite the input"), result.standardError)
            XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), text, "\(args): the input was written")
        }
        // play's JUnit report the same.
        let junit = try ThrumProcess.run(["play", file, "--no-plot", "--junit", symlink])
        XCTAssertEqual(junit.status, 2, junit.standardError)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), text, "play --junit wrote the input")
    }

    /// Output that cannot be written (a full device) is an error: exit 1 and one line saying so,
    /// never a silent success.
    func testAFailedWriteOnStandardOutputExitsOne() throws {
        let file = TestPaths.example("heartbeat.ahap").path
        for args in [["render", "--json", file], ["validate", file], ["presets"]] {
            let process = Process()
            process.executableURL = try TestPaths.thrumBinary
            process.arguments = args
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 1, "\(args): \(err)")
            XCTAssertTrue(err.contains("cannot write to standard output: no space left on device"), "\(args): \(err)")
            XCTAssertEqual(err.split(separator: "\n").count, 1, err)
        }
    }

    /// NaN and infinities are usage errors (exit 2) for every numeric option, as any other value
    /// out of range is.
    func testNaNAndInfinityAreUsageErrors() throws {
        let file = TestPaths.example("heartbeat.ahap").path
        let cases: [[String]] = [
            ["render", file, "--intensity", "nan"], ["render", file, "--intensity", "inf"], ["render", file, "--rate", "nan"],
            ["render", file, "--rate", "-inf"], ["play", file, "--intensity", "nan"], ["play", file, "--rate", "nan"],
            ["play", file, "--loop-end", "inf"], ["sim", "--drift-ppm", "nan"], ["sim", "--supply", "inf"],
        ]
        for args in cases {
            let result = try ThrumProcess.run(args, timeout: 30)
            XCTAssertEqual(result.status, 2, "\(args): \(result.standardError)")
        }
    }

    /// A 1 MB number or a 10 MB key is quoted in its error or warning by its first 80 characters
    /// and its length, not echoed whole.
    func testHugeValuesAndKeysAreQuotedShort() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let number = try CLITestSupport.write(
            Self.transient.replacingOccurrences(of: "TIME", with: String(repeating: "1", count: 1_000_000)), named: "n.ahap", in: dir)
        let key = String(repeating: "K", count: 10_000_000)
        let keyed = try CLITestSupport.write(
            #"{"Pattern":[{"Event":{"Time":0,"\#(key)":1,"EventType":"HapticTransient"}}]}"#, named: "k.ahap", in: dir)
        for (file, note) in [(number, "…(1000000 characters)"), (keyed, "…(10000000 characters)")] {
            for command in ["validate", "render"] {
                let result = try ThrumProcess.run([command, file], timeout: 60)
                let text = result.standardOutput + result.standardError
                XCTAssertTrue(text.contains(note), "\(command): \(text.prefix(400))")
                XCTAssertLessThan(text.utf8.count, 8_000, "\(command) echoed the value whole")
            }
        }
        let option = try ThrumProcess.run(["play", number, "--rate", String(repeating: "9", count: 100_000)])
        XCTAssertEqual(option.status, 2)
        XCTAssertTrue(option.standardError.contains("…(100000 characters)"), String(option.standardError.prefix(400)))
        XCTAssertLessThan(option.standardError.utf8.count, 8_000)
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
