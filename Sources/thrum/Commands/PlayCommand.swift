import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire

/// `thrum play`: compile a pattern and play it on a device (the virtual one by default).
enum PlayCommand: Subcommand {
    static let name = "play"
    static let summary = "play an AHAP file on a device (the built-in virtual device by default)"
    static let usage = """
        Usage: thrum play <file.ahap> [options]

        Compiles the pattern for the actuator profile and plays it. Without --port it plays on the
        built-in virtual device (in virtual time) and plots the acceleration the actuator produced.

        Options:
          --port PATH       serial port or pseudo-terminal of a Thrum device
          --baud N          baud rate of a real serial port (default 115200)
          --profile NAME    actuator profile (default: \(ActuatorProfile.default.id)); see hardware/actuators
          --lenient         accept trailing commas in the AHAP file
          --json            print one JSON object instead of the text report
          --no-plot         leave out the acceleration plot
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let port = try arguments.option("port")
        let baud = try arguments.option("baud", as: { Int($0) }, expected: "a whole number") ?? 115_200
        let profileName = try arguments.option("profile")
        let lenient = arguments.flag("lenient")
        let json = arguments.flag("json")
        let noPlot = arguments.flag("no-plot")
        let files = try arguments.positionals()
        try arguments.finish()
        guard files.count == 1, let file = files.first else {
            throw UsageError(message: files.isEmpty ? "give the AHAP file to play" : "give exactly one file to play")
        }

        let profile = try ProfileChoice.resolve(profileName)
        let pattern: HapticPattern
        do {
            pattern = try HapticPattern(contentsOf: file, options: AHAPReader.Options(lenient: lenient))
        } catch {
            throw CommandFailure(message: "\(error)")
        }
        let program = PatternCompiler(profile: profile).compile(pattern)

        let target: PlaybackTarget = try port.map { try .open(port: $0, baud: baud) } ?? .virtual(profile: profile)
        let session = DeviceSession(pump: target.pump, endpointName: target.name)
        let report: PlaybackReport
        let identity: DeviceIdentity
        do {
            identity = try session.open()
            session.configureDriver(DriverRegisters.derive(from: profile))
            try session.synchronizeClock()
            report = try session.play(program)
        } catch {
            target.close()
            throw CommandFailure(message: error.description)
        }
        target.close()

        let trace = target.accelerationTrace(report: report)
        if json {
            JSONOutput.print(PlayOutput.json(file: file, profile: profile, identity: identity, report: report, target: target))
        } else {
            print(PlayOutput.text(file: file, profile: profile, identity: identity, report: report, target: target))
            if !noPlot, let trace {
                print()
                print(
                    TerminalPlot(title: "actuator acceleration", unit: "G").render(
                        samples: trace.samples, start: trace.start, end: trace.end,
                        markers: report.events.filter(\.type.isHaptic).map(\.requestedTime)))
            }
        }
        let missing = report.events.filter { $0.type.isHaptic && $0.onsetTime == nil }.count
        return missing == 0 ? 0 : 1
    }
}

/// Resolves `--profile`.
enum ProfileChoice {
    static func resolve(_ name: String?) throws -> ActuatorProfile {
        guard let name else { return ActuatorProfile.default }
        guard let profile = ActuatorProfile.builtIn(id: name) else {
            let names = ActuatorProfile.builtIn.map(\.id).joined(separator: ", ")
            throw CommandFailure(message: "no actuator profile named '\(name)' (known: \(names))")
        }
        return profile
    }
}
