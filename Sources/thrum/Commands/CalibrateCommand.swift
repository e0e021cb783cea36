import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumSim
import ThrumWire

/// `thrum calibrate`: run the driver's auto-calibration and say what it found.
enum CalibrateCommand: Subcommand {
    static let name = "calibrate"
    static let summary = "run the DRV2605L auto-calibration and report what it found"
    static let usage = """
        Usage: thrum calibrate [--port PATH] [--actuator NAME|FILE.json] [--baud N] [--json]

        Runs the DRV2605L's auto-calibration through the firmware (CALIBRATE; the actuator buzzes
        for 250–450 ms) and reports pass or fail with the likely cause (no actuator, wrong actuator,
        rated voltage beyond the supply), A_CAL_COMP, A_CAL_BEMF, BEMF_GAIN, and the resonance from
        LRA_PERIOD beside the profile's prediction. Without --port, on the built-in virtual device.

        A passed result is kept per device in $XDG_CONFIG_HOME/thrum/calibrations (default
        ~/.config/thrum/calibrations). At connect, `thrum play` does not calibrate again while the
        device says its driver holds a calibration since reset (CAPABILITIES `calibrated`) and the
        kept one was made with the same calibration inputs. After a device reset (the driver's
        calibration is volatile) it writes the kept one back instead (RESTORE_CALIBRATION, protocol
        version 2: no buzz) when it was made for the same profile and inputs; `thrum info` shows
        whether the driver's calibration was measured or restored. `thrum calibrate` always
        measures: it is the way to force a run (as is `thrum play --recalibrate`). A failed run
        forgets the device's one.

        Options:
          --port PATH        serial port or pseudo-terminal of a Thrum device
          --actuator NAME    the actuator profile (built-in id or FILE.json; default \(ActuatorProfile.default.id))
          --baud N           baud rate of a real serial port (default 115200)
          --json             one JSON object: passed (boolean), cause, resonance_hz, a_cal_comp, …

        Exit status: 0 passed, 1 failed (the cause on standard error) or no device. Ctrl-C (SIGINT),
        SIGTERM or SIGQUIT: a calibration under way runs to its end (it cannot be cut short) and is
        reported, then `thrum: interrupted (signal N): …`, the device released, exit 130, 143 or 131.
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let options = try DeviceCommandOptions.take(from: &arguments)
        let profile = options.profile, json = options.json
        // A signal from here on ends the command as `play`'s does (after a calibration it cannot
        // cut short), with the device released.
        Interrupt.install()
        let target = try options.target()
        let connection = try DeviceConnection.open(target: target, profile: profile)
        defer {
            connection.device.release()
            target.close()
        }
        if let stop = Interrupt.failure("nothing was measured (it came while connecting); the device was released") {
            throw stop
        }
        let device = connection.device
        let identity = connection.status.identity!
        let wasCalibrated = connection.deviceSaysCalibrated
        let heldAtConnect = connection.driverCalibration
        let report: CalibrationReport
        do {
            try device.waitForDriverReady()
            report = try device.calibrate()
        } catch .calibrationFailed(let failed) {
            report = failed
        } catch {
            throw CommandFailure(engine: error)
        }
        let diagnosis = CalibrationDiagnosis(report: report, profile: profile)
        let saved = connection.remember(report)
        let faults = connection.status.faults
        if json {
            JSONOutput.print(
                jsonObject(
                    diagnosis, profile: profile, identity: identity, target: target, registers: connection.registers,
                    savedTo: saved, wasCalibrated: wasCalibrated, heldAtConnect: heldAtConnect, faults: faults))
        } else {
            print(
                text(
                    diagnosis, profile: profile, identity: identity, target: target, registers: connection.registers,
                    savedTo: saved, wasCalibrated: wasCalibrated, heldAtConnect: heldAtConnect))
        }
        for fault in faults { printError("the device reported fault \(fault.code): \(fault.meaning)") }
        if let stop = Interrupt.failure(
            "the calibration ran to its end (the driver's auto-calibration cannot be cut short): the result above is "
                + (saved != nil ? "kept" : "not kept") + "; the device was released")
        {
            printError(stop.message)
            return stop.exitCode
        }
        guard diagnosis.passed else {
            printError("calibration failed: \(diagnosis.advice ?? "the driver did not converge")")
            return 1
        }
        return 0
    }

    /// Back-EMF full scale the result stands for: A_CAL_BEMF/255 × 1.22 V / BEMF_GAIN.
    static func backEMFVolts(_ r: CalibrationReport) -> Double {
        DRV2605LFormulas.backEMFFullScale(aCalBEMF: r.aCalBemf, gainCode: r.bemfGain)
    }

    static func text(
        _ d: CalibrationDiagnosis, profile: ActuatorProfile, identity: DeviceIdentity, target: PlaybackTarget,
        registers: DriverRegisters, savedTo: URL?, wasCalibrated: Bool, heldAtConnect: String = "none"
    ) -> String {
        let r = d.report
        var lines: [String] = []
        lines.append(
            "calibrating \(profile.name) (\(profile.id)) on \(target.name), device \(DeviceDescription.hex(identity.deviceId))"
        )
        lines.append(
            String(
                format: "inputs: RATED_VOLTAGE 0x%02X, OD_CLAMP 0x%02X, DRIVE_TIME %d, SAMPLE_TIME %d",
                Int(registers.ratedVoltage),
                Int(registers.overdriveClamp), Int(registers.driveTime), Int(registers.sampleTime))
                + (wasCalibrated
                    ? " (the driver already held a calibration \(heldAtConnect) since reset; measured again)" : ""))
        lines.append(
            "result: " + (d.passed ? "passed" : "FAILED")
                + (r.passed && !d.passed ? " (the driver converged, on the wrong actuator)" : ""))
        lines.append(
            String(
                format: "  A_CAL_COMP  0x%02X  (back-EMF compensation 1 + %d/255 = %.3f)", Int(r.aCalComp),
                Int(r.aCalComp), 1 + Double(r.aCalComp) / 255))
        lines.append(
            String(
                format: "  A_CAL_BEMF  0x%02X  (%d/255 × 1.22 V / %g = %.3f V back-EMF at the rated drive)",
                Int(r.aCalBemf), Int(r.aCalBemf), DRV2605LFormulas.lraBackEMFGain(code: r.bemfGain), backEMFVolts(r)))
        lines.append(
            String(
                format: "  BEMF_GAIN   %d     (%g×)", Int(r.bemfGain), DRV2605LFormulas.lraBackEMFGain(code: r.bemfGain)
            ))
        if let hz = d.resonanceHz {
            lines.append(
                String(
                    format:
                        "  resonance   %.1f Hz from LRA_PERIOD %d (%d × 98.46 µs = %.3f ms); the profile predicts %.1f Hz (%+.1f %%, tolerance ± %.0f Hz)",
                    hz, Int(r.lraPeriod), Int(r.lraPeriod), Double(r.lraPeriod) * 0.09846, d.predictedHz,
                    (hz / d.predictedHz - 1) * 100, d.toleranceHz))
        } else {
            lines.append(
                String(
                    format: "  resonance   none measured (LRA_PERIOD 0); the profile predicts %.1f Hz", d.predictedHz))
        }
        if let advice = d.advice { lines.append("cause: \(advice)") }
        if let savedTo {
            lines.append("kept in \(savedTo.path); `thrum play` will not calibrate this device again until it resets")
        } else if target.isVirtual {
            lines.append("(the built-in virtual device is new every run: nothing kept)")
        }
        return lines.joined(separator: "\n")
    }

    static func jsonObject(
        _ d: CalibrationDiagnosis, profile: ActuatorProfile, identity: DeviceIdentity, target: PlaybackTarget,
        registers: DriverRegisters, savedTo: URL?, wasCalibrated: Bool, heldAtConnect: String = "none",
        faults: [FaultReport]
    ) -> [String: Any] {
        let r = d.report
        return [
            "passed": d.passed,
            "driver_passed": r.passed,
            "cause": JSONOutput.orNull(d.cause?.rawValue),
            "advice": JSONOutput.orNull(d.advice),
            "a_cal_comp": Int(r.aCalComp),
            "a_cal_bemf": Int(r.aCalBemf),
            "bemf_gain": Int(r.bemfGain),
            "back_emf_volts": (backEMFVolts(r) * 1e4).rounded() / 1e4,
            "lra_period": Int(r.lraPeriod),
            "resonance_hz": JSONOutput.orNull(d.resonanceHz.map { ($0 * 10).rounded() / 10 }),
            "predicted_resonance_hz": d.predictedHz,
            "tolerance_hz": (d.toleranceHz * 10).rounded() / 10,
            "profile": profile.id,
            "inputs": ActuatorCommand.registerObject(registers),
            "device": DeviceDescription.json(identity),
            "target": target.isVirtual ? "virtual" : target.name,
            "was_calibrated_since_reset": wasCalibrated,
            "calibration_at_connect": heldAtConnect,
            "source": "measured",
            "kept_in": JSONOutput.orNull(savedTo?.path),
            "faults": faults.map {
                ["code": Int($0.code), "detail": Int($0.detail), "meaning": $0.meaning] as [String: Any]
            },
        ]
    }
}
