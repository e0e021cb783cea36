import Foundation
import XCTest

/// `thrum calibrate`, the kept calibration and `thrum info`, over a pty against `thrum sim`
/// (each failure mode the virtual device models), with XDG_CONFIG_HOME in a scratch directory.
final class CalibrateCommandTests: XCTestCase {
    func environment() throws -> [String: String] {
        ["XDG_CONFIG_HOME": try CLITestSupport.scratchDirectory(for: self).path]
    }

    func calibrate(_ simArguments: [String], environment env: [String: String]) throws -> (
        status: Int32, json: [String: Any], stderr: String
    ) {
        let simulator = try SimulatorProcess(arguments: simArguments)
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["calibrate", "--port", simulator.ptyPath, "--json"], environment: env)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        return (result.status, object, result.standardError)
    }

    func testPassReportsTheResultsAndKeepsThem() throws {
        let env = try environment()
        let (status, json, stderr) = try calibrate([], environment: env)
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(json["passed"] as? Bool, true)
        XCTAssertEqual(try XCTUnwrap(json["resonance_hz"] as? Double), 175, accuracy: 4)
        XCTAssertEqual(json["predicted_resonance_hz"] as? Double, 175)
        XCTAssertEqual(json["bemf_gain"] as? Int, 0)
        XCTAssertGreaterThan(try XCTUnwrap(json["a_cal_bemf"] as? Int), 0)
        XCTAssertTrue(json["cause"] is NSNull)
        let kept = try XCTUnwrap(json["kept_in"] as? String)
        XCTAssertTrue(kept.hasPrefix(env["XDG_CONFIG_HOME"]! + "/thrum/calibrations/id-0x74870001.json"), kept)
        let record = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: kept))) as? [String: Any])
        XCTAssertEqual(record["profile"] as? String, "pmd-c10-100")
        XCTAssertEqual(record["rated_voltage"] as? Int, 0x53)
    }

    func testNoActuator() throws {
        let (status, json, stderr) = try calibrate(["--no-actuator"], environment: try environment())
        XCTAssertEqual(status, 1)
        XCTAssertEqual(json["passed"] as? Bool, false)
        XCTAssertEqual(json["cause"] as? String, "no_actuator")
        XCTAssertTrue(json["resonance_hz"] is NSNull)
        XCTAssertTrue(json["kept_in"] is NSNull)
        XCTAssertTrue(stderr.hasPrefix("thrum: calibration failed: no actuator"), stderr)
    }

    func testRatedVoltageBeyondTheSupply() throws {
        let (status, json, _) = try calibrate(["--supply", "3.0"], environment: try environment())
        XCTAssertEqual(status, 1)
        XCTAssertEqual(json["cause"] as? String, "rated_voltage_beyond_supply")
        XCTAssertEqual(try XCTUnwrap(json["resonance_hz"] as? Double), 175, accuracy: 4)
    }

    func testWrongActuator() throws {
        let (status, json, stderr) = try calibrate(["--mounted", "lra0825"], environment: try environment())
        XCTAssertEqual(status, 1)
        XCTAssertEqual(json["driver_passed"] as? Bool, true, "the driver converges on the other actuator")
        XCTAssertEqual(json["passed"] as? Bool, false)
        XCTAssertEqual(json["cause"] as? String, "wrong_actuator")
        XCTAssertEqual(try XCTUnwrap(json["resonance_hz"] as? Double), 240, accuracy: 6)
        XCTAssertTrue(stderr.contains("the profile expects 175"), stderr)
    }

    /// A kept calibration file that is not one (a value of the wrong type, text cut short): one
    /// line naming the file, line:column and field, what was expected and what was found — not
    /// Foundation's "The data couldn't be read because it isn't in the correct format." — said
    /// once, and the connection goes on as with none kept.
    func testACorruptKeptCalibrationIsNamedInOneLine() throws {
        let env = try environment()
        let directory = URL(fileURLWithPath: env["XDG_CONFIG_HOME"]!).appendingPathComponent("thrum/calibrations")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("id-0x74870001.json")
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let fields = #""device_id": "0x74870001", "port": "p", "firmware": "0.1.0", "profile": "pmd-c10-100", "rated_voltage": 83, "od_clamp": 137, "drive_time": 19, "sample_time": 3"#
        let cases: [(text: String, expected: String)] = [
            ("{\n  \(fields),\n  \"a_cal_comp\": \"twelve\"\n}\n",
             "id-0x74870001.json:3:17: expected an integer, found the string 'twelve' (at a_cal_comp)"),
            ("{\"device_id\": \"0x7487", "id-0x74870001.json:1:15: not a kept calibration: unterminated string"),
        ]
        for (text, expected) in cases {
            try Data(text.utf8).write(to: file)
            let info = try ThrumProcess.run(["info", "--port", simulator.ptyPath, "--json"], environment: env)
            XCTAssertEqual(info.status, 0, info.standardError)
            let lines = info.standardError.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, info.standardError)
            XCTAssertTrue(info.standardError.hasPrefix("thrum: ignoring the kept calibration: \(file.path)"), info.standardError)
            XCTAssertTrue(info.standardError.contains(expected), info.standardError)
            let json = try XCTUnwrap(try CLITestSupport.json(info) as? [String: Any])
            XCTAssertTrue((json["calibration"] as? [String: Any])?["kept"] is NSNull, "\(json["calibration"] ?? "")")
        }
    }

    /// The kept calibration is not redone at the next connect (the chip sees no second MODE 7),
    /// `info` reports it, and a new device (a reset one) is calibrated again.
    func testKeptCalibrationIsSkippedAtTheNextConnect() throws {
        let env = try environment()
        let trace = try CLITestSupport.scratchDirectory(for: self).appendingPathComponent("trace.csv")
        let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { simulator.stop() }
        let first = try ThrumProcess.run(["calibrate", "--port", simulator.ptyPath], environment: env)
        XCTAssertEqual(first.status, 0, first.standardError)
        XCTAssertEqual(calibrationStarts(trace), 1)

        let info = try ThrumProcess.run(["info", "--port", simulator.ptyPath, "--json"], environment: env)
        XCTAssertEqual(info.status, 0, info.standardError)
        let infoJSON = try XCTUnwrap(try CLITestSupport.json(info) as? [String: Any])
        let calibration = try XCTUnwrap(infoJSON["calibration"] as? [String: Any])
        XCTAssertEqual(calibration["calibrated_since_reset"] as? Bool, true)
        XCTAssertEqual((calibration["kept"] as? [String: Any])?["valid_for_profile"] as? Bool, true)

        let play = try ThrumProcess.run(
            ["play", "--port", simulator.ptyPath, "--json", "preset:impact.medium"], environment: env)
        XCTAssertEqual(play.status, 0, play.standardError)
        let playJSON = try XCTUnwrap(try CLITestSupport.json(play) as? [String: Any])
        XCTAssertEqual((playJSON["calibration"] as? [String: Any])?["source"] as? String, "stored")
        XCTAssertEqual(calibrationStarts(trace), 1, "no second calibration")

        // Another profile has other calibration inputs: the kept one does not apply.
        let other = try ThrumProcess.run(
            [
                "play", "--port", simulator.ptyPath, "--json", "--actuator", "vybronics-vg0840001d",
                "preset:impact.medium",
            ], environment: env)
        XCTAssertEqual(other.status, 0, other.standardError)
        let otherJSON = try XCTUnwrap(try CLITestSupport.json(other) as? [String: Any])
        XCTAssertEqual((otherJSON["calibration"] as? [String: Any])?["source"] as? String, "ran")
        XCTAssertEqual(calibrationStarts(trace), 2)
        simulator.stop()

        // A fresh device (as after a reset) says it holds no calibration; the kept one is now
        // the other profile's: play with that profile restores it, no calibration.
        let fresh = try SimulatorProcess()
        defer { fresh.stop() }
        let again = try ThrumProcess.run(
            ["play", "--port", fresh.ptyPath, "--json", "--actuator", "vybronics-vg0840001d", "preset:impact.medium"],
            environment: env)
        XCTAssertEqual(again.status, 0, again.standardError)
        let againJSON = try XCTUnwrap(try CLITestSupport.json(again) as? [String: Any])
        XCTAssertEqual((againJSON["calibration"] as? [String: Any])?["source"] as? String, "restored")
    }

    /// The issue's case: calibrate, power-cycle the device (restart the simulator: a new chip at its
    /// reset values), connect again: the kept result is sent (RESTORE_CALIBRATION) instead of a
    /// calibration. The chip sees no MODE 7, its calibration registers hold the kept values, and
    /// the device reports calibrated = 2 (restored); `--recalibrate` still forces a run.
    func testKeptCalibrationIsRestoredIntoAResetDevice() throws {
        let env = try environment()
        let scratch = try CLITestSupport.scratchDirectory(for: self)
        let first = try SimulatorProcess()
        let calibrated = try ThrumProcess.run(["calibrate", "--port", first.ptyPath, "--json"], environment: env)
        first.stop()
        XCTAssertEqual(calibrated.status, 0, calibrated.standardError)
        let kept = try XCTUnwrap(try CLITestSupport.json(calibrated) as? [String: Any])
        XCTAssertEqual(kept["calibration_at_connect"] as? String, "none")
        let aCalComp = try XCTUnwrap(kept["a_cal_comp"] as? Int)
        let aCalBemf = try XCTUnwrap(kept["a_cal_bemf"] as? Int)
        let bemfGain = try XCTUnwrap(kept["bemf_gain"] as? Int)

        // Power cycle: a new simulator process, the same device id.
        let trace = scratch.appendingPathComponent("after-reset.csv")
        let second = try SimulatorProcess(arguments: ["--trace", trace.path])
        defer { second.stop() }
        let before = try ThrumProcess.run(["info", "--port", second.ptyPath, "--json"], environment: env)
        let beforeCalibration = try XCTUnwrap((try CLITestSupport.json(before) as? [String: Any])?["calibration"] as? [String: Any])
        XCTAssertEqual(beforeCalibration["driver_calibration"] as? String, "none")
        XCTAssertEqual((beforeCalibration["kept"] as? [String: Any])?["restorable"] as? Bool, true)

        let play = try ThrumProcess.run(["play", "--port", second.ptyPath, "--json", "preset:impact.medium"], environment: env)
        XCTAssertEqual(play.status, 0, play.standardError)
        let playCalibration = try XCTUnwrap((try CLITestSupport.json(play) as? [String: Any])?["calibration"] as? [String: Any])
        XCTAssertEqual(playCalibration["source"] as? String, "restored")
        XCTAssertEqual(playCalibration["passed"] as? Bool, true)
        XCTAssertEqual(calibrationStarts(trace), 0, "no CALIBRATE: the chip never entered MODE 7")
        XCTAssertEqual(lastWrite(trace, register: 0x18), aCalComp, "A_CAL_COMP as kept")
        XCTAssertEqual(lastWrite(trace, register: 0x19), aCalBemf, "A_CAL_BEMF as kept")
        XCTAssertEqual(lastWrite(trace, register: 0x1A).map { $0 & 3 }, bemfGain, "BEMF_GAIN as kept")

        let after = try ThrumProcess.run(["info", "--port", second.ptyPath, "--json"], environment: env)
        let afterCalibration = try XCTUnwrap((try CLITestSupport.json(after) as? [String: Any])?["calibration"] as? [String: Any])
        XCTAssertEqual(afterCalibration["calibrated_since_reset"] as? Bool, true)
        XCTAssertEqual(afterCalibration["driver_calibration"] as? String, "restored")
        let text = try ThrumProcess.run(["info", "--port", second.ptyPath], environment: env)
        XCTAssertTrue(
            text.standardOutput.contains("calibration: the driver holds a kept calibration restored since reset"), text.standardOutput)

        // The next connect finds it held: neither restored again nor calibrated.
        let held = try ThrumProcess.run(["play", "--port", second.ptyPath, "--json", "preset:impact.medium"], environment: env)
        XCTAssertEqual((try CLITestSupport.json(held) as? [String: Any]).flatMap { ($0["calibration"] as? [String: Any])?["source"] as? String }, "stored")

        // --recalibrate forces a run; calibrate reports what the driver held before it measured.
        let forced = try ThrumProcess.run(
            ["play", "--port", second.ptyPath, "--json", "--recalibrate", "preset:impact.medium"], environment: env)
        XCTAssertEqual(forced.status, 0, forced.standardError)
        XCTAssertEqual((try CLITestSupport.json(forced) as? [String: Any]).flatMap { ($0["calibration"] as? [String: Any])?["source"] as? String }, "ran")
        XCTAssertEqual(calibrationStarts(trace), 1)
        let measured = try ThrumProcess.run(["calibrate", "--port", second.ptyPath, "--json"], environment: env)
        XCTAssertEqual((try CLITestSupport.json(measured) as? [String: Any])?["calibration_at_connect"] as? String, "measured")
        XCTAssertEqual(calibrationStarts(trace), 2)
    }

    /// The value of the last write to `register` in a `thrum sim --trace` file.
    func lastWrite(_ trace: URL, register: Int) -> Int? {
        guard let text = try? String(contentsOf: trace, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").compactMap { row -> Int? in
            let f = row.split(separator: ",")
            guard f.count == 4, Int(f[2]) == register else { return nil }
            return Int(f[3])
        }.last
    }

    func testInfoOnTheVirtualDeviceAndItsText() throws {
        let result = try ThrumProcess.run(["info"], environment: try environment())
        XCTAssertEqual(result.status, 0, result.standardError)
        for line in [
            "identity: DRV2605L (driver id 7), firmware ", "capabilities: queue ",
            "calibration: the driver holds no calibration since reset",
            "state: driver ", "link: round trip ", "clock: device counter at ",
        ] {
            XCTAssertTrue(result.standardOutput.contains(line), "missing '\(line)' in\n\(result.standardOutput)")
        }
    }

    /// MODE = 7 writes in `thrum sim --trace` (register 1, value 7): calibrations started.
    func calibrationStarts(_ trace: URL) -> Int {
        guard let text = try? String(contentsOf: trace, encoding: .utf8) else { return 0 }
        return text.split(separator: "\n").filter { row in
            let f = row.split(separator: ",")
            return f.count == 4 && f[2] == "1" && f[3] == "7"
        }.count
    }
}
