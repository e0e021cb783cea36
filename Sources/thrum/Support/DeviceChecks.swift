import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumWire

/// The checks of `thrum doctor` that talk to the device: a Thrum firmware answers with a protocol
/// this host speaks, the driver chip is on its I²C bus, an actuator calibrates near the profile's
/// resonance, a calibration is kept for it, and what its library slot holds.
struct DeviceChecks {
    var target: PlaybackTarget
    var profile: ActuatorProfile
    /// The port as given (nil: the virtual device), for the fix lines.
    var port: String?
    var usb: USBSerialIdentity?

    /// The exact command that writes the firmware, with the board the USB ids suggest.
    var flashLine: String {
        let port = self.port ?? "PORT"
        let board: String
        let note: String
        switch usb?.vendorID {
        case "2341", "2a03":
            (board, note) = ("uno", "")
        case "1a86":
            (board, note) = ("nano", " (a CH340 board: nano, or uno for an Uno clone)")
        case "0403":
            (board, note) = ("nano-old", " (an FTDI board: an old Nano; nano if it has the new bootloader)")
        default:
            (board, note) = ("<board>", " (<board>: uno, nano, nano-old or bluepill; `thrum firmware list`)")
        }
        return "thrum firmware flash --board \(board) --port \(port)" + note
    }

    static let remainingTitles = [
        ("device.driver", "driver chip"), ("device.actuator", "actuator"), ("device.kept_calibration", "kept calibration"),
        ("device.library", "library"),
    ]

    /// Every device check; the later ones are skipped once one they depend on has failed.
    func run() -> [DoctorCheck] {
        let device = ThrumDevice(pump: target.pump, endpointName: target.name)
        let identity: DeviceIdentity
        do {
            identity = try device.open()
        } catch {
            return [firmwareFailure(error)] + skippedRest(because: "no firmware answered")
        }
        let connection = DeviceConnection.attach(
            target: target, device: device, identity: identity, profile: profile, configure: true)
        var checks = [firmware(identity)]
        guard identity.driverId != 0 else {
            checks.append(
                .fail(
                    "device.driver", "driver chip", "the firmware found no DRV2605L on its I²C bus (nothing answers at address 0x5A)",
                    fix: "check the breakout's wiring: SDA and SCL (A4 and A5 on an Uno or Nano, PB7 and PB6 on a Blue Pill), "
                        + "VIN and GND, and EN tied high (docs/bring-up.md)"))
            return checks + skippedRest(because: "no driver chip", from: 1)
        }
        checks.append(
            .pass(
                "device.driver", "driver chip",
                "\(DeviceDescription.driverName(Int(identity.driverId))) answered on the I²C bus (driver id \(identity.driverId))"))
        let kept = keptCalibration(connection)
        checks.append(actuator(connection))
        checks.append(kept)
        checks.append(library(connection))
        return checks
    }

    func firmware(_ identity: DeviceIdentity) -> DoctorCheck {
        .pass(
            "device.firmware", "firmware",
            "Thrum firmware \(DeviceDescription.firmware(identity)), protocol \(identity.protocolVersion) (this host speaks "
                + "\(ProtocolConstants.oldestProtocolVersion)…\(ProtocolConstants.protocolVersion)), device id "
                + DeviceDescription.hex(identity.deviceId))
    }

    func firmwareFailure(_ error: EngineError) -> DoctorCheck {
        let title = "firmware"
        switch error {
        case .deviceDidNotAnswer(_, let attempts):
            return .fail(
                "device.firmware", title,
                "no Thrum firmware answered (\(attempts) identify requests, no reply): no firmware, another firmware, "
                    + "or a baud rate other than the firmware's 115200",
                fix: flashLine)
        case .linkFailed(let reason) where reason.contains("protocol version"):
            return .fail("device.firmware", title, "a Thrum firmware answered, but \(reason)", fix: flashLine)
        case .transport(.busy(_, let holder)):
            return .fail(
                "device.firmware", title, "the port is locked by another program" + (holder.map { " (\($0))" } ?? ""),
                fix: "close the other program, then run thrum doctor again")
        default:
            return .fail("device.firmware", title, error.description, fix: "unplug and replug the board, then run thrum doctor again")
        }
    }

    func skippedRest(because reason: String, from index: Int = 0) -> [DoctorCheck] {
        Self.remainingTitles.dropFirst(index).map { .skipped($0.0, $0.1, "not checked: \(reason)") }
    }

    /// Runs the driver's auto-calibration and judges it against the profile (``CalibrationDiagnosis``).
    /// Nothing is kept: `thrum calibrate` keeps a result.
    func actuator(_ connection: DeviceConnection) -> DoctorCheck {
        let title = "actuator"
        let device = connection.device, status = device.status
        guard status.identity.map({ ThrumEngine.DeviceCapabilities(identity: $0, program: status.programCapabilities).calibration }) ?? false
        else {
            return .skipped("device.actuator", title, "the firmware cannot run the driver's auto-calibration")
        }
        let report: CalibrationReport
        do {
            try device.waitForDriverReady()
            report = try device.calibrate()
        } catch .calibrationFailed(let failed) {
            report = failed
        } catch {
            return .fail(
                "device.actuator", title, "the calibration did not finish: \(error.description)",
                fix: "check the actuator's wiring and the driver's supply, then run thrum doctor again")
        }
        let diagnosis = CalibrationDiagnosis(report: report, profile: profile)
        let expected = "\(profile.id) expects \(Int(diagnosis.predictedHz.rounded())) ± \(Int(diagnosis.toleranceHz.rounded())) Hz"
        guard let cause = diagnosis.cause else {
            return .pass(
                "device.actuator", title,
                String(format: "calibrates at %.1f Hz; ", diagnosis.resonanceHz ?? 0) + expected)
        }
        switch cause {
        case .noActuator:
            return .fail(
                "device.actuator", title, "none connected: the driver measured no resonance (no back-EMF on OUT+ and OUT−)",
                fix: "solder or clip the LRA's two leads to the breakout's + and − outputs; check that they are intact")
        case .wrongActuator:
            let hz = diagnosis.resonanceHz.map { String(format: "%.0f Hz", $0) } ?? "an unknown frequency"
            // The built-in profile whose resonance is nearest the measured one, if it would pass.
            let match = diagnosis.resonanceHz.flatMap { measured in
                ActuatorProfile.builtIn.filter { CalibrationDiagnosis(report: report, profile: $0).cause != .wrongActuator }
                    .min { abs($0.datasheet.resonanceHz - measured) < abs($1.datasheet.resonanceHz - measured) }
            }
            return .fail(
                "device.actuator", title, "a different actuator: it resonates at \(hz); " + expected,
                fix: "give the mounted actuator's profile with --actuator"
                    + (match.map { " (\($0.id) resonates there)" } ?? " (thrum actuator list; or a profile FILE.json)"))
        case .ratedVoltageBeyondSupply:
            return .fail(
                "device.actuator", title,
                "supply too low: the actuator resonates where expected, but the driver could not reach its rated voltage",
                fix: "power the breakout's VIN from 5 V (not 3.3 V), or use a profile with a lower rated voltage")
        }
    }

    func keptCalibration(_ connection: DeviceConnection) -> DoctorCheck {
        let title = "kept calibration"
        if connection.target.isVirtual {
            return .skipped("device.kept_calibration", title, "the built-in virtual device is new every run: nothing is kept")
        }
        let calibrate = "thrum calibrate --port \(port ?? "PORT")"
            + (profile.id == ActuatorProfile.default.id ? "" : " --actuator \(profile.id)")
        guard let store = connection.store else {
            return .skipped("device.kept_calibration", title, "no configuration directory ($HOME or $XDG_CONFIG_HOME unset)")
        }
        guard let stored = connection.stored else {
            return .fail(
                "device.kept_calibration", title, "none kept for this device in \(store.directory.path)",
                fix: "\(calibrate) (keeps one; without it thrum play calibrates at every connect, a 0.3 s buzz)")
        }
        guard stored.matches(connection.registers) else {
            return .fail(
                "device.kept_calibration", title,
                "one from \(stored.calibratedAt) is kept, for \(stored.profile) (other calibration inputs than \(profile.id)'s)",
                fix: calibrate)
        }
        return .pass(
            "device.kept_calibration", title,
            "kept \(stored.calibratedAt) for \(stored.profile)"
                + (stored.resonanceHz.map { String(format: " (%.1f Hz)", $0) } ?? "") + "; thrum play uses it")
    }

    func library(_ connection: DeviceConnection) -> DoctorCheck {
        let title = "library"
        let library: DeviceLibrary
        do {
            library = try DeviceLibrary.read(connection)
        } catch {
            return .fail(
                "device.library", title, "the stored library does not read back: \(error)",
                fix: "write it again: thrum flash LIB.thl --port \(port ?? "PORT")")
        }
        let detail = library.text.hasPrefix("library: ") ? String(library.text.dropFirst(9)) : library.text
        return .pass("device.library", title, detail)
    }
}
