import ThrumTime

/// A byte transport over a terminal file descriptor in raw mode: the client side of a
/// pseudo-terminal (`/dev/pts/N`, a socat link to one), or the master side of a ``PseudoTerminal``.
///
/// libserialport cannot open pseudo-terminals (it needs a `/sys/class/tty` entry and the
/// `TIOCMGET` ioctl), so ptys go through this transport; see ``openTransport(path:baud:)``.
///
/// Reads wait with `poll(2)`; writes retry on EINTR and wait on EAGAIN; a hang-up (POLLHUP, EIO,
/// end of file) surfaces as ``TransportError/disconnected``. Thread safety is that of one reader
/// and one writer on different threads; ``close()`` may come from any thread.
public final class PseudoTerminalTransport: ByteTransport, @unchecked Sendable {
    /// The path that was opened (or the master's description for a ``PseudoTerminal``).
    public let endpointName: String
    let channel: DescriptorChannel

    /// Opens a terminal device with `open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)`, claims it
    /// exclusively (`flock(LOCK_EX | LOCK_NB)`, then `ioctl(TIOCEXCL)`), puts it in raw
    /// mode (`tcgetattr`, `cfmakeraw`, VMIN = 0, VTIME = 0, `tcsetattr`) and drops stale bytes
    /// (`tcflush(TCIOFLUSH)`).
    ///
    /// - Parameters:
    ///   - path: The terminal's path, e.g. `/dev/pts/3`.
    ///   - writeTimeout: How long ``write(_:)`` waits for the terminal to take bytes before
    ///     failing with ``TransportError/ioFailed(reason:)``.
    /// - Throws: ``TransportError/notFound(path:)`` when the path does not exist,
    ///   ``TransportError/busy(path:holder:)`` when another process has it (naming it when it can),
    ///   ``TransportError/openFailed(path:reason:)`` when `open` fails otherwise,
    ///   ``TransportError/configurationFailed(path:reason:)`` when it is not a terminal.
    public convenience init(path: String, writeTimeout: HostDuration = .seconds(5)) throws(TransportError) {
        try self.init(path: path, writeTimeout: writeTimeout, system: RealTermiosSystem(), clock: MonotonicClock())
    }

    init(path: String, writeTimeout: HostDuration, system: any TermiosSystem, clock: any HostClock)
        throws(TransportError)
    {
        let fd: CInt
        switch system.open(path, flags: Platform.terminalOpenFlags) {
        case .success(let d): fd = d
        case .failure(.noSuchFile): throw .notFound(path: path)
        case .failure(.busy): throw .busy(path: path, holder: system.holderText(path))
        case .failure(let e): throw .openFailed(path: path, reason: e.description)
        }
        if case .failure(let e) = system.claimExclusively(fd, path: path) { throw e }
        if case .failure(let e) = system.makeRaw(fd) {
            _ = system.clearTerminalExclusive(fd)
            _ = system.close(fd)
            let reason = e == .notATerminal ? "not a terminal" : "cannot set raw mode: \(e)"
            throw .configurationFailed(path: path, reason: reason)
        }
        // Bytes queued while nobody had the device open (a simulator keeps talking) are stale.
        _ = system.discardPending(fd)
        self.endpointName = path
        self.channel = DescriptorChannel(
            adopting: fd, name: path, system: system, clock: clock, isSocket: false, writeTimeout: writeTimeout)
        self.channel.clearsExclusiveOnClose = true
    }

    init(adopting channel: DescriptorChannel) {
        self.endpointName = channel.name
        self.channel = channel
    }

    /// Writes all of `bytes` with `write(2)`, waiting with `poll(POLLOUT)` while the terminal's
    /// buffer is full and retrying on EINTR.
    /// - Throws: ``TransportError/disconnected`` on EIO (hang-up), ``TransportError/ioFailed(reason:)``
    ///   on a timeout or another error, ``TransportError/closed`` after ``close()``.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        try channel.write(bytes)
    }

    /// Waits up to `timeout` with `poll(POLLIN)`, then returns what one `read(2)` yields (at most
    /// `maxCount` bytes); an empty array when the timeout passes.
    /// - Throws: ``TransportError/disconnected`` on POLLHUP, EIO or end of file,
    ///   ``TransportError/closed`` after ``close()``.
    public func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
        try channel.read(maxCount: maxCount, timeout: timeout)
    }

    /// Closes the descriptor with `close(2)` (once the reads and writes in flight return).
    public func close() {
        channel.close()
    }
}

extension PseudoTerminalTransport: WakeableTransport {
    /// Waits with one `ppoll(2)` on the descriptor and `wake` (``WakeableTransport``).
    public func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
        try channel.waitUntilReadable(timeout: timeout, orWoken: wake)
    }
}
