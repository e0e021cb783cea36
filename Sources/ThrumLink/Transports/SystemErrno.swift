#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A C `errno` value, with names for the ones the transports act on.
struct SystemErrno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The raw `errno`.
    var rawValue: CInt

    init(_ rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    static var current: SystemErrno { SystemErrno(errno) }

    static let interrupted = SystemErrno(EINTR)
    static let wouldBlock = SystemErrno(EAGAIN)
    static let ioError = SystemErrno(EIO)
    static let noSuchFile = SystemErrno(ENOENT)
    static let noSuchDevice = SystemErrno(ENXIO)
    static let noDevice = SystemErrno(ENODEV)
    static let permissionDenied = SystemErrno(EACCES)
    static let busy = SystemErrno(EBUSY)
    static let badDescriptor = SystemErrno(EBADF)
    static let brokenPipe = SystemErrno(EPIPE)
    static let connectionReset = SystemErrno(ECONNRESET)
    static let connectionRefused = SystemErrno(ECONNREFUSED)
    static let inProgress = SystemErrno(EINPROGRESS)
    static let timedOut = SystemErrno(ETIMEDOUT)
    static let notATerminal = SystemErrno(ENOTTY)

    /// Whether this error means the other end has gone: a hung-up terminal, an unplugged
    /// adapter, a reset or closed socket.
    var meansDisconnected: Bool {
        self == .ioError || self == .noSuchDevice || self == .noDevice || self == .brokenPipe
            || self == .connectionReset
    }

    /// `strerror(3)` text followed by the symbolic value, e.g. `Input/output error (errno 5)`.
    var description: String {
        "\(String(cString: strerror(rawValue))) (errno \(rawValue))"
    }
}
