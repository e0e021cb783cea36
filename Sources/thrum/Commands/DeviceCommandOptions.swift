import ThrumCompiler

/// The options of a command that talks to one device and takes no file (`calibrate`, `info`):
/// the device (``DeviceAddressOptions``: `--port`, `--baud`), `--actuator` and `--json`.
struct DeviceCommandOptions {
    var address: DeviceAddressOptions
    var profile: ActuatorProfile
    var json: Bool
    /// The one positional argument, when the command takes one (`positional: true`).
    var positional: String? = nil

    /// The device's port, nil for the built-in virtual device.
    var port: String? { address.port }

    /// Takes the options from `arguments` and checks that nothing else is left (but one positional
    /// argument when `positional`).
    static func take(from arguments: inout ArgumentList, positional: Bool = false) throws -> DeviceCommandOptions {
        let address = try DeviceAddressOptions.take(from: &arguments)
        let profile = try ActuatorChoice.take(from: &arguments) ?? ActuatorProfile.default
        let json = arguments.flag("json")
        let rest = try arguments.positionals()
        if let extra = rest.dropFirst(positional ? 1 : 0).first { throw UsageError(message: "unexpected argument '\(extra)'") }
        try arguments.finish()
        return DeviceCommandOptions(address: address, profile: profile, json: json, positional: positional ? rest.first : nil)
    }

    /// The port, opened, or the virtual device without one.
    func target() throws -> PlaybackTarget {
        try address.target(orVirtual: { .virtual(profile: profile) })
    }
}
