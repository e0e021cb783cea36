import Foundation
import XCTest

/// `thrum actuator list|compute` and `--actuator FILE.json` through the binary.
final class CLIActuatorTests: XCTestCase {
    func testComputeJSONHasTheRegisterIntegersAndIntermediates() throws {
        let result = try ThrumProcess.run(["actuator", "compute", "--f0", "175", "--vrms", "2.0", "--json"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        // The worked table's PMD C10-100 row.
        XCTAssertEqual(object["rated_voltage"] as? Int, 0x53)
        XCTAssertEqual(object["od_clamp"] as? Int, 133)
        XCTAssertEqual(object["drive_time"] as? Int, 24)
        XCTAssertEqual(object["ol_lra_period"] as? Int, 58)
        let steps = try XCTUnwrap(object["intermediate"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(steps["rated_voltage_exact"] as? Double), 83.46, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(steps["drive_time_exact"] as? Double), 23.57, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(steps["sampling_duty"] as? Double), 0.7375.squareRoot(), accuracy: 1e-6)
    }

    func testComputeTextShowsEachFormula() throws {
        let result = try ThrumProcess.run(["actuator", "compute", "--f0", "205", "--vrms", "1.5", "--vpeak", "3.0"])
        XCTAssertEqual(result.status, 0, result.standardError)
        for line in [
            "1 − 1500 µs × 205 Hz = 0.6925", "1.5 V × 0.8322 / 20.58 mV = 60.65  →  61 (0x3D)",
            "3 V / 21.22 mV = 141.38  →  141 (0x8D)", "(2.4390 − 0.5) / 0.1 = 19.39  →  19",
            "1 / (205 Hz × 98.46 µs) = 49.54  →  50 (0x32)",
        ] {
            XCTAssertTrue(result.standardOutput.contains(line), "missing '\(line)' in\n\(result.standardOutput)")
        }
    }

    func testListNamesEveryBuiltInProfile() throws {
        let result = try ThrumProcess.run(["actuator", "list", "--json"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let list = try XCTUnwrap(try CLITestSupport.json(result) as? [[String: Any]])
        XCTAssertEqual(
            list.compactMap { $0["id"] as? String }.sorted(),
            ["lra0825", "pmd-c10-100", "semco-1030", "vybronics-vg0832012", "vybronics-vg0840001d"])
        let pmd = try XCTUnwrap(list.first { $0["id"] as? String == "pmd-c10-100" })
        XCTAssertEqual((pmd["registers"] as? [String: Any])?["rated_voltage"] as? Int, 0x53)
        XCTAssertEqual(pmd["default"] as? Bool, true)
    }

    func testBadProfileFileIsOneClearLine() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let path = try CLITestSupport.write(
            "{\n  \"id\": \"mine\",\n  \"datasheet\": {\"resonanceHz\": 175, \"ratedVoltageRms\": \"two\"}\n}\n",
            named: "mine.json", in: dir)
        for command in [
            ["actuator", "compute", "--actuator", path],
            ["play", "preset:impact.light", "--actuator", path, "--no-plot"],
        ] {
            let result = try ThrumProcess.run(command)
            XCTAssertEqual(result.status, 1, "\(command)")
            XCTAssertEqual(
                result.standardError,
                "thrum: \(path):3:56: expected a number from 0.1 to 5.2 V RMS, found the string 'two' (at datasheet.ratedVoltageRms)\n"
            )
        }
    }

    func testUsageErrors() throws {
        let missing = try ThrumProcess.run(["actuator", "compute", "--f0", "175"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.standardError.contains("give --f0 HZ and --vrms V"), missing.standardError)
        let both = try ThrumProcess.run(["actuator", "compute", "--f0", "175", "--vrms", "2", "--actuator", "lra0825"])
        XCTAssertEqual(both.status, 2)
        let unknown = try ThrumProcess.run(["actuator", "compute", "--actuator", "no-such-lra"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.standardError.contains("no actuator profile named 'no-such-lra'"), unknown.standardError)
        let action = try ThrumProcess.run(["actuator", "frobnicate"])
        XCTAssertEqual(action.status, 2)
    }

    /// A user's own profile drives both ends over a pty: `thrum sim --actuator FILE` builds the
    /// virtual device around it, `thrum play --actuator FILE` compiles for it and configures the
    /// driver with its registers.
    func testOwnProfilePlaysOverAPseudoTerminal() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let path = try CLITestSupport.write(
            #"{"id": "bench-lra", "name": "Bench LRA", "datasheet": {"resonanceHz": 190, "ratedVoltageRms": 1.6}}"#,
            named: "bench-lra.json", in: dir)
        let simulator = try SimulatorProcess(arguments: ["--actuator", path])
        defer { simulator.stop() }
        let result = try ThrumProcess.run(
            [
                "play", "--port", simulator.ptyPath, "--actuator", path, "--json",
                TestPaths.example("heartbeat.ahap").path,
            ])
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        XCTAssertEqual(object["profile"] as? String, "bench-lra")
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 4)
        XCTAssertEqual(events.compactMap { $0["status"] as? String }, Array(repeating: "on_time", count: 4))
    }
}
