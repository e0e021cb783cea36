import Foundation
import ThrumTime

/// Reads and writes one open file descriptor (a terminal or a socket) with timeouts, through a
/// ``TermiosSystem``. The one place that retries on EINTR, waits on EAGAIN and maps errno values
/// to ``TransportError``.
///
/// Thread safety: one reader and one writer may run at once on different threads. `close()` may
/// be called from any thread; the descriptor is released once the reads and writes in flight
/// return (a read in flight finishes at its timeout), so its number is never reused under them.
final class DescriptorChannel: @unchecked Sendable {
    let system: any TermiosSystem
    let clock: any HostClock
    let isSocket: Bool
    let writeTimeout: HostDuration
    /// The most one read asks for, so a huge `maxCount` does not allocate a huge buffer.
    static let largestRead = 65_536
    /// Name used in error messages.
    let name: String

    private let lock = NSLock()
    private let fd: CInt
    private var inFlight = 0
    private var closeRequested = false
    private var released = false
    /// Whether the descriptor holds TIOCEXCL, which must be cleared before closing: the flag
    /// lives on the terminal and would outlast this descriptor while another (a simulator's
    /// own hold on its pty) keeps the terminal open, locking out the next opener.
    var clearsExclusiveOnClose = false

    init(
        adopting fd: CInt, name: String, system: any TermiosSystem, clock: any HostClock,
        isSocket: Bool, writeTimeout: HostDuration
    ) {
        self.fd = fd
        self.name = name
        self.system = system
        self.clock = clock
        self.isSocket = isSocket
        self.writeTimeout = writeTimeout
    }

    deinit {
        if !released { releaseDescriptor() }
    }

    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closeRequested
    }

    private func acquire() throws(TransportError) -> CInt {
        lock.lock()
        defer { lock.unlock() }
        if closeRequested { throw .closed }
        inFlight += 1
        return fd
    }

    private func relinquish() {
        lock.lock()
        inFlight -= 1
        let mustRelease = closeRequested && inFlight == 0 && !released
        if mustRelease { released = true }
        lock.unlock()
        if mustRelease { releaseDescriptor() }
    }

    private func releaseDescriptor() {
        if clearsExclusiveOnClose { _ = system.clearTerminalExclusive(fd) }
        _ = system.close(fd)
    }

    func close() {
        lock.lock()
        let mustRelease = !closeRequested && inFlight == 0
        closeRequested = true
        if mustRelease { released = true }
        lock.unlock()
        if mustRelease { releaseDescriptor() }
    }

    /// Waits on the descriptor for exactly the time left (``DescriptorWait``).
    private var waiter: DescriptorWait { DescriptorWait(system: system, clock: clock) }

    func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
        let fd = try acquire()
        defer { relinquish() }
        if maxCount <= 0 { return [] }
        let deadline = clock.now() + timeout
        while true {
            let revents: Int16
            switch waiter.wait(for: Platform.pollIn, on: fd, until: deadline) {
            case .failure(let e): throw .ioFailed(reason: "poll on \(name): \(e)")
            case .success(let r): revents = r
            }
            if revents == 0 { return [] }
            if revents & Platform.pollNval != 0 { throw .ioFailed(reason: "poll on \(name): descriptor not open") }
            let hungUp = revents & (Platform.pollHup | Platform.pollErr) != 0
            var bytes = [UInt8](repeating: 0, count: min(maxCount, Self.largestRead))
            let result = bytes.withUnsafeMutableBytes { system.read(fd, into: $0) }
            switch result {
            case .success(0): throw .disconnected
            case .success(let n):
                bytes.removeSubrange(n...)
                return bytes
            case .failure(.interrupted): continue
            case .failure(.wouldBlock):
                if hungUp { throw .disconnected }
                // A spurious wake-up: wait again for what is left of the timeout.
                if clock.now() >= deadline { return [] }
                continue
            case .failure(let e) where e.meansDisconnected: throw .disconnected
            case .failure(let e): throw .ioFailed(reason: "read from \(name): \(e)")
            }
        }
    }

    /// Waits until the descriptor is readable (or hung up), `timeout` passes or `wake` is
    /// signalled, in one `ppoll(2)` on both (retried on EINTR with the time left). Reads nothing.
    /// Returns whether input (or a hang-up, which the next read reports) ended the wait.
    func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
        let fd = try acquire()
        defer { relinquish() }
        switch waiter.wait(for: Platform.pollIn, on: fd, orWake: wake.descriptor, until: clock.now() + timeout) {
        case .failure(let e): throw .ioFailed(reason: "poll on \(name): \(e)")
        case .success(let outcome): return outcome.events != 0
        }
    }

    func write(_ bytes: [UInt8]) throws(TransportError) {
        let fd = try acquire()
        defer { relinquish() }
        let deadline = clock.now() + writeTimeout
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes {
                system.write(fd, from: UnsafeRawBufferPointer(rebasing: $0[offset...]), socket: isSocket)
            }
            switch result {
            case .success(let n): offset += n
            case .failure(.interrupted): continue
            case .failure(.wouldBlock):
                switch waiter.wait(for: Platform.pollOut, on: fd, until: deadline) {
                case .failure(let e): throw .ioFailed(reason: "poll on \(name): \(e)")
                case .success(0):
                    throw .ioFailed(
                        reason:
                            "write to \(name) timed out after \(writeTimeout): \(offset) of \(bytes.count) bytes taken")
                case .success(let r):
                    if r & Platform.pollOut == 0 && r & (Platform.pollHup | Platform.pollErr) != 0 {
                        throw .disconnected
                    }
                }
            case .failure(let e) where e.meansDisconnected: throw .disconnected
            case .failure(let e): throw .ioFailed(reason: "write to \(name): \(e)")
            }
        }
    }
}
