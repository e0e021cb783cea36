import CSerialPort
import ThrumTime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls behind the file-descriptor transports (pseudo-terminals and TCP), as one
/// seam: ``RealTermiosSystem`` calls the C library, and the tests substitute a fake that records
/// every call and injects errors.
///
/// Calls return `Result` and never retry; retrying on EINTR is the caller's decision, made
/// explicitly in one place (``DescriptorChannel``).
protocol TermiosSystem: Sendable {
    /// `open(2)`.
    func open(_ path: String, flags: CInt) -> Result<CInt, SystemErrno>
    /// `close(2)`.
    func close(_ fd: CInt) -> Result<Void, SystemErrno>
    /// `read(2)` into `buffer`; returns the byte count (0 at end of file).
    func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemErrno>
    /// `write(2)` (or `send(2)` without SIGPIPE when `socket` is true); returns the count taken.
    func write(_ fd: CInt, from buffer: UnsafeRawBufferPointer, socket: Bool) -> Result<Int, SystemErrno>
    /// Waits for `events` on one descriptor for at most `timeout` (``Platform/waitForEvents(_:timeout:)``:
    /// `ppoll(2)` to the nanosecond on Linux, `poll(2)` in whole milliseconds rounded up where
    /// there is no `ppoll`); a zero timeout does not wait, and a negative `fd` only waits. Returns
    /// the returned events (empty on timeout).
    func poll(_ fd: CInt, events: Int16, timeout: HostDuration) -> Result<Int16, SystemErrno>
    /// ``poll(_:events:timeout:)`` on `fd` and, together, on the wake descriptor `wake` for
    /// POLLIN: returns `fd`'s events and whether `wake` is readable (empty and false on timeout).
    func poll(
        _ fd: CInt, events: Int16, orWake wake: CInt, timeout: HostDuration
    ) -> Result<(events: Int16, woken: Bool), SystemErrno>
    /// `tcgetattr(3)`.
    func getAttributes(_ fd: CInt) -> Result<TerminalAttributes, SystemErrno>
    /// `tcsetattr(3)` with `TCSANOW`.
    func setAttributes(_ fd: CInt, _ attributes: TerminalAttributes) -> Result<Void, SystemErrno>
    /// `tcflush(3)` with `TCIOFLUSH`: drops bytes queued in either direction.
    func discardPending(_ fd: CInt) -> Result<Void, SystemErrno>
    /// `posix_openpt(3)`: a new pty master.
    func openPseudoTerminalMaster(flags: CInt) -> Result<CInt, SystemErrno>
    /// `grantpt(3)`.
    func grantPseudoTerminal(_ fd: CInt) -> Result<Void, SystemErrno>
    /// `unlockpt(3)`.
    func unlockPseudoTerminal(_ fd: CInt) -> Result<Void, SystemErrno>
    /// `ptsname_r(3)`.
    func pseudoTerminalSlavePath(_ fd: CInt) -> Result<String, SystemErrno>
    /// `flock(fd, LOCK_EX | LOCK_NB)`: fails with EWOULDBLOCK while another descriptor holds it.
    func lockExclusively(_ fd: CInt) -> Result<Void, SystemErrno>
    /// `ioctl(fd, TIOCEXCL)`: later `open(2)`s of the terminal fail with EBUSY (root excepted).
    func setTerminalExclusive(_ fd: CInt) -> Result<Void, SystemErrno>
    /// `ioctl(fd, TIOCNXCL)`: lifts TIOCEXCL before the descriptor is closed.
    func clearTerminalExclusive(_ fd: CInt) -> Result<Void, SystemErrno>
    /// The other processes that have `path` open, as `PID 1234 (name)` (empty when none can be
    /// found: Linux reads `/proc/*/fd`; elsewhere nothing is known).
    func processesHolding(_ path: String) -> [String]
    /// Asks the serial driver for low latency (`ASYNC_LOW_LATENCY` through TIOCSSERIAL, Linux):
    /// an FTDI bridge's latency timer goes from 16 ms to 1 ms. Fails on a terminal without serial
    /// settings (a pseudo-terminal: ENOTTY) and where the flag does not exist.
    func requestLowLatency(_ fd: CInt) -> Result<Void, SystemErrno>
}

extension TermiosSystem {
    /// `cfmakeraw(3)` plus VMIN = 0, VTIME = 0, CLOCAL and CREAD, applied with `tcgetattr` and
    /// `tcsetattr`. Pure apart from those two calls, so the fake sees exactly them.
    func makeRaw(_ fd: CInt) -> Result<Void, SystemErrno> {
        switch getAttributes(fd) {
        case .failure(let e): return .failure(e)
        case .success(var attributes):
            cfmakeraw(&attributes)
            Platform.enableReceiverIgnoringModem(&attributes)
            Platform.setNonCanonicalRead(&attributes, minimum: 0, time: 0)
            return setAttributes(fd, attributes)
        }
    }
}

/// The C library behind ``TermiosSystem``.
struct RealTermiosSystem: TermiosSystem {
    func open(_ path: String, flags: CInt) -> Result<CInt, SystemErrno> {
        let fd = path.withCString { systemOpen($0, flags | Platform.closeOnExec) }
        return fd < 0 ? .failure(.current) : .success(fd)
    }

    func close(_ fd: CInt) -> Result<Void, SystemErrno> {
        systemClose(fd) == 0 ? .success(()) : .failure(.current)
    }

    func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemErrno> {
        let n = systemRead(fd, buffer.baseAddress, buffer.count)
        return n < 0 ? .failure(.current) : .success(n)
    }

    func write(_ fd: CInt, from buffer: UnsafeRawBufferPointer, socket: Bool) -> Result<Int, SystemErrno> {
        let n =
            socket
            ? send(fd, buffer.baseAddress, buffer.count, Platform.sendFlags)
            : systemWrite(fd, buffer.baseAddress, buffer.count)
        return n < 0 ? .failure(.current) : .success(n)
    }

    func poll(_ fd: CInt, events: Int16, timeout: HostDuration) -> Result<Int16, SystemErrno> {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let n = Platform.waitForEvents(&entry, timeout: timeout)
        if n < 0 { return .failure(.current) }
        return .success(n == 0 ? 0 : entry.revents)
    }

    func poll(
        _ fd: CInt, events: Int16, orWake wake: CInt, timeout: HostDuration
    ) -> Result<(events: Int16, woken: Bool), SystemErrno> {
        var entries = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let n = Platform.waitForEvents(&entries, timeout: timeout)
        if n < 0 { return .failure(.current) }
        if n == 0 { return .success((0, false)) }
        return .success((entries[0].revents, entries[1].revents != 0))
    }

    func getAttributes(_ fd: CInt) -> Result<TerminalAttributes, SystemErrno> {
        var attributes = TerminalAttributes()
        return tcgetattr(fd, &attributes) == 0 ? .success(attributes) : .failure(.current)
    }

    func setAttributes(_ fd: CInt, _ attributes: TerminalAttributes) -> Result<Void, SystemErrno> {
        var copy = attributes
        return tcsetattr(fd, Platform.setNow, &copy) == 0 ? .success(()) : .failure(.current)
    }

    func discardPending(_ fd: CInt) -> Result<Void, SystemErrno> {
        tcflush(fd, TCIOFLUSH) == 0 ? .success(()) : .failure(.current)
    }

    func openPseudoTerminalMaster(flags: CInt) -> Result<CInt, SystemErrno> {
        let fd = thrum_posix_openpt(flags)
        return fd < 0 ? .failure(.current) : .success(fd)
    }

    func grantPseudoTerminal(_ fd: CInt) -> Result<Void, SystemErrno> {
        thrum_grantpt(fd) == 0 ? .success(()) : .failure(.current)
    }

    func unlockPseudoTerminal(_ fd: CInt) -> Result<Void, SystemErrno> {
        thrum_unlockpt(fd) == 0 ? .success(()) : .failure(.current)
    }

    func pseudoTerminalSlavePath(_ fd: CInt) -> Result<String, SystemErrno> {
        Platform.slavePath(ofMaster: fd)
    }

    func lockExclusively(_ fd: CInt) -> Result<Void, SystemErrno> {
        thrum_lock_exclusive(fd) == 0 ? .success(()) : .failure(.current)
    }

    func setTerminalExclusive(_ fd: CInt) -> Result<Void, SystemErrno> {
        thrum_set_terminal_exclusive(fd) == 0 ? .success(()) : .failure(.current)
    }

    func clearTerminalExclusive(_ fd: CInt) -> Result<Void, SystemErrno> {
        thrum_clear_terminal_exclusive(fd) == 0 ? .success(()) : .failure(.current)
    }

    func processesHolding(_ path: String) -> [String] {
        Platform.processesHolding(path)
    }

    func requestLowLatency(_ fd: CInt) -> Result<Void, SystemErrno> {
        thrum_request_low_latency(fd) == 0 ? .success(()) : .failure(.current)
    }
}

extension TermiosSystem {
    /// Claims an open terminal for this process alone: the advisory lock (every Thrum opener
    /// takes it, root included), then TIOCEXCL (which stops other programs opening it). On
    /// failure the descriptor is closed and the error says who holds the port, when known.
    func claimExclusively(_ fd: CInt, path: String) -> Result<Void, TransportError> {
        switch lockExclusively(fd) {
        case .success: break
        case .failure(let e) where e == .wouldBlock || e == .busy:
            _ = close(fd)
            return .failure(.busy(path: path, holder: holderText(path)))
        case .failure(let e):
            _ = close(fd)
            return .failure(.openFailed(path: path, reason: "cannot lock the port: \(e)"))
        }
        // TIOCEXCL is a second line for programs that do not lock; a terminal that refuses it is
        // still ours through the lock.
        _ = setTerminalExclusive(fd)
        return .success(())
    }

    /// `PID 1234 (thrum), PID 99 (screen)`, or nil when nobody can be named.
    func holderText(_ path: String) -> String? {
        let holders = processesHolding(path)
        return holders.isEmpty ? nil : "held by " + holders.joined(separator: ", ")
    }
}
