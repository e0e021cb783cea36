import Foundation
import ThrumTime

/// `thrum monitor`'s bridge: forwards every byte between a client (a player on the bridge's
/// pseudo-terminal) and the device as it comes, one thread each way, and tells a ``LinkMonitor``
/// what passed and when. The screen reads ``snapshot``.
public final class MonitorBridge: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: any HostClock
    private var monitor = LinkMonitor()
    private var failed: String?

    /// A bridge that stamps what it forwards with `clock`.
    public init(clock: any HostClock) { self.clock = clock }

    /// What the monitor knows now: a copy, so drawing it never holds up the forwarding.
    public var snapshot: LinkMonitor {
        lock.lock()
        defer { lock.unlock() }
        return monitor
    }

    /// Why forwarding stopped (a failed read or write, either way); nil while it runs.
    public var failure: String? {
        lock.lock()
        defer { lock.unlock() }
        return failed
    }

    /// Stops forwarding with `message` (the first reason given stays).
    public func fail(_ message: String) {
        lock.lock()
        if failed == nil { failed = message }
        lock.unlock()
    }

    /// Forwards bytes the client sent to the device, stamped with the time they are handed over.
    /// The monitor reads them before they are written: once written, the device may answer before
    /// this thread runs again, and its answer to a CLAIM comes in the new session's key, which
    /// only the CLAIM tells (read after, that answer failed the monitor's CRC check).
    public func forwardFromClient(_ bytes: [UInt8], to device: any ByteTransport) throws(TransportError) {
        let at = clock.now()
        record { $0.hostSent(bytes, at: at) }
        try device.write(bytes)
    }

    /// Forwards bytes the device sent to the client, stamped with the time they arrived.
    public func forwardFromDevice(_ bytes: [UInt8], to client: any ByteTransport) throws(TransportError) {
        let at = clock.now()
        try client.write(bytes)
        record { $0.deviceSent(bytes, at: at) }
    }

    /// Starts the two forwarding threads; they run until ``failure`` is set.
    public func start(device: any ByteTransport, client: any ByteTransport) {
        startForwarding(from: client, to: device, fromClient: true)
        startForwarding(from: device, to: client, fromClient: false)
    }

    private func record(_ change: (inout LinkMonitor) -> Void) {
        lock.lock()
        change(&monitor)
        lock.unlock()
    }

    private func startForwarding(from source: any ByteTransport, to sink: any ByteTransport, fromClient: Bool) {
        nonisolated(unsafe) let source = source
        nonisolated(unsafe) let sink = sink
        let thread = Thread { [self] in
            while failure == nil {
                do {
                    let bytes = try source.read(maxCount: 4096, timeout: .milliseconds(100))
                    guard !bytes.isEmpty else { continue }
                    if fromClient {
                        try forwardFromClient(bytes, to: sink)
                    } else {
                        try forwardFromDevice(bytes, to: sink)
                    }
                } catch {
                    fail(fromClient ? "the bridge failed: \(error)" : "the device failed: \(error)")
                }
            }
        }
        thread.start()
    }
}
