import Foundation
import ThrumTime

/// One end of an in-process byte pipe, made in connected pairs with ``makePair()``: for tests and
/// for the virtual device running in the same process.
///
/// Thread-safe. ``read(maxCount:timeout:)`` returns at once when bytes are queued and otherwise
/// waits on a condition variable for at most `timeout` of wall-clock time (it never reads a
/// virtual clock: waiting is what it does for real). Everything an end writes is also kept in
/// ``writtenBytes`` and ``writes`` for inspection.
public final class InMemoryTransport: ByteTransport, @unchecked Sendable {
    /// The name given at creation (`memory:a`, `memory:b` by default).
    public let endpointName: String
    private let pipe: SharedPipe
    private let side: Int

    private init(name: String, pipe: SharedPipe, side: Int) {
        self.endpointName = name
        self.pipe = pipe
        self.side = side
    }

    /// Creates two connected ends: what one writes, the other reads.
    /// - Parameter names: The two ends' ``endpointName`` values.
    /// - Returns: The two ends; neither has a special role.
    public static func makePair(names: (String, String) = ("memory:a", "memory:b")) -> (
        InMemoryTransport, InMemoryTransport
    ) {
        let pipe = SharedPipe()
        return (
            InMemoryTransport(name: names.0, pipe: pipe, side: 0), InMemoryTransport(name: names.1, pipe: pipe, side: 1)
        )
    }

    /// Queues `bytes` for the other end and wakes a reader waiting there. Never blocks.
    /// - Throws: ``TransportError/closed`` after ``close()``; ``TransportError/disconnected``
    ///   when the other end has closed.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        try pipe.write(bytes, from: side)
    }

    /// Returns up to `maxCount` queued bytes, waiting up to `timeout` (`NSCondition.wait(until:)`)
    /// when none are queued; empty when the timeout passes.
    /// - Throws: ``TransportError/closed`` after ``close()``; ``TransportError/disconnected``
    ///   once the other end has closed and everything it wrote has been read.
    public func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
        try pipe.read(maxCount: maxCount, timeout: timeout, side: side)
    }

    /// Closes this end and wakes readers on both ends.
    public func close() {
        pipe.close(side: side)
    }

    /// Every byte this end has written, in order.
    public var writtenBytes: [UInt8] { pipe.written(by: side).flatMap { $0 } }

    /// Every ``write(_:)`` call's bytes, one element per call.
    public var writes: [[UInt8]] { pipe.written(by: side) }

    /// How many bytes written by the other end are waiting to be read here.
    public var queuedCount: Int { pipe.queuedCount(for: side) }
}

/// The state both ends share, behind one condition variable.
private final class SharedPipe: @unchecked Sendable {
    private let condition = NSCondition()
    /// `inbox[i]`: bytes waiting for side i; `head[i]`: how many of them are already read.
    private var inbox: [[UInt8]] = [[], []]
    private var head = [0, 0]
    private var closed = [false, false]
    private var history: [[[UInt8]]] = [[], []]

    func write(_ bytes: [UInt8], from side: Int) throws(TransportError) {
        condition.lock()
        defer { condition.unlock() }
        if closed[side] { throw .closed }
        if closed[1 - side] { throw .disconnected }
        history[side].append(bytes)
        if bytes.isEmpty { return }
        inbox[1 - side].append(contentsOf: bytes)
        condition.broadcast()
    }

    func read(maxCount: Int, timeout: HostDuration, side: Int) throws(TransportError) -> [UInt8] {
        let deadline = Date(timeIntervalSinceNow: max(0, timeout.seconds))
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed[side] { throw .closed }
            let available = inbox[side].count - head[side]
            if available > 0 {
                let n = min(max(0, maxCount), available)
                let bytes = Array(inbox[side][head[side]..<head[side] + n])
                head[side] += n
                if head[side] == inbox[side].count {
                    inbox[side].removeAll(keepingCapacity: true)
                    head[side] = 0
                }
                return bytes
            }
            if closed[1 - side] { throw .disconnected }
            if maxCount <= 0 { return [] }
            if !condition.wait(until: deadline) {
                // Timed out; one last look in case a write raced the timeout.
                if inbox[side].count > head[side] { continue }
                if closed[side] { throw .closed }
                if closed[1 - side] { throw .disconnected }
                return []
            }
        }
    }

    func close(side: Int) {
        condition.lock()
        closed[side] = true
        condition.broadcast()
        condition.unlock()
    }

    func written(by side: Int) -> [[UInt8]] {
        condition.lock()
        defer { condition.unlock() }
        return history[side]
    }

    func queuedCount(for side: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return inbox[side].count - head[side]
    }
}
