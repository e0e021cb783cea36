import ThrumTime

/// A serial port on another machine behind an RFC 2217 server (ser2net's `telnet(rfc2217)`
/// accepter, pySerial's `rfc2217_server`): Telnet over TCP, with the line settings (baud, 8N1, no
/// flow control) sent as COM-PORT-OPTION subnegotiations at connect. Data bytes pass through
/// ``TelnetCodec``; the Telnet negotiation is answered inside ``read(maxCount:timeout:)``.
public final class RFC2217Transport: ByteTransport, @unchecked Sendable {
    /// `host:port`.
    public var endpointName: String { tcp.endpointName }
    let tcp: TCPTransport
    private var codec = TelnetCodec()
    private let clock: any HostClock

    /// Connects to `host:port` and opens the Telnet session with the line settings for `baud`.
    /// - Throws: what ``TCPTransport/init(host:port:connectTimeout:writeTimeout:)`` throws, or a
    ///   write error for the opening negotiation.
    public init(host: String, port: Int, baud: Int, clock: any HostClock = MonotonicClock()) throws(TransportError) {
        tcp = try TCPTransport(host: host, port: port)
        self.clock = clock
        try tcp.write(codec.opening(baud: baud))
    }

    /// Sends `bytes` with 0xFF escaped.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        try tcp.write(codec.encode(bytes))
    }

    /// Returns the data bytes that arrive within `timeout` (Telnet commands answered and
    /// dropped); empty when only commands, or nothing, arrived in time.
    public func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
        let deadline = clock.now() + timeout
        while true {
            let left = deadline - clock.now()
            let raw = try tcp.read(maxCount: maxCount, timeout: left > .zero ? left : .zero)
            let (data, replies) = codec.decode(raw)
            if !replies.isEmpty { try tcp.write(replies) }
            if !data.isEmpty || raw.isEmpty || clock.now() >= deadline { return data }
        }
    }

    /// Closes the connection.
    public func close() { tcp.close() }
}
