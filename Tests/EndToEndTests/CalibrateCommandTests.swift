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

        // A fresh device (as after a reset) says it holds no calibration: play calibrates.
        let fresh = try SimulatorProcess()
        defer { fresh.stop() }
        let again = try ThrumProcess.run(
            ["play", "--port", fresh.ptyPath, "--json", "preset:impact.medium"], environment: env)
        XCTAssertEqual(again.status, 0, again.standardError)
        let againJSON = try XCTUnwrap(try CLITestSupport.json(again) as? [String: Any])
        XCTAssertEqual((againJSON["calibration"] as? [String: Any])?["source"] as? String, "ran")
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
