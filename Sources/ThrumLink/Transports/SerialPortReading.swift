import ThrumTime

/// The wait of ``SerialPortTransport/read(maxCount:timeout:)``, apart from libserialport so that
/// tests drive it through a fake ``TermiosSystem``: wait on the port's descriptor
/// (`sp_get_port_handle`) with ``DescriptorWait`` for exactly the time left, then take what is
/// there (`sp_nonblocking_read`). `sp_blocking_read_next` did the same with `poll(2)` and a timeout
/// in whole milliseconds, so a frame due in 200 µs waited for the next millisecond.
///
/// The outcomes are libserialport's: bytes as soon as any arrive; nothing once the timeout passes;
/// the read's own error. What follows an empty wait is the transport's as before: a port whose
/// device node has gone is ``TransportError/disconnected``. One difference, on purpose: a
/// hung-up terminal that still has its node (reads of 0 bytes with POLLHUP) made
/// `sp_blocking_read_next` spin on `poll` until the timeout; here it sleeps until then.
enum SerialPortReading {
    /// Reads from the port whose descriptor is `handle`, waiting up to `timeout` for the first
    /// byte; returns the count `readNow` took (0 when the timeout passed with nothing).
    /// - Parameters:
    ///   - handle: The port's descriptor (`sp_get_port_handle`).
    ///   - timeout: How long to wait; zero or less reads once without waiting.
    ///   - waiter: The wait on the descriptor and the clock of the deadline.
    ///   - name: The port's name, for error messages.
    ///   - readNow: Takes what is queued without waiting (`sp_nonblocking_read`): the count, 0 when
    ///     nothing is there.
    ///   - nodeExists: Whether the port's device node is still there.
    static func read(
        handle: CInt, timeout: HostDuration, waiter: DescriptorWait, name: String,
        readNow: () -> Result<Int, TransportError>, nodeExists: () -> Bool
    ) throws(TransportError) -> Int {
        if timeout.nanoseconds <= 0 { return try readNow().get() }
        let deadline = waiter.clock.now() + timeout
        while true {
            let revents: Int16
            switch waiter.wait(for: Platform.pollIn, on: handle, until: deadline) {
            case .failure(let e) where e.meansDisconnected: throw .disconnected
            case .failure(let e): throw .ioFailed(reason: "poll on \(name): \(e)")
            case .success(let r): revents = r
            }
            if revents == 0 { break }
            if revents & Platform.pollNval != 0 { throw .ioFailed(reason: "poll on \(name): descriptor not open") }
            let count = try readNow().get()
            if count > 0 { return count }
            if revents & (Platform.pollHup | Platform.pollErr) != 0 {
                // Hung up with nothing to read: gone if its node went, else nothing until the timeout.
                if !nodeExists() { throw .disconnected }
                waiter.sleep(until: deadline)
                break
            }
            // A spurious wake-up: wait again for what is left of the timeout.
            if waiter.clock.now() >= deadline { break }
        }
        // A hung-up tty reads as empty rather than failing; an unplugged USB adapter also loses
        // its device node, which is how we tell the two apart.
        if !nodeExists() { throw .disconnected }
        return 0
    }
}
