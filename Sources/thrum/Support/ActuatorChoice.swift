import Foundation
import ThrumCompiler

/// Resolves `--actuator NAME|FILE.json` (and its older spelling `--profile NAME`): a built-in
/// profile by id, or a user's own profile file, read and checked by `ActuatorProfile.read`.
enum ActuatorChoice {
    /// Reads `--actuator` and `--profile` from `arguments` and resolves them (nil: neither given).
    static func take(from arguments: inout ArgumentList) throws -> ActuatorProfile? {
        let actuator = try arguments.option("actuator")
        let profile = try arguments.option("profile")
        if actuator != nil && profile != nil {
            throw UsageError(message: "give --actuator or --profile, not both (--profile NAME is the older spelling)")
        }
        guard let choice = actuator ?? profile else { return nil }
        return try resolve(choice)
    }

    /// A built-in id, or a path to a JSON profile (anything ending in `.json` or containing `/`).
    /// Warnings about a file (unknown keys, clamped registers) go to standard error.
    static func resolve(_ choice: String) throws -> ActuatorProfile {
        if let profile = ActuatorProfile.builtIn(id: choice) { return profile }
        guard choice.hasSuffix(".json") || choice.contains("/") else {
            let names = ActuatorProfile.builtIn.map(\.id).joined(separator: ", ")
            throw CommandFailure(
                message:
                    "no actuator profile named '\(choice)' (known: \(names); or give a FILE.json, see `thrum actuator --help`)"
            )
        }
        do {
            let (profile, warnings) = try ActuatorProfile.read(contentsOf: URL(fileURLWithPath: choice), source: choice)
            for warning in warnings { printError("\(warning)") }
            return profile
        } catch {
            throw CommandFailure(message: error.description)
        }
    }
}
