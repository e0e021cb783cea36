import ThrumTime

/// A ``LinkPump`` over a real ``ByteTransport`` (serial port, pseudo-terminal, socket), in real time.
public final class TransportPump: LinkPump {
    /// The transport bytes travel over.
    public let transport: any ByteTransport
    public let clock: any HostClock
    /// Bytes written to the transport since creation.
    public private(set) var bytesWritten = 0
    /// Bytes read from the transport since creation.
    public private(set) var bytesRead = 0

    /// Creates a pump over `transport`, reading time from `clock` (normally ``MonotonicClock``).
    public init(transport: any ByteTransport, clock: any HostClock = MonotonicClock()) {
        self.transport = transport
        self.clock = clock
    }

    public func run(_ session: LinkSession, until deadline: HostTime) throws(TransportError) {
        while true {
            try flush(session)
            let now = clock.now()
            if now >= deadline { return }
            var wakeUp = deadline
            if let timer = session.nextDeadline, timer < wakeUp { wakeUp = timer }
            let wait = max(wakeUp - now, .zero)
            let bytes = try transport.read(maxCount: 4096, timeout: wait)
            if !bytes.isEmpty {
                bytesRead += bytes.count
                session.receive(bytes)
                session.poll()
                try flush(session)
                return
            }
            session.poll()
        }
    }

    private func flush(_ session: LinkSession) throws(TransportError) {
        let outgoing = session.takeOutgoing()
        if outgoing.isEmpty { return }
        try transport.write(outgoing)
        bytesWritten += outgoing.count
    }
}
