import Foundation
import ThrumLink
import XCTest

/// `thrum play --expect-max-error-us N --expect-onsets K --junit FILE`: the CI assertions, both
/// ways, on the virtual device and over a pty, and the JUnit file against tools/junit.xsd.
final class PlayExpectationsTests: XCTestCase {
    let heartbeat = TestPaths.example("heartbeat.ahap").path

    func testPassingAssertionsExitZeroAndSayPassed() throws {
        let result = try ThrumProcess.run([
            "play", heartbeat, "--no-plot", "--expect-max-error-us", "5000", "--expect-onsets", "4",
        ])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(
            result.standardOutput.contains("expectations (|error| + bound ≤ 5000 µs, 4 onsets): passed"),
            result.standardOutput)
        XCTAssertEqual(result.standardError, "")
    }

    func testTimingAssertionIsOnTheBound() throws {
        // Read the playback's own figures, then ask for a limit between the worst estimate and
        // the worst estimate + bound: the estimate alone would pass, the bound must not.
        let json = try ThrumProcess.run(["play", heartbeat, "--json", "--expect-max-error-us", "100000"])
        XCTAssertEqual(json.status, 0, json.standardError)
        let object = try XCTUnwrap(try CLITestSupport.json(json) as? [String: Any])
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        let worstError = events.compactMap { ($0["error_us"] as? Double).map(abs) }.max() ?? 0
        let expectations = try XCTUnwrap(object["expectations"] as? [String: Any])
        XCTAssertEqual(expectations["passed"] as? Bool, true)
        let worst = try XCTUnwrap(expectations["worst_error_plus_bound_us"] as? Double)
        XCTAssertGreaterThan(worst, worstError + 50, "the bound adds to the estimate")
        let limit = Int((worstError + worst) / 2)
        let missed = try ThrumProcess.run(["play", heartbeat, "--no-plot", "--expect-max-error-us", "\(limit)"])
        XCTAssertEqual(missed.status, 3, missed.standardError)
        let lines = missed.standardError.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, missed.standardError)
        XCTAssertTrue(lines[0].hasPrefix("thrum: expectation missed: event "), missed.standardError)
        XCTAssertTrue(lines[0].contains("|error| + bound = "), missed.standardError)
        XCTAssertTrue(missed.standardOutput.contains("MISSED"), missed.standardOutput)
    }

    func testOnsetCountBothWays() throws {
        let missed = try ThrumProcess.run(["play", heartbeat, "--no-plot", "--expect-onsets", "5"])
        XCTAssertEqual(missed.status, 3)
        XCTAssertEqual(
            missed.standardError,
            "thrum: expectation missed: expected 5 onsets, the device reported 4 (of 4 haptic events)\n")
        let json = try ThrumProcess.run(["play", heartbeat, "--json", "--expect-onsets", "5"])
        XCTAssertEqual(json.status, 3)
        let object = try XCTUnwrap(try CLITestSupport.json(json) as? [String: Any])
        let expectations = try XCTUnwrap(object["expectations"] as? [String: Any])
        XCTAssertEqual(expectations["passed"] as? Bool, false)
        XCTAssertEqual(expectations["reported_onsets"] as? Int, 4)
    }

    func testUsageErrors() throws {
        for bad in [["--expect-max-error-us", "0"], ["--expect-max-error-us", "fast"], ["--expect-onsets", "-1"]] {
            let result = try ThrumProcess.run(["play", heartbeat, "--no-plot"] + bad)
            XCTAssertEqual(result.status, 2, "\(bad)")
        }
    }

    /// Over a pty against `thrum sim`: a loose limit passes and a tight one fails, and both JUnit
    /// files validate against the schema, one test case per event plus the onset count.
    func testJUnitOverAPseudoTerminalValidatesAgainstTheSchema() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let passing = dir.appendingPathComponent("pass.xml").path
        let pass = try ThrumProcess.run([
            "play", heartbeat, "--port", simulator.ptyPath, "--expect-max-error-us", "20000", "--expect-onsets", "4",
            "--junit", passing,
        ])
        XCTAssertEqual(pass.status, 0, pass.standardError)
        let failing = dir.appendingPathComponent("fail.xml").path
        let fail = try ThrumProcess.run([
            "play", heartbeat, "--port", simulator.ptyPath, "--expect-max-error-us", "1", "--expect-onsets", "4",
            "--junit", failing,
        ])
        XCTAssertEqual(fail.status, 3, fail.standardError)
        XCTAssertTrue(
            fail.standardError.hasPrefix("thrum: expectation missed: event 0 at 0.000 ms: |error| + bound = "),
            fail.standardError)
        for (path, failures) in [(passing, 0), (failing, 4)] {
            try assertValid(path)
            let xml = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 5, xml)
            XCTAssertEqual(xml.components(separatedBy: "<failure ").count - 1, failures, xml)
            XCTAssertTrue(xml.contains("tests=\"5\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\""), xml)
            XCTAssertTrue(xml.contains("<property name=\"target\" value=\"\(simulator.ptyPath)\"/>"), xml)
            XCTAssertTrue(xml.contains("classname=\"thrum.play.heartbeat\""), xml)
        }
    }

    func testNoDeviceWritesAnErrorTestCase() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let path = dir.appendingPathComponent("error.xml").path
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let result = try ThrumProcess.run([
            "play", heartbeat, "--port", terminal.devicePath, "--expect-onsets", "4", "--junit", path,
        ])
        XCTAssertEqual(result.status, 1)
        try assertValid(path)
        let xml = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(xml.contains("errors=\"1\""), xml)
        XCTAssertTrue(xml.contains("<error message=\"no Thrum device answered"), xml)
    }

    /// A pattern that cannot be read (missing, malformed JSON, a value Core Haptics refuses) wrote
    /// no report: the CI job that publishes it found nothing. Each now writes one test case in
    /// error carrying the one-line message (file:line:column and the Core Haptics code); a usage
    /// error (exit 2) writes none, and the pattern itself is never the report.
    func testAPatternThatDoesNotReadWritesAnErrorTestCase() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let malformed = try CLITestSupport.write("{\n  \"Pattern\": [\n    {\"Event\": }\n  ]\n}\n", named: "malformed.ahap", in: dir)
        let refused = try CLITestSupport.write(
            "{\"Pattern\": [{\"Event\": {\"Time\": -1, \"EventType\": \"HapticTransient\"}}]}\n", named: "refused.ahap", in: dir)
        let missing = dir.appendingPathComponent("missing.ahap").path
        for (index, (pattern, expected)) in [
            (missing, "missing.ahap"), (malformed, "malformed.ahap:3:"), (refused, "refused.ahap:1:"),
        ].enumerated() {
            let path = dir.appendingPathComponent("report\(index).xml").path
            let result = try ThrumProcess.run(["play", pattern, "--no-plot", "--expect-onsets", "1", "--junit", path])
            XCTAssertEqual(result.status, 1, result.standardError)
            let line = result.standardError.trimmingCharacters(in: .newlines)
            XCTAssertTrue(line.contains(expected), line)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "no report for \(pattern): \(line)")
            guard FileManager.default.fileExists(atPath: path) else { continue }
            try assertValid(path)
            let xml = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertTrue(xml.contains("tests=\"1\" failures=\"0\" errors=\"1\""), xml)
            let message = try XCTUnwrap(xml.components(separatedBy: "<error message=\"").dropFirst().first?.components(separatedBy: "\"").first)
            XCTAssertTrue(message.contains(expected), message)
            if pattern != missing { XCTAssertNotNil(message.range(of: #"error\[-48\d\d\]"#, options: .regularExpression), message) }
        }
        // The command line wrong: exit 2 and no report. The malformed pattern named as the report: refused, unchanged.
        let usage = dir.appendingPathComponent("usage.xml").path
        let wrong = try ThrumProcess.run(["play", malformed, "--rate", "1000", "--junit", usage])
        XCTAssertEqual(wrong.status, 2, wrong.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: usage))
        let before = try Data(contentsOf: URL(fileURLWithPath: malformed))
        let itself = try ThrumProcess.run(["play", malformed, "--junit", malformed])
        XCTAssertEqual(itself.status, 2, itself.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: malformed)), before)
    }

    /// `xmllint --schema tools/junit.xsd` (libxml2-utils, installed by tools/ensure-deps.sh).
    func assertValid(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "xmllint", "--noout", "--schema", TestPaths.packageRoot.appendingPathComponent("tools/junit.xsd").path,
            path,
        ]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(
            process.terminationStatus, 0, "xmllint (run tools/ensure-deps.sh if it is missing): \(message)", file: file,
            line: line)
    }
}
