import ThrumCompiler
import ThrumLink
import ThrumPattern

/// Where a command finds its device: `--port PATH` and `--baud N`, parsed here and nowhere else.
/// A command that talks to one device uses the last `--port`; `play` takes several (one per
/// device). Another way of naming a device (a rig-farm place, `--place NAME`) is taken here too,
/// beside the port, so every device command gets it at once.
struct DeviceAddressOptions {
    /// The serial ports, pseudo-terminals or network addresses given, in order.
    var ports: [String]
    /// The baud rate of a real serial port.
    var baud: Int

    /// The baud rate without `--baud`.
    static let defaultBaud = 115_200

    /// The device of a one-device command: the last `--port`, nil for the built-in virtual device.
    var port: String? { ports.last }

    /// Removes `--port` (every one) and `--baud` from `arguments`.
    static func take(from arguments: inout ArgumentList) throws(UsageError) -> DeviceAddressOptions {
        let ports = try ports(from: &arguments)
        let baud = try baudRate(from: &arguments) ?? defaultBaud
        return DeviceAddressOptions(ports: ports, baud: baud)
    }

    /// Every `--port`, a `tcp://` or `rfc2217://` one checked as it is read: one without a host, or
    /// without a port from 1 to 65535, is a usage error (exit 2) naming the option and what was
    /// expected, not a failure to connect (exit 1).
    static func ports(from arguments: inout ArgumentList) throws(UsageError) -> [String] {
        let ports = try arguments.options("port")
        for port in ports {
            if let problem = networkAddressProblem(port) {
                throw UsageError(message: "--port \(TextEscaping.quotedExcerpt(port)): \(problem)")
            }
        }
        return ports
    }

    /// `--baud N`, a whole number within `TransportLimits.baudRates` (50 … 4 000 000): a usage
    /// error otherwise (exit 2), with or without a port to use it on.
    static func baudRate(from arguments: inout ArgumentList) throws(UsageError) -> Int? {
        let range = TransportLimits.baudRates
        return try arguments.option(
            "baud", as: { Int($0).flatMap { range.contains($0) ? $0 : nil } },
            expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
    }

    /// Opens `port` at ``baud``.
    func open(_ port: String) throws -> PlaybackTarget { try PlaybackTarget.open(port: port, baud: baud) }

    /// The device of a one-device command, opened: ``port``, or `virtual()` without one.
    func target(orVirtual virtual: () -> PlaybackTarget) throws -> PlaybackTarget {
        try port.map { try open($0) } ?? virtual()
    }
}
