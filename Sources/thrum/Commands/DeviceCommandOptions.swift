import ThrumCompiler

/// The options of a command that talks to one device and takes no file (`calibrate`, `info`):
/// `--port`, `--baud`, `--actuator` and `--json`.
struct DeviceCommandOptions {
    var port: String?
    var baud: Int
    var profile: ActuatorProfile
    var json: Bool
    /// The one positional argument, when the command takes one (`positional: true`).
    var positional: String? = nil

    /// Takes the options from `arguments` and checks that nothing else is left (but one positional
    /// argument when `positional`).
    static func take(from arguments: inout ArgumentList, positional: Bool = false) throws -> DeviceCommandOptions {
        let port = try arguments.option("port")
        let baud = try arguments.option("baud", as: { Int($0) }, expected: "a whole number") ?? 115_200
        let profile = try ActuatorChoice.take(from: &arguments) ?? ActuatorProfile.default
        let json = arguments.flag("json")
        let rest = try arguments.positionals()
        if let extra = rest.dropFirst(positional ? 1 : 0).first { throw UsageError(message: "unexpected argument '\(extra)'") }
        try arguments.finish()
        return DeviceCommandOptions(port: port, baud: baud, profile: profile, json: json, positional: positional ? rest.first : nil)
    }

    /// The port, opened, or the virtual device without one.
    func target() throws -> PlaybackTarget {
        try port.map { try PlaybackTarget.open(port: $0, baud: baud) } ?? .virtual(profile: profile)
    }
}
