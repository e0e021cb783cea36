import ThrumTime

/// A byte transport over a TCP connection: a rig on another machine behind a serial-to-TCP
/// bridge such as `socat TCP-LISTEN:5555,reuseaddr FILE:/dev/ttyACM0,raw,b115200`.
///
/// Shares the pseudo-terminal transport's I/O core: reads wait with `poll(2)`, writes retry on
/// EINTR and wait on EAGAIN; the peer closing (end of file, ECONNRESET, EPIPE) surfaces as
/// ``TransportError/disconnected``. Writes use `send(2)` without SIGPIPE. TCP_NODELAY is set,
/// since commands are small and timing-sensitive.
public final class TCPTransport: ByteTransport, @unchecked Sendable {
    /// `host:port`.
    public let endpointName: String
    let channel: DescriptorChannel

    /// Connects to `host:port` (`getaddrinfo`, `socket`, `connect` with a timeout).
    ///
    /// - Parameters:
    ///   - host: A host name or address, e.g. `127.0.0.1` or `rig-3.local`.
    ///   - port: The TCP port.
    ///   - connectTimeout: How long to wait for each address to accept.
    ///   - writeTimeout: How long ``write(_:)`` waits for the socket to take bytes.
    /// - Throws: ``TransportError/hostNotFound(host:reason:)`` when the host name does not resolve,
    ///   ``TransportError/openFailed(path:reason:)`` when the connection is refused or times out.
    public init(
        host: String, port: Int, connectTimeout: HostDuration = .seconds(5), writeTimeout: HostDuration = .seconds(5)
    ) throws(TransportError) {
        let name = "\(host):\(port)"
        guard (1...65535).contains(port) else { throw .openFailed(path: name, reason: "invalid port \(port)") }
        let ms = CInt(clamping: max(1, (connectTimeout.nanoseconds + 999_999) / 1_000_000))
        switch Platform.connectTCP(host: host, port: port, timeoutMilliseconds: ms) {
        case .success(let fd):
            endpointName = name
            channel = DescriptorChannel(
                adopting: fd, name: name, system: RealTermiosSystem(), clock: MonotonicClock(), isSocket: true,
                writeTimeout: writeTimeout)
        case .failure(.unresolved(let reason)):
            throw .hostNotFound(host: host, reason: reason)
        case .failure(.connect(let e)):
            throw .openFailed(path: name, reason: "connect: \(e)")
        }
    }

    /// Sends all of `bytes` (`send(2)` with MSG_NOSIGNAL, `poll(POLLOUT)` while the socket is full).
    /// - Throws: ``TransportError/disconnected`` when the peer has gone, ``TransportError/closed``
    ///   after ``close()``, ``TransportError/ioFailed(reason:)`` otherwise.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        try channel.write(bytes)
    }

    /// Waits up to `timeout` with `poll(POLLIN)`, then returns what one `read(2)` yields.
    /// - Throws: ``TransportError/disconnected`` when the peer has closed the connection.
    public func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
        try channel.read(maxCount: maxCount, timeout: timeout)
    }

    /// Closes the socket (`close(2)`) once the calls in flight return.
    public func close() {
        channel.close()
    }
}

extension TCPTransport: WakeableTransport {
    /// Waits with one `ppoll(2)` on the descriptor and `wake` (``WakeableTransport``).
    public func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
        try channel.waitUntilReadable(timeout: timeout, orWoken: wake)
    }
}
