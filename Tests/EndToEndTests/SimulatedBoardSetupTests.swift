import Foundation
import ThrumBench
import XCTest

/// Commands take the actuator the device is set up for, not this host's default: the AVR
/// binary's DRV2605L model resonates at the actuator `thrum sim --mcu --actuator` wires to it (the
/// same default as the Swift virtual device), and `thrum flash` checks an image against the
/// device's kept calibration, never against the host's default profile (issue 23).
final class SimulatedBoardSetupTests: XCTestCase {
    /// On the AVR binary, `thrum calibrate` passes at the default actuator's 175 Hz and the plays
    /// after it keep that calibration: the chip's register trace shows one auto-calibration only.
    func testAVRBinaryCalibratesOnceForTheDefaultActuator() throws {
        let elf = try AVRToolchain.prepare()
        let env = ["XDG_CONFIG_HOME": try CLITestSupport.scratchDirectory(for: self).path]
        let simulator = try AVRSimulatorProcess(elf: elf)
        let calibrate = try ThrumProcess.run(["calibrate", "--port", simulator.ptyPath, "--json"], environment: env)
        let json = try XCTUnwrap(try CLITestSupport.json(calibrate) as? [String: Any])
        XCTAssertEqual(calibrate.status, 0, calibrate.standardError)
        XCTAssertEqual(json["passed"] as? Bool, true, "\(json)")
        XCTAssertEqual(try XCTUnwrap(json["resonance_hz"] as? Double), 175, accuracy: 2)
        for _ in 0..<2 {
            let play = try ThrumProcess.run(
                ["play", "examples/heartbeat.ahap", "--port", simulator.ptyPath, "--no-plot"], environment: env)
            XCTAssertEqual(play.status, 0, play.standardError)
            XCTAssertTrue(play.standardOutput.contains("(the driver still holds it; not redone)"), play.standardOutput)
        }
        let trace = try simulator.stop()
        // MODE (0x01) set to 7 (auto-calibration) and GO: once, by `thrum calibrate`.
        let calibrations = trace.writes.filter { $0.register == 0x01 && $0.value & 0x47 == 0x07 }
        XCTAssertEqual(calibrations.count, 1, "auto-calibration runs in the chip's trace")
    }

    /// `thrum flash` with no --actuator to a simulator built around another actuator: an image
    /// built for that actuator is written (not refused for the host's default pmd-c10-100); once a
    /// calibration for it is kept, an image for another actuator is refused naming the device's.
    func testFlashChecksTheDevicesProfileNotTheHostDefault() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let env = ["XDG_CONFIG_HOME": dir.appendingPathComponent("config").path]
        let library = TestPaths.packageRoot.appendingPathComponent("examples/library").path
        let lra = dir.appendingPathComponent("lra0825.thl").path
        let pmd = dir.appendingPathComponent("pmd.thl").path
        XCTAssertEqual(try ThrumProcess.run(["library", "build", library, "-o", lra, "--actuator", "lra0825"]).status, 0)
        XCTAssertEqual(try ThrumProcess.run(["library", "build", library, "-o", pmd]).status, 0)
        let simulator = try SimulatorProcess(arguments: ["--actuator", "lra0825", "--storage", dir.appendingPathComponent("storage.bin").path])
        defer { simulator.stop() }

        let flash = try ThrumProcess.run(["flash", lra, "--port", simulator.ptyPath], environment: env)
        XCTAssertEqual(flash.status, 0, flash.standardError)
        let calibrate = try ThrumProcess.run(["calibrate", "--port", simulator.ptyPath, "--actuator", "lra0825"], environment: env)
        XCTAssertEqual(calibrate.status, 0, calibrate.standardError)
        let refused = try ThrumProcess.run(["flash", pmd, "--port", simulator.ptyPath], environment: env)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.standardError.contains("library compiled for actuator profile 'pmd-c10-100', but the device is set up for 'lra0825'"),
            refused.standardError)
        // The device's storage still holds the lra0825 image: the refused one wrote nothing.
        let inspect = try XCTUnwrap(try CLITestSupport.json(try ThrumProcess.run(["library", "inspect", lra, "--json"])) as? [String: Any])
        let info = try ThrumProcess.run(["info", "--port", simulator.ptyPath], environment: env)
        XCTAssertTrue(info.standardOutput.contains(inspect["crc32"] as? String ?? "no crc"), info.standardOutput)
    }
}
