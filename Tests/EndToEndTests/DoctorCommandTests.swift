import Foundation
import ThrumLink
import XCTest

/// `thrum doctor` names the right cause on each rig a person can have: the virtual device, a
/// healthy `thrum sim`, one with no actuator, another actuator mounted, a supply too low, a pty
/// where nothing answers, a port another process holds, missing tools, and the AVR binary in simavr.
/// The truth each test judges against is the rig it built (the simulator's variant, the process it
/// started), not the doctor's own view.
final class DoctorCommandTests: XCTestCase {
    struct Outcome {
        var status: Int32
        var checks: [String: (status: String, detail: String, fix: String?)]
        var text: String
    }

    /// Runs `thrum doctor ARGS --json` and, for the words a person reads, the same without --json.
    func doctor(_ arguments: [String], environment: [String: String] = [:], text: Bool = false) throws -> Outcome {
        let result = try ThrumProcess.run(["doctor"] + arguments + ["--json"], environment: environment)
        let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        var checks: [String: (String, String, String?)] = [:]
        for check in try XCTUnwrap(object["checks"] as? [[String: Any]]) {
            checks[try XCTUnwrap(check["id"] as? String)] = (
                try XCTUnwrap(check["status"] as? String), try XCTUnwrap(check["detail"] as? String), check["fix"] as? String
            )
        }
        XCTAssertEqual(Int32(try XCTUnwrap(object["exit_code"] as? Int)), result.status)
        var words = result.standardOutput + result.standardError
        if text {
            let plain = try ThrumProcess.run(["doctor"] + arguments, environment: environment)
            XCTAssertEqual(plain.status, result.status)
            words += plain.standardOutput + plain.standardError
        }
        Self.assertNothingRaw(words)
        return Outcome(status: result.status, checks: checks, text: words)
    }

    /// Nothing printed is an errno number or a Swift enum case's spelling.
    static func assertNothingRaw(_ output: String, file: StaticString = #filePath, line: UInt = #line) {
        for raw in ["errno", "Optional(", "deviceDidNotAnswer", "linkFailed", "notFound(", "openFailed(", "busy(path", "wrongActuator", "noActuator", "ratedVoltageBeyondSupply"] {
            XCTAssertFalse(output.contains(raw), "'\(raw)' in:\n\(output)", file: file, line: line)
        }
    }

    func scratchEnvironment() throws -> [String: String] {
        ["XDG_CONFIG_HOME": try CLITestSupport.scratchDirectory(for: self).path]
    }

    func testVirtualDeviceSaysSoAndPasses() throws {
        let outcome = try doctor([], text: true)
        XCTAssertEqual(outcome.status, 0, outcome.text)
        XCTAssertTrue(outcome.text.contains("checking the built-in virtual device"), outcome.text)
        XCTAssertEqual(outcome.checks["port"]?.status, "skipped")
        XCTAssertEqual(outcome.checks["device.firmware"]?.status, "pass")
        XCTAssertEqual(outcome.checks["device.driver"]?.status, "pass")
        XCTAssertEqual(outcome.checks["device.actuator"]?.status, "pass")
        XCTAssertEqual(outcome.checks["device.kept_calibration"]?.status, "skipped")
    }

    func testMissingToolsNameTheirPackages() throws {
        let outcome = try doctor([], environment: ["PATH": "/nonexistent"])
        XCTAssertEqual(outcome.status, 1)
        let flashing = try XCTUnwrap(outcome.checks["tools.flashing"])
        XCTAssertEqual(flashing.status, "fail")
        XCTAssertEqual(flashing.detail, "not on PATH: avrdude, stm32flash (needed to flash the firmware)")
        XCTAssertEqual(flashing.fix, "sudo apt-get install avrdude stm32flash (or tools/ensure-deps.sh)")
        XCTAssertEqual(outcome.checks["tools.build"]?.fix, "sudo apt-get install make gcc-avr gcc-arm-none-eabi (or tools/ensure-deps.sh)")
    }

    /// A healthy simulator with a kept calibration: everything that applies to a pty passes.
    func testHealthySimulatorPassesOnceCalibrated() throws {
        let env = try scratchEnvironment()
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let before = try doctor(["--port", simulator.ptyPath], environment: env)
        XCTAssertEqual(before.status, 1, "nothing kept yet")
        XCTAssertEqual(before.checks["device.kept_calibration"]?.status, "fail")
        XCTAssertEqual(before.checks["device.kept_calibration"]?.fix?.hasPrefix("thrum calibrate --port \(simulator.ptyPath) "), true)
        XCTAssertEqual(try ThrumProcess.run(["calibrate", "--port", simulator.ptyPath], environment: env).status, 0)
        let after = try doctor(["--port", simulator.ptyPath], environment: env, text: true)
        XCTAssertEqual(after.status, 0, after.text)
        for id in ["port.exists", "port.opens", "port.free", "device.firmware", "device.driver", "device.actuator", "device.kept_calibration", "device.library"] {
            XCTAssertEqual(after.checks[id]?.status, "pass", "\(id): \(after.text)")
        }
        XCTAssertEqual(after.checks["port.modemmanager"]?.status, "skipped")
        XCTAssertEqual(after.checks["port.usb"]?.status, "skipped")
        XCTAssertTrue(after.checks["device.actuator"]!.detail.hasPrefix("calibrates at 17"), after.checks["device.actuator"]!.detail)
        XCTAssertTrue(after.checks["port.free"]!.detail.contains("served by PID \(simulator.process.processIdentifier) (thrum)"))
    }

    /// Each actuator fault the simulator models is named as such.
    func testEachActuatorFaultIsNamed() throws {
        for (arguments, detail, fix) in [
            (["--no-actuator"], "none connected", "solder or clip the LRA's two leads"),
            (["--mounted", "lra0825"], "a different actuator: it resonates at 24", "give the mounted actuator's profile with --actuator (lra0825 resonates there)"),
            (["--supply", "3.0"], "supply too low", "power the breakout's VIN from 5 V"),
        ] {
            let simulator = try SimulatorProcess(arguments: arguments)
            defer { simulator.stop() }
            let outcome = try doctor(["--port", simulator.ptyPath], environment: try scratchEnvironment())
            XCTAssertEqual(outcome.status, 1)
            let actuator = try XCTUnwrap(outcome.checks["device.actuator"])
            XCTAssertEqual(actuator.status, "fail", "\(arguments)")
            XCTAssertTrue(actuator.detail.hasPrefix(detail), "\(arguments): \(actuator.detail)")
            XCTAssertTrue(actuator.fix?.hasPrefix(fix) ?? false, "\(arguments): \(actuator.fix ?? "")")
            XCTAssertEqual(outcome.checks["device.firmware"]?.status, "pass")
            XCTAssertEqual(outcome.checks["device.driver"]?.status, "pass")
        }
    }

    /// A path that is no port: nothing there, a regular file, a character device that is not a terminal.
    func testPathsThatAreNoPortSaySo() throws {
        let file = try CLITestSupport.write("not a port", named: "notes.txt", in: try CLITestSupport.scratchDirectory(for: self))
        for (path, id, detail) in [
            ("/dev/ttyUSB-thrum-missing", "port.exists", "no such file: /dev/ttyUSB-thrum-missing"),
            (file, "port.exists", "\(file) is not a serial port (not a character device)"),
            ("/dev/null", "port.opens", "/dev/null opens but is not a terminal"),
        ] {
            let outcome = try doctor(["--port", path], text: true)
            XCTAssertEqual(outcome.status, 1)
            XCTAssertEqual(outcome.checks[id]?.status, "fail", path)
            XCTAssertEqual(outcome.checks[id]?.detail, detail)
            XCTAssertNotNil(outcome.checks[id]?.fix)
            XCTAssertEqual(outcome.checks["device.firmware"]?.status, "skipped", path)
        }
    }

    /// A port in the dialout group, opened by a user outside it (as a fresh Debian user meets a
    /// USB serial port): the fix is the group line. Needs root to set the pty up and drop to `nobody`.
    func testPermissionDeniedGivesTheGroupLine() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), getgrnam("dialout") != nil else {
            throw XCTSkip("needs root, setpriv and a dialout group")
        }
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        XCTAssertEqual(chown(simulator.ptyPath, 0, getgrnam("dialout")!.pointee.gr_gid), 0)
        XCTAssertEqual(chmod(simulator.ptyPath, 0o660), 0)
        let denied = try ChildProcess.asNobody([try TestPaths.thrumBinary.path, "doctor", "--port", simulator.ptyPath])
        let text = denied.output
        XCTAssertEqual(denied.status, 1, text)
        XCTAssertTrue(text.contains("fail     port opens        permission denied: \(simulator.ptyPath) belongs to the group dialout"), text)
        XCTAssertTrue(text.contains("fix: add yourself to the dialout group: sudo usermod -aG dialout $USER, then log in again"), text)
        Self.assertNothingRaw(text)
    }

    /// No DRV2605L on the bus (`thrum sim --no-driver`: every transfer to 0x5A unacknowledged).
    func testMissingDriverChipIsNamed() throws {
        let simulator = try SimulatorProcess(arguments: ["--no-driver"])
        defer { simulator.stop() }
        let outcome = try doctor(["--port", simulator.ptyPath], environment: try scratchEnvironment())
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.checks["device.firmware"]?.status, "pass")
        XCTAssertEqual(outcome.checks["device.driver"]?.status, "fail")
        XCTAssertTrue(outcome.checks["device.driver"]?.fix?.hasPrefix("check the breakout's wiring: SDA and SCL") ?? false)
        XCTAssertEqual(outcome.checks["device.actuator"]?.status, "skipped")
    }

    /// A pty nobody serves: the port is fine, no firmware answers, and the fix is the flash line.
    func testSilentPortGetsTheFlashLine() throws {
        let terminal = try PseudoTerminal()
        let outcome = try doctor(["--port", terminal.devicePath], text: true)
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.checks["port.opens"]?.status, "pass")
        XCTAssertEqual(outcome.checks["port.free"]?.status, "pass", "the process serving the pty is not a competitor")
        let firmware = try XCTUnwrap(outcome.checks["device.firmware"])
        XCTAssertEqual(firmware.status, "fail")
        XCTAssertTrue(firmware.detail.hasPrefix("no Thrum firmware answered"), firmware.detail)
        XCTAssertEqual(
            firmware.fix,
            "thrum firmware flash --board <board> --port \(terminal.devicePath) (<board>: uno, nano, nano-old or bluepill; `thrum firmware list`)")
        for id in ["device.driver", "device.actuator", "device.kept_calibration", "device.library"] {
            XCTAssertEqual(outcome.checks[id]?.status, "skipped", id)
        }
        XCTAssertTrue(outcome.text.contains("fix: thrum firmware flash --board <board> --port \(terminal.devicePath)"), outcome.text)
    }

    /// Another program with the port open (no lock: only /proc shows it) is named by PID and command.
    func testPortHeldByAnotherProcessNamesIt() throws {
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        holder.arguments = ["-c", "exec sleep 30 < \(simulator.ptyPath)"]
        try holder.run()
        defer {
            holder.terminate()
            holder.waitUntilExit()
        }
        // The shell has opened the port once it has become `sleep`.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline,
            (try? String(contentsOfFile: "/proc/\(holder.processIdentifier)/comm", encoding: .utf8)) != "sleep\n"
        {
            usleep(10_000)
        }
        let outcome = try doctor(["--port", simulator.ptyPath], environment: try scratchEnvironment(), text: true)
        XCTAssertEqual(outcome.status, 1)
        let free = try XCTUnwrap(outcome.checks["port.free"])
        XCTAssertEqual(free.status, "fail")
        XCTAssertTrue(free.detail.hasPrefix("held by PID \(holder.processIdentifier) (sleep)"), free.detail)
        XCTAssertTrue(free.fix?.hasSuffix("kill \(holder.processIdentifier)") ?? false, free.fix ?? "")
    }

    /// The AVR firmware binary in simavr with a SEMCO 1030 wired to it (its DRV2605L model then
    /// resonates at 205 Hz) answers, has its driver, and calibrates.
    func testAVRBinaryAnswersAndCalibrates() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf, extraArguments: ["--actuator", "semco-1030"])
        let outcome = try doctor(["--port", simulator.ptyPath, "--actuator", "semco-1030"], environment: try scratchEnvironment())
        _ = try simulator.stop()
        XCTAssertEqual(outcome.checks["device.firmware"]?.status, "pass", outcome.text)
        XCTAssertTrue(outcome.checks["device.firmware"]?.detail.contains("protocol 0") ?? false, outcome.text)
        XCTAssertEqual(outcome.checks["device.driver"]?.status, "pass")
        XCTAssertEqual(outcome.checks["device.actuator"]?.status, "pass", outcome.checks["device.actuator"]?.detail ?? "")
        XCTAssertTrue(outcome.checks["device.actuator"]?.detail.hasPrefix("calibrates at 20") ?? false)
        XCTAssertEqual(outcome.checks["device.library"]?.status, "pass")
    }
}
