import ThrumHarness
import ThrumLink
import ThrumSim
import ThrumTime

/// `thrum sim`: serve the virtual device on a pseudo-terminal until stopped.
enum SimCommand: Subcommand {
    static let name = "sim"
    static let summary = "serve the virtual device on a pseudo-terminal"
    static let usage = """
        Usage: thrum sim [options]

        Opens a pseudo-terminal, prints `pty: /dev/pts/N` as the first line on standard output, and
        serves the virtual device (the real firmware core, a DRV2605L model and an LRA model) on it
        in real time until stopped (Ctrl-C or SIGTERM). Point `thrum play --port` at the printed path.

        Options:
          --profile NAME     actuator profile the virtual device is built around
          --drift-ppm X      frequency error of the device's crystal, in ppm (default 0)
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let profileName = try arguments.option("profile")
        let drift = try arguments.option("drift-ppm", as: { Double($0) }, expected: "a number") ?? 0
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()
        let driftRange = VirtualDevice.Configuration.crystalErrorPPMRange
        guard drift.isFinite, driftRange.contains(drift) else {
            throw UsageError(
                message: "--drift-ppm must be a number from \(Int(driftRange.lowerBound)) to \(Int(driftRange.upperBound)) ppm, got \(drift)")
        }

        let profile = try ProfileChoice.resolve(profileName)
        let terminal: PseudoTerminal
        do {
            terminal = try PseudoTerminal()
        } catch {
            throw CommandFailure(message: "cannot open a pseudo-terminal: \(error)")
        }
        let device = VirtualDevice(configuration: VirtualDeviceFactory.configuration(for: profile, crystalErrorPPM: drift))
        print("pty: \(terminal.devicePath)")
        print("virtual device: \(profile.name), crystal \(drift) ppm; serving until stopped")
        flushStandardOutput()
        let server = DeviceServer(device: device, transport: terminal.master)
        do {
            try server.serve()
        } catch {
            throw CommandFailure(message: "the pseudo-terminal failed: \(error)")
        }
        return 0
    }
}
