import ThrumTime
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A descriptor another thread makes readable to cut a transport's wait short
/// (``WakeableTransport/waitUntilReadable(timeout:orWoken:)``): a non-blocking pipe whose read end
/// sits in the same `ppoll(2)` as the transport's descriptor.
///
/// A signal stays pending until ``drain()``: a signal made before the wait starts still ends it
/// at once (no lost wake-up). Signals made before one drain count once.
public final class WakeSignal: @unchecked Sendable {
    /// The read end, which a wait watches for POLLIN (-1 when the pipe could not be made).
    public let descriptor: CInt
    private let writeEnd: CInt

    /// A new signal, not signalled. Without a pipe (descriptor exhaustion) ``descriptor`` is -1:
    /// ``signal()`` does nothing and waits are not cut short (they end at their deadline).
    public init() {
        var ends: [CInt] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            descriptor = ends[0]
            writeEnd = ends[1]
        } else {
            descriptor = -1
            writeEnd = -1
        }
    }

    deinit {
        if descriptor >= 0 { _ = close(descriptor) }
        if writeEnd >= 0 { _ = close(writeEnd) }
    }

    /// Makes ``descriptor`` readable until the next ``drain()``. Safe from any thread; never blocks
    /// (a full pipe is already signalled).
    public func signal() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Whether a signal is pending (without consuming it).
    public var isSignalled: Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// Consumes the pending signals: the next wait blocks until a new ``signal()``.
    public func drain() {
        guard descriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }
}

/// A ``ByteTransport`` whose wait for input can be cut short by a ``WakeSignal``, so that a
/// thread may wait for bytes without holding the lock under which it reads and writes.
public protocol WakeableTransport: ByteTransport {
    /// Waits until bytes can be read (or the endpoint hangs up), `timeout` passes or `wake` is
    /// signalled, without reading anything. Returns whether the wait ended because of input
    /// (false: the timeout passed or `wake` was signalled).
    /// - Throws: ``TransportError/closed`` after ``ByteTransport/close()``,
    ///   ``TransportError/ioFailed(reason:)`` when the wait itself fails.
    func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool

    /// Whether this transport can make that wait (a serial port without a descriptor cannot);
    /// true unless a transport says otherwise.
    var canWaitApart: Bool { get }
}

extension WakeableTransport {
    public var canWaitApart: Bool { true }
}
