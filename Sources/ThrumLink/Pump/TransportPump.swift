import Foundation
import ThrumTime

/// A ``LinkPump`` over a real ``ByteTransport`` (serial port, pseudo-terminal, socket), in real time.
public final class TransportPump: LinkPump {
    /// The transport bytes travel over.
    public let transport: any ByteTransport
    public let clock: any HostClock
    /// The transport's (``ByteTransport/lineByteTime``).
    public var lineByteTime: Double? { transport.lineByteTime }
    /// Bytes written to the transport since creation.
    public private(set) var bytesWritten = 0
    /// Bytes read from the transport since creation.
    public private(set) var bytesRead = 0
    /// Whether the last ``waitForInput(until:orWoken:)`` ended because input woke it; the next
    /// ``exchange(_:)`` marks what it reads so (``LinkSession/receive(_:readerWoken:)``).
    private let inputWokeReader = LockedFlag()

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
                session.receive(bytes, readerWoken: wait > .zero && sleptLongEnough(since: now))
                session.poll()
                try flush(session)
                return
            }
            session.poll()
        }
    }

    /// Whether ``waitForInput(until:orWoken:)`` can wait apart from the session (the transport is
    /// a ``WakeableTransport``).
    public var waitsApart: Bool { (transport as? WakeableTransport)?.canWaitApart ?? false }

    /// Exchanges bytes without waiting: writes what the session has queued, takes what has
    /// arrived, runs the session's due timers and writes what they queued. Returns whether bytes
    /// came from the device. Together with ``waitForInput(until:orWoken:)`` this is ``run(_:until:)``
    /// split so the wait can happen without the lock the session is used under.
    @discardableResult
    public func exchange(_ session: LinkSession) throws(TransportError) -> Bool {
        try flush(session)
        let bytes = try transport.read(maxCount: 4096, timeout: .zero)
        let woken = inputWokeReader.withLock { flag in
            defer { flag = false }
            return flag
        }
        if !bytes.isEmpty {
            bytesRead += bytes.count
            session.receive(bytes, readerWoken: woken)
        }
        session.poll()
        try flush(session)
        return !bytes.isEmpty
    }

    /// Waits, touching no session, until the transport has input, `deadline` passes or `wake` is
    /// signalled (``WakeableTransport``); a transport that cannot be woken waits for nothing and
    /// returns at once. Returns whether input ended the wait.
    public func waitForInput(until deadline: HostTime, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
        guard let wakeable = transport as? WakeableTransport, wakeable.canWaitApart else { return false }
        let began = clock.now()
        let input = try wakeable.waitUntilReadable(timeout: max(deadline - began, .zero), orWoken: wake)
        let slept = input && sleptLongEnough(since: began)
        inputWokeReader.withLock { $0 = slept }
        return input
    }

    /// A wait that returned with input after at least this long slept: the input woke the reader
    /// (bytes already waiting return it within a few µs).
    static let sleptAtLeast = HostDuration.microseconds(20)

    private func sleptLongEnough(since began: HostTime) -> Bool { clock.now() - began >= Self.sleptAtLeast }

    /// Writes what the session has queued, without waiting for input.
    public func flush(_ session: LinkSession) throws(TransportError) {
        let outgoing = session.takeOutgoing()
        if outgoing.isEmpty { return }
        try transport.write(outgoing)
        bytesWritten += outgoing.count
    }
}

/// A Bool behind a lock: the run thread's wait sets it, whichever thread exchanges next takes it.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func withLock<T>(_ body: (inout Bool) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
