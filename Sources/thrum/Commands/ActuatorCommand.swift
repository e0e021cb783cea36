import Foundation
import ThrumCompiler

/// `thrum actuator`: the actuator profiles, and the DRV2605L register calculator.
enum ActuatorCommand: Subcommand {
    static let name = "actuator"
    static let summary = "list actuator profiles; compute DRV2605L registers from f0 and voltages"
    static let usage = """
        Usage: thrum actuator list [--json]
               thrum actuator compute --f0 HZ --vrms V [--vpeak V] [--sample-time US] [--json]
               thrum actuator compute --actuator NAME|FILE.json [--json]

        list      the built-in actuator profiles (hardware/actuators): id, resonance, rated voltage,
                  overdrive clamp and the register values derived from them.
        compute   the closed-loop LRA register values of the DRV2605L (SLOS854D formulas) with each
                  formula's intermediate numbers: RATED_VOLTAGE, OD_CLAMP, DRIVE_TIME, OL_LRA_PERIOD
                  and the SAMPLE_TIME code. With --actuator, from a profile's datasheet numbers; a
                  profile file is checked first (errors give file:line:column and the field path).

        Options:
          --f0 HZ            resonance, Hz
          --vrms V           rated voltage, V RMS (sine at f0)
          --vpeak V          overdrive clamp, V peak (default: √2 × --vrms, as the worked table does)
          --sample-time US   back-EMF SAMPLE_TIME: 150, 200, 250 or 300 µs (default 300)
          --actuator NAME    a built-in profile id, or a profile FILE.json
          --json             one JSON object (rated_voltage, od_clamp, drive_time, ol_lra_period: the
                             integers written to the registers, and the intermediate numbers)
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        guard let action = arguments.leadingWord() else { throw UsageError(message: "give an action: list or compute") }
        switch action {
        case "list": return try list(&arguments)
        case "compute": return try compute(&arguments)
        default: throw UsageError(message: "unknown action '\(action)' (known: list, compute)")
        }
    }

    static func list(_ arguments: inout ArgumentList) throws -> Int32 {
        let json = arguments.flag("json")
        try noMoreArguments(&arguments)
        let profiles = ActuatorProfile.builtIn
        if json {
            JSONOutput.print(
                profiles.map { profile -> [String: Any] in
                    let r = DriverRegisters.derive(from: profile)
                    return [
                        "id": profile.id, "name": profile.name, "form_factor": profile.formFactor,
                        "resonance_hz": profile.datasheet.resonanceHz,
                        "rated_voltage_rms": profile.datasheet.ratedVoltageRms,
                        "od_clamp_volts_peak": profile.driver.overdriveClampVoltsPeak,
                        "default": profile.id == ActuatorProfile.default.id,
                        "registers": registerObject(r),
                    ]
                })
            return 0
        }
        print("\(profiles.count) built-in actuator profiles (hardware/actuators; * = default):")
        print("  id                     f0       rated       clamp      RATED  OD_CLAMP  DRIVE_TIME  OL_PERIOD  name")
        for p in profiles {
            let r = DriverRegisters.derive(from: p)
            let mark = p.id == ActuatorProfile.default.id ? "*" : " "
            print(
                mark + " " + p.id.padding(toLength: 21, withPad: " ", startingAt: 0)
                    + String(
                        format: "%5.0f Hz  %4.2f V rms  %4.2f V pk  0x%02X   0x%02X      %2d          %3d        ",
                        p.datasheet.resonanceHz, p.datasheet.ratedVoltageRms, p.driver.overdriveClampVoltsPeak,
                        r.ratedVoltage, r.overdriveClamp, r.driveTime, r.openLoopPeriod) + p.name)
        }
        return 0
    }

    static func noMoreArguments(_ arguments: inout ArgumentList) throws {
        if let extra = try arguments.positionals().first { throw UsageError(message: "unexpected argument '\(extra)'") }
        try arguments.finish()
    }

    static func registerObject(_ r: DriverRegisters) -> [String: Any] {
        [
            "rated_voltage": Int(r.ratedVoltage), "od_clamp": Int(r.overdriveClamp), "drive_time": Int(r.driveTime),
            "ol_lra_period": Int(r.openLoopPeriod), "sample_time": Int(r.sampleTime),
        ]
    }

    static func compute(_ arguments: inout ArgumentList) throws -> Int32 {
        let positive: (String) -> Double? = { Double($0).flatMap { $0.isFinite && $0 > 0 ? $0 : nil } }
        let f0 = try arguments.option("f0", as: positive, expected: "a frequency in Hz > 0")
        let vrms = try arguments.option("vrms", as: positive, expected: "a voltage in V RMS > 0")
        let vpeak = try arguments.option("vpeak", as: positive, expected: "a voltage in V peak > 0")
        let sample = try arguments.option(
            "sample-time", as: { Int($0).flatMap { [150, 200, 250, 300].contains($0) ? $0 : nil } },
            expected: "150, 200, 250 or 300 (µs)")
        let profile = try ActuatorChoice.take(from: &arguments)
        let json = arguments.flag("json")
        try noMoreArguments(&arguments)
        let calc: RegisterCalculation
        let title: String
        if let profile {
            if f0 != nil || vrms != nil || vpeak != nil || sample != nil {
                throw UsageError(message: "give either --actuator or --f0/--vrms/--vpeak/--sample-time, not both")
            }
            calc = RegisterCalculation(profile: profile)
            title = "\(profile.name) (\(profile.id))"
        } else {
            guard let f0, let vrms else {
                throw UsageError(message: "give --f0 HZ and --vrms V (or --actuator NAME|FILE.json)")
            }
            calc = RegisterCalculation(
                resonanceHz: f0, ratedVoltsRms: vrms, clampVoltsPeak: vpeak, sampleTime: Double(sample ?? 300) * 1e-6)
            title = "an LRA"
        }
        if json {
            var object = registerObject(calc.registers)
            object["inputs"] =
                [
                    "f0_hz": calc.resonanceHz, "vrms": calc.ratedVoltsRms, "vpeak": calc.clampVoltsPeak,
                    "vpeak_given": calc.clampGiven, "sample_time_us": Int((calc.sampleTime * 1e6).rounded()),
                ] as [String: Any]
            object["actuator"] = JSONOutput.orNull(profile?.id)
            object["intermediate"] =
                [
                    "sampling_window_us": round(calc.samplingWindow * 1e6, 3),
                    "driven_fraction": round(calc.drivenFraction, 6),
                    "sampling_duty": round(calc.samplingDuty, 6),
                    "rated_voltage_exact": round(calc.ratedVoltageExact, 4),
                    // No peak where the sampling window leaves no drive (it was 2e9 V).
                    "rated_voltage_peak_volts": calc.drivenFraction > 0 ? round(calc.ratedVoltsPeak, 4) : NSNull(),
                    "rated_voltage_realised_vrms": round(calc.ratedVoltsRmsRealised, 4),
                    "od_clamp_exact": round(calc.overdriveClampExact, 4),
                    "od_clamp_realised_vpeak": round(calc.clampVoltsPeakRealised, 4),
                    "half_period_ms": round(calc.halfPeriod * 1e3, 6),
                    "drive_time_exact": round(calc.driveTimeExact, 4),
                    "drive_time_f0_hz": round(calc.driveTimeResonanceHz, 3),
                    "ol_lra_period_exact": round(calc.openLoopPeriodExact, 4),
                    "ol_lra_period_f0_hz": round(calc.openLoopResonanceHz, 3),
                ] as [String: Any]
            object["warnings"] = calc.warnings
            JSONOutput.print(object)
            return 0
        }
        print(text(calc, title: title))
        return 0
    }

    private static func round(_ x: Double, _ digits: Int) -> Double {
        let scale = pow(10.0, Double(digits))
        return (x * scale).rounded() / scale + 0.0
    }

    static func text(_ c: RegisterCalculation, title: String) -> String {
        let t = c.sampleTime * 1e6
        var lines: [String] = []
        lines.append(
            String(
                format: "DRV2605L registers for %@: f0 %g Hz, %g V RMS rated, clamp %.3g V peak%@, SAMPLE_TIME %.0f µs",
                title, c.resonanceHz, c.ratedVoltsRms, c.clampVoltsPeak, c.clampGiven ? "" : " (√2 × V RMS)", t))
        lines.append("")
        lines.append("RATED_VOLTAGE (0x16) = V_rms · √(1 − (4·t_SAMPLE + 300 µs)·f0) / 20.58 mV")
        lines.append(
            String(
                format: "  4·%.0f µs + 300 µs = %.0f µs;  1 − %.0f µs × %g Hz = %.4f;  √ = %.4f",
                t, c.samplingWindow * 1e6, c.samplingWindow * 1e6, c.resonanceHz, c.drivenFraction, c.samplingDuty))
        lines.append(
            c.drivenFraction > 0
                ? String(
                    format: "  %g V × %.4f / 20.58 mV = %.2f  →  %d (0x%02X)  = %.3f V RMS, %.3f V peak on the output",
                    c.ratedVoltsRms, c.samplingDuty, c.ratedVoltageExact, Int(c.ratedVoltage), Int(c.ratedVoltage),
                    c.ratedVoltsRmsRealised, c.ratedVoltsPeak)
                : String(
                    format: "  %g V × %.4f / 20.58 mV = %.2f  →  %d (0x%02X)  = no drive: the back-EMF window fills the period",
                    c.ratedVoltsRms, c.samplingDuty, c.ratedVoltageExact, Int(c.ratedVoltage), Int(c.ratedVoltage)))
        lines.append("OD_CLAMP (0x17) = V_peak / 21.22 mV")
        lines.append(
            String(
                format: "  %.4g V / 21.22 mV = %.2f  →  %d (0x%02X)  = %.3f V peak",
                c.clampVoltsPeak, c.overdriveClampExact, Int(c.overdriveClamp), Int(c.overdriveClamp),
                c.clampVoltsPeakRealised))
        lines.append("DRIVE_TIME (CONTROL1[4:0]) = (1/(2·f0) − 0.5 ms) / 0.1 ms")
        lines.append(
            String(
                format: "  1/(2 × %g Hz) = %.4f ms;  (%.4f − 0.5) / 0.1 = %.2f  →  %d  (stands for %.1f Hz)",
                c.resonanceHz, c.halfPeriod * 1e3, c.halfPeriod * 1e3, c.driveTimeExact, Int(c.driveTime),
                c.driveTimeResonanceHz))
        lines.append("OL_LRA_PERIOD (0x20) = 1 / (f0 · 98.46 µs)")
        lines.append(
            String(
                format: "  1 / (%g Hz × 98.46 µs) = %.2f  →  %d (0x%02X)  (stands for %.1f Hz)",
                c.resonanceHz, c.openLoopPeriodExact, Int(c.openLoopPeriod), Int(c.openLoopPeriod),
                c.openLoopResonanceHz))
        lines.append(String(format: "SAMPLE_TIME (CONTROL2[5:4]) = %d (%.0f µs)", Int(c.sampleTimeCode), t))
        for warning in c.warnings { lines.append("warning: \(warning)") }
        return lines.joined(separator: "\n")
    }
}
