import ThrumTime

/// Why a transport operation failed.
public enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The port or path does not exist.
    case notFound(path: String)
    /// The port exists but could not be opened (busy, permissions, not a serial device…).
    case openFailed(path: String, reason: String)
    /// Setting the line parameters (baud, 8N1, raw mode) failed.
    case configurationFailed(path: String, reason: String)
    /// A read or write failed after the port was open.
    case ioFailed(reason: String)
    /// The other end went away (hang-up, unplugged device, closed pty).
    case disconnected
    /// The transport was already closed.
    case closed
    /// A `tcp://host:port` host name did not resolve (`getaddrinfo`'s message).
    case hostNotFound(host: String, reason: String)
    /// Another process has the port open (exclusive lock or TIOCEXCL); `holder` names it when
    /// it can be found (`PID 1234 (thrum)`), else nil.
    case busy(path: String, holder: String?)
    /// A baud rate outside ``TransportLimits/baudRates``.
    case invalidBaudRate(Int)

    public var description: String {
        switch self {
        case .notFound(let path): return "no such port: \(path)"
        case .openFailed(let path, let reason): return "cannot open \(path): \(reason)"
        case .configurationFailed(let path, let reason): return "cannot configure \(path): \(reason)"
        case .ioFailed(let reason): return "I/O error: \(reason)"
        case .disconnected: return "the device disconnected"
        case .closed: return "the port is closed"
        case .hostNotFound(let host, let reason): return "cannot resolve host '\(host)': \(reason)"
        case .busy(let path, let holder):
            return "port busy: \(path) is open in another process" + (holder.map { " (\($0))" } ?? "")
        case .invalidBaudRate(let baud):
            return "invalid baud rate \(baud): expected a whole number from \(TransportLimits.baudRates.lowerBound) to \(TransportLimits.baudRates.upperBound)"
        }
    }
}

/// Ranges of the numbers a transport accepts.
public enum TransportLimits {
    /// Baud rates accepted for serial ports: 50 (the slowest POSIX rate) to 4 000 000.
    public static let baudRates: ClosedRange<Int> = 50...4_000_000
}

/// A bidirectional byte pipe to a device: a real serial port, a pseudo-terminal, a socket or an
/// in-memory pair.
///
/// Transports move bytes and nothing else; framing, reliability and clock sync live above them.
public protocol ByteTransport: AnyObject {
    /// A human-readable name of the endpoint (a path, `host:port`, `memory`).
    var endpointName: String { get }

    /// Writes all of `bytes`, blocking until the operating system has taken them.
    func write(_ bytes: [UInt8]) throws(TransportError)

    /// Returns the bytes available now, waiting up to `timeout` for the first one to arrive.
    /// Returns an empty array when the timeout passes with nothing to read.
    func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8]

    /// Closes the endpoint. Later calls fail with ``TransportError/closed``. Closing twice is harmless.
    func close()

    /// The time a byte takes on a UART between this endpoint and the device, µs, when the
    /// endpoint knows it is one at a rate it set (``UartLine``); nil when it does not know.
    var lineByteTime: Double? { get }
}

extension ByteTransport {
    /// Not known to be a UART.
    public var lineByteTime: Double? { nil }
}
