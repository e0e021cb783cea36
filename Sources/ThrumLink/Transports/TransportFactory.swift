import ThrumTime

/// Which transport a device path needs.
public enum TransportKind: String, Sendable, Equatable, Codable {
    /// A real serial port, opened with libserialport (``SerialPortTransport``).
    case serialPort
    /// A pseudo-terminal (the virtual device, a socat link), opened as a raw terminal
    /// (``PseudoTerminalTransport``).
    case pseudoTerminal
    /// A `tcp://host:port` address (``TCPTransport``): raw bytes, e.g. ser2net's `tcp` accepter.
    case tcp
    /// An `rfc2217://host:port` address (``RFC2217Transport``): Telnet with the COM-PORT-OPTION,
    /// e.g. ser2net's `telnet(rfc2217)` accepter.
    case rfc2217
}

/// Decides which transport `path` needs, without opening it.
///
/// `tcp://host:port` is TCP. Otherwise the path (symlinks resolved with `realpath(3)`, so a socat
/// `link=` path counts as what it points at) is a pseudo-terminal when it lies under `/dev/pts/`
/// or, on Linux, when it has no `/sys/class/tty/<name>` entry (every UART and USB-serial adapter
/// has one, no pty does); on Darwin when it is `/dev/ttysNNN`. Anything else is a serial port.
///
/// - Parameter path: A device path or `tcp://host:port`.
/// - Returns: The kind of transport to use.
/// - Throws: ``TransportError/notFound(path:)`` when nothing exists at `path`.
public func transportKind(forPath path: String) throws(TransportError) -> TransportKind {
    try transportKind(forPath: path, fileExists: Platform.fileExists, resolve: Platform.resolve)
}

func transportKind(forPath path: String, fileExists: (String) -> Bool, resolve: (String) -> String)
    throws(TransportError) -> TransportKind
{
    if path.hasPrefix("tcp://") { return .tcp }
    if path.hasPrefix("rfc2217://") { return .rfc2217 }
    guard fileExists(path) else { throw .notFound(path: path) }
    let resolved = resolve(path)
    return Platform.looksLikePseudoTerminal(resolvedPath: resolved, fileExists: fileExists)
        ? .pseudoTerminal : .serialPort
}

/// Splits `tcp://host:port` or `rfc2217://host:port` (IPv6 hosts in brackets: `tcp://[::1]:5555`);
/// nil when it is not one or is malformed (``networkAddressProblem(_:)`` says how).
func parseTCPAddress(_ path: String) -> (host: String, port: Int)? {
    guard case .success(let address)? = splitNetworkAddress(path) else { return nil }
    return address
}

/// What is wrong with a `tcp://HOST:PORT` or `rfc2217://HOST:PORT` address (no host, no port, a
/// port that is not a whole number from 1 to 65535), as one phrase ending in what was expected;
/// nil when it is well formed or not a network address at all (a device path).
public func networkAddressProblem(_ path: String) -> String? {
    guard case .failure(let problem)? = splitNetworkAddress(path) else { return nil }
    return problem.reason
}

/// Why a network address does not parse.
private struct NetworkAddressProblem: Error {
    var reason: String
}

private func splitNetworkAddress(_ path: String) -> Result<(host: String, port: Int), NetworkAddressProblem>? {
    guard let scheme = ["tcp://", "rfc2217://"].first(where: { path.hasPrefix($0) }) else { return nil }
    let form = "expected \(scheme)HOST:PORT (an IPv6 host in brackets: \(scheme)[::1]:5555)"
    let rest = path.dropFirst(scheme.count)
    let host: Substring, portText: Substring
    if rest.hasPrefix("[") {
        // An IPv6 host: in brackets, the port after them.
        guard let close = rest.firstIndex(of: "]") else { return .failure(NetworkAddressProblem(reason: "no closing ']': \(form)")) }
        host = rest[rest.index(after: rest.startIndex)..<close]
        let after = rest[rest.index(after: close)...]
        guard after.hasPrefix(":") else { return .failure(NetworkAddressProblem(reason: "no port: \(form)")) }
        portText = after.dropFirst()
    } else {
        guard let colon = rest.lastIndex(of: ":") else { return .failure(NetworkAddressProblem(reason: "no port: \(form)")) }
        host = rest[..<colon]
        portText = rest[rest.index(after: colon)...]
    }
    guard !host.isEmpty else { return .failure(NetworkAddressProblem(reason: "no host: \(form)")) }
    let ports = 1...65_535
    guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText),
        ports.contains(port)
    else {
        // Named when short and printable (the whole address is the caller's to quote).
        let printable = portText.count <= 20 && portText.allSatisfy { ($0.asciiValue ?? 0) > 0x20 && ($0.asciiValue ?? 0x7F) < 0x7F }
        let given = portText.isEmpty ? "no port" : printable ? "port '\(portText)'" : "a port"
        return .failure(
            NetworkAddressProblem(reason: "\(given): expected \(scheme)HOST:PORT with PORT a whole number from 1 to 65535"))
    }
    return .success((String(host), port))
}

/// Opens the right transport for `path`: ``PseudoTerminalTransport`` for pseudo-terminals,
/// ``SerialPortTransport`` (libserialport) for real ports, ``TCPTransport`` for `tcp://host:port`,
/// ``RFC2217Transport`` for `rfc2217://host:port`.
/// See ``transportKind(forPath:)`` for how the choice is made.
///
/// - Parameters:
///   - path: A device path (`/dev/ttyACM0`, `/dev/pts/3`) or `tcp://host:port`.
///   - baud: The baud rate for a real serial port, and the one an RFC 2217 server sets on its port;
///     ignored by ptys and raw TCP, which have none.
/// - Returns: An open transport.
/// - Throws: ``TransportError/invalidBaudRate(_:)`` for a baud rate outside
///   ``TransportLimits/baudRates`` (whatever the transport), ``TransportError/notFound(path:)``
///   when nothing exists at `path`, and whatever the
///   chosen transport's initializer throws.
public func openTransport(path: String, baud: Int) throws(TransportError) -> any ByteTransport {
    guard TransportLimits.baudRates.contains(baud) else { throw .invalidBaudRate(baud) }
    switch try transportKind(forPath: path) {
    case .pseudoTerminal:
        return try PseudoTerminalTransport(path: path)
    case .serialPort:
        return try SerialPortTransport(path: path, baud: baud)
    case .tcp:
        guard let address = parseTCPAddress(path) else {
            throw .openFailed(path: path, reason: networkAddressProblem(path) ?? "expected tcp://host:port")
        }
        return try TCPTransport(host: address.host, port: address.port)
    case .rfc2217:
        guard let address = parseTCPAddress(path) else {
            throw .openFailed(path: path, reason: networkAddressProblem(path) ?? "expected rfc2217://host:port")
        }
        return try RFC2217Transport(host: address.host, port: address.port, baud: baud)
    }
}
