import Foundation
import ThrumCompiler
import ThrumLink

/// `thrum doctor`: the checks a person would otherwise make by hand when a board does not answer.
enum DoctorCommand: Subcommand {
    static let name = "doctor"
    static let summary = "check the tools, the port, the firmware, the driver and the actuator, each with its fix"
    static let usage = """
        Usage: thrum doctor [--port PATH] [--actuator NAME|FILE.json] [--baud N] [--json]

        Checks, in order, what stands between this machine and a tap on the actuator, and prints
        each check as pass, fail or skipped with what it found and, for a failure, one line of fix:
        the tools Thrum runs (libserialport; avrdude and stm32flash to flash; make, avr-gcc and
        arm-none-eabi-gcc to build the firmware); the port exists, opens (permission: the group to
        join), no other process has it open (named), ModemManager leaves it alone, and what its USB
        ids say (the bridge: FTDI, CH340, CP210x or native USB; an FTDI's latency timer); a Thrum
        firmware answers with a protocol this host speaks (else the `thrum firmware flash` line);
        the DRV2605L answers on the I²C bus; an actuator is connected and calibrates near the
        profile's resonance (else: none connected, a different actuator, or a supply too low);
        a calibration is kept for the device; what its library slot holds. The calibration makes
        the actuator buzz for 0.3 s; doctor keeps nothing (`thrum calibrate` does).
        Without --port, checks the built-in virtual device (and says so).

        Options:
          --port PATH        serial port or pseudo-terminal of the board
          --actuator NAME    the actuator profile to judge the calibration against (default \(ActuatorProfile.default.id))
          --baud N           baud rate of a real serial port (default 115200)
          --json             one JSON object: target, checks (id, title, status, detail, fix), counts

        Exit status: 0 when every check that ran passed, 1 otherwise.
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let options = try DeviceCommandOptions.take(from: &arguments)
        let host = HostChecks(environment: ProcessInfo.processInfo.environment)
        var checks = host.tools()
        let targetName: String
        if let port = options.port {
            targetName = port
            if !options.json { print("thrum doctor: checking \(port)") }
            let findings = host.port(port)
            checks += findings.checks
            if findings.usable {
                do {
                    let transport = try openTransport(path: port, baud: options.address.baud)
                    let target = PlaybackTarget.port(name: port, transport: transport, pump: TransportPump(transport: transport))
                    defer { target.close() }
                    checks += DeviceChecks(target: target, profile: options.profile, port: port, usb: findings.usb).run()
                } catch {
                    checks.append(transportFailure(error, port: port))
                    checks += DeviceChecks.remainingTitles.map { .skipped($0.0, $0.1, "not checked: the port did not open") }
                }
            } else {
                checks.append(.skipped("device.firmware", "firmware", "not checked: the port is not usable (above)"))
                checks += DeviceChecks.remainingTitles.map { .skipped($0.0, $0.1, "not checked: the port is not usable") }
            }
        } else {
            targetName = "virtual"
            if !options.json {
                print("thrum doctor: no --port given: checking the built-in virtual device (give --port PATH for a board)")
            }
            checks.append(.skipped("port", "port", "no --port: the built-in virtual device has no port"))
            let target = PlaybackTarget.virtual(profile: options.profile)
            checks += DeviceChecks(target: target, profile: options.profile, port: nil, usb: nil).run()
        }
        let summary = DoctorSummary(checks: checks)
        if options.json {
            JSONOutput.print([
                "target": targetName, "checks": checks.map(\.json), "passed": summary.passed, "failed": summary.failed,
                "skipped": summary.skipped, "exit_code": Int(summary.exitCode),
            ] as [String: Any])
        } else {
            for check in checks { print(check.text) }
            print(summary.text)
        }
        return summary.exitCode
    }

    /// The firmware check when the transport itself does not open (what a plain open(2) allowed).
    static func transportFailure(_ error: TransportError, port: String) -> DoctorCheck {
        switch error {
        case .busy(_, let holder):
            return .fail(
                "device.firmware", "firmware", "the port is locked by another program" + (holder.map { " (\($0))" } ?? ""),
                fix: "close the other program, then run thrum doctor again")
        case .hostNotFound,
            .openFailed where port.contains("://"):
            return .fail(
                "device.firmware", "firmware", error.description,
                fix: "check that the serial bridge (ser2net) runs and serves \(port)")
        default:
            return .fail(
                "device.firmware", "firmware", error.description,
                fix: "give the board's serial port: `thrum devices` lists them")
        }
    }
}
