import CSerialPort
import Foundation
import ThrumTime

/// A byte transport over a real serial port (a UART, a USB-serial adapter, a Bluetooth serial
/// port) through libserialport, configured 8N1 at a chosen baud rate with no flow control.
///
/// libserialport cannot open pseudo-terminals: `sp_get_port_by_name` looks the device up under
/// `/sys/class/tty` (a pty has no entry, so it returns SP_ERR_ARG), and `sp_open` would then read
/// the modem lines with the `TIOCMGET` ioctl, which a pty rejects with ENOTTY. Opening
/// `/dev/pts/N` here therefore fails with ``TransportError/openFailed(path:reason:)``. Use ``PseudoTerminalTransport`` for ptys, or let
/// ``openTransport(path:baud:)`` choose.
///
/// Thread safety: one reader and one writer may run at once; ``close()`` may come from any
/// thread and takes effect once the calls in flight return.
public final class SerialPortTransport: ByteTransport, @unchecked Sendable {
    /// The port name that was opened, e.g. `/dev/ttyACM0`.
    public let endpointName: String
    /// The baud rate the port was configured with.
    public let baudRate: Int
    /// The time a byte takes on the UART behind the port, µs, when the port is one (a native
    /// UART or a known USB-serial bridge, ``UartLine``); nil for a USB CDC device.
    public let lineByteTime: Double?
    /// Whether the port is an FTDI bridge whose driver took the request for low latency: its
    /// latency timer is then 1 ms instead of the factory 16 ms (Linux `ftdi_sio`; the setting
    /// stays with the port until it is unplugged). False on every other port, and where the
    /// driver refused it.
    public let latencyTimerLowered: Bool
    /// How long ``write(_:)`` waits for the operating system to take all bytes.
    public let writeTimeout: HostDuration

    private let port: OpaquePointer
    /// The port's descriptor (`sp_get_port_handle`), which reads wait on; -1 when libserialport
    /// gives none (reads then wait in `sp_blocking_read_next`, to the millisecond).
    fileprivate let handle: CInt
    /// The waits on ``handle``: `ppoll(2)` to the nanosecond on Linux, on the monotonic clock.
    fileprivate let waiter = DescriptorWait(system: RealTermiosSystem(), clock: MonotonicClock())
    private let lock = NSLock()
    private var inFlight = 0
    private var closeRequested = false
    private var released = false

    /// Opens a serial port by name (`sp_get_port_by_name`, `sp_open`), claims it exclusively
    /// (`flock(LOCK_EX | LOCK_NB)` and `ioctl(TIOCEXCL)` on its descriptor), configures it 8N1 at
    /// `baud` with no flow control (`sp_set_config_*`, `sp_set_config`), then drops stale input
    /// and output (`sp_flush`).
    ///
    /// - Parameters:
    ///   - path: The port's device path, e.g. `/dev/ttyUSB0`.
    ///   - baud: The baud rate, e.g. 115200.
    ///   - writeTimeout: How long a write may wait for the driver to take bytes.
    /// - Throws: ``TransportError/notFound(path:)`` when no such path exists;
    ///   ``TransportError/openFailed(path:reason:)`` with libserialport's message
    ///   (`sp_last_error_message`) when it exists but cannot be opened;
    ///   ``TransportError/configurationFailed(path:reason:)`` when the line settings are refused.
    public init(path: String, baud: Int, writeTimeout: HostDuration = .seconds(5)) throws(TransportError) {
        guard Platform.fileExists(path) else { throw .notFound(path: path) }
        var found: OpaquePointer? = nil
        let lookup = sp_get_port_by_name(path, &found)
        guard lookup == SP_OK, let port = found else {
            // SP_ERR_ARG here means libserialport could not describe the device (no realpath or
            // no /sys/class/tty entry); it has no OS message to give.
            throw .openFailed(
                path: path, reason: Self.explain(Self.message(for: lookup, call: "sp_get_port_by_name"), path))
        }
        let opened = sp_open(port, SP_MODE_READ_WRITE)
        guard opened == SP_OK else {
            let busy = opened == SP_ERR_FAIL && sp_last_error_code() == EBUSY
            let reason = Self.explain(Self.message(for: opened, call: "sp_open"), path)
            sp_free_port(port)
            if busy { throw .busy(path: path, holder: RealTermiosSystem().holderText(path)) }
            throw .openFailed(path: path, reason: reason)
        }
        var handle: CInt = -1
        if sp_get_port_handle(port, &handle) == SP_OK, handle >= 0 {
            // The same claim as the pty transport: flock, then TIOCEXCL.
            let system = RealTermiosSystem()
            switch system.lockExclusively(handle) {
            case .success:
                _ = system.setTerminalExclusive(handle)
            case .failure(let e):
                sp_close(port)
                sp_free_port(port)
                if e == .wouldBlock || e == .busy { throw .busy(path: path, holder: system.holderText(path)) }
                throw .openFailed(path: path, reason: "cannot lock the port: \(e)")
            }
        }
        if let reason = Self.configure(port, baud: baud) {
            sp_close(port)
            sp_free_port(port)
            throw .configurationFailed(path: path, reason: reason)
        }
        let info = SerialPortEnumeration.info(of: port)
        // Behind an FTDI bridge a reply waits in the chip for its latency timer (16 ms from the
        // factory): ask the driver for 1 ms, as robotics tools do.
        var lowered = false
        if UartLine.hasLatencyTimer(info), handle >= 0, case .success = RealTermiosSystem().requestLowLatency(handle) { lowered = true }
        self.latencyTimerLowered = lowered
        _ = sp_flush(port, SP_BUF_BOTH)
        self.port = port
        self.handle = handle >= 0 ? handle : -1
        self.endpointName = path
        self.baudRate = baud
        self.lineByteTime = UartLine.byteTime(of: info, baud: baud)
        self.writeTimeout = writeTimeout
    }

    deinit {
        if !released {
            sp_close(port)
            sp_free_port(port)
        }
    }

    /// Adds why a pseudo-terminal cannot work here, when `path` is one.
    private static func explain(_ reason: String, _ path: String) -> String {
        guard Platform.looksLikePseudoTerminal(resolvedPath: Platform.resolve(path), fileExists: Platform.fileExists)
        else { return reason }
        return reason
            + " (\(path) is a pseudo-terminal: libserialport needs a /sys/class/tty entry and the TIOCMGET ioctl,"
            + " which ptys lack; use PseudoTerminalTransport)"
    }

    /// 8 data bits, no parity, 1 stop bit, no flow control, at `baud`. Returns why it failed.
    private static func configure(_ port: OpaquePointer, baud: Int) -> String? {
        guard baud > 0, baud <= Int(CInt.max) else { return "invalid baud rate \(baud)" }
        var config: OpaquePointer? = nil
        guard sp_new_config(&config) == SP_OK, let config else { return "sp_new_config: out of memory" }
        defer { sp_free_config(config) }
        // Start from the port's current settings so fields we do not set keep sane values.
        let steps: [(String, () -> sp_return)] = [
            ("sp_get_config", { sp_get_config(port, config) }),
            ("sp_set_config_baudrate", { sp_set_config_baudrate(config, CInt(baud)) }),
            ("sp_set_config_bits", { sp_set_config_bits(config, 8) }),
            ("sp_set_config_parity", { sp_set_config_parity(config, SP_PARITY_NONE) }),
            ("sp_set_config_stopbits", { sp_set_config_stopbits(config, 1) }),
            ("sp_set_config_flowcontrol", { sp_set_config_flowcontrol(config, SP_FLOWCONTROL_NONE) }),
            ("sp_set_config", { sp_set_config(port, config) }),
        ]
        for (name, step) in steps {
            let result = step()
            if result != SP_OK { return message(for: result, call: name) }
        }
        return nil
    }

    /// Text for a libserialport result: the OS message (`sp_last_error_message`, released with
    /// `sp_free_error_message`) for SP_ERR_FAIL, a description of the code otherwise.
    static func message(for result: sp_return, call: String) -> String {
        switch result {
        case SP_ERR_FAIL:
            guard let raw = sp_last_error_message() else { return "\(call) failed" }
            defer { sp_free_error_message(raw) }
            return "\(call): \(String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines))"
        case SP_ERR_ARG: return "\(call): invalid argument or not a serial port"
        case SP_ERR_MEM: return "\(call): out of memory"
        case SP_ERR_SUPP: return "\(call): not supported on this port or system"
        default: return "\(call) returned \(result.rawValue)"
        }
    }

    /// Maps a failed read or write: an OS error meaning the device went away becomes
    /// ``TransportError/disconnected``.
    private static func ioError(_ result: sp_return, call: String) -> TransportError {
        if result == SP_ERR_FAIL, SystemErrno(sp_last_error_code()).meansDisconnected {
            return .disconnected
        }
        return .ioFailed(reason: message(for: result, call: call))
    }

    fileprivate func acquire() throws(TransportError) {
        lock.lock()
        defer { lock.unlock() }
        if closeRequested { throw .closed }
        inFlight += 1
    }

    fileprivate func relinquish() {
        lock.lock()
        inFlight -= 1
        let mustRelease = closeRequested && inFlight == 0 && !released
        if mustRelease { released = true }
        lock.unlock()
        if mustRelease { release() }
    }

    private func release() {
        sp_close(port)
        sp_free_port(port)
    }

    /// libserialport takes milliseconds, where 0 means "forever"; round up so a short positive
    /// timeout still waits.
    private static func milliseconds(_ d: HostDuration) -> UInt32 {
        if d.nanoseconds <= 0 { return 0 }
        return UInt32(clamping: (d.nanoseconds + 999_999) / 1_000_000)
    }

    /// Writes all of `bytes` with `sp_blocking_write`, waiting at most ``writeTimeout``.
    /// - Throws: ``TransportError/ioFailed(reason:)`` when the timeout passes first or the OS
    ///   fails; ``TransportError/disconnected`` when the device is gone.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        try acquire()
        defer { relinquish() }
        if bytes.isEmpty { return }
        let ms = max(1, Self.milliseconds(writeTimeout))
        let result = bytes.withUnsafeBytes { sp_blocking_write(port, $0.baseAddress, $0.count, ms) }
        if result.rawValue < 0 { throw Self.ioError(result, call: "sp_blocking_write") }
        if Int(result.rawValue) < bytes.count {
            throw .ioFailed(
                reason:
                    "write to \(endpointName) timed out after \(writeTimeout): \(result.rawValue) of \(bytes.count) bytes taken"
            )
        }
    }

    /// Returns what is available now, waiting up to `timeout` for the first byte: a wait on the
    /// port's descriptor for exactly that long (`ppoll(2)` on Linux, ``SerialPortReading``), then
    /// `sp_nonblocking_read`; a zero timeout only reads. Without a descriptor it falls back to
    /// `sp_blocking_read_next`, whose timeout is whole milliseconds (rounded up).
    /// - Throws: ``TransportError/disconnected`` when the device is gone (an OS error such as EIO,
    ///   or an empty wait after the device node disappeared),
    ///   ``TransportError/ioFailed(reason:)`` on other OS errors, ``TransportError/closed`` after
    ///   ``close()``.
    public func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
        try acquire()
        defer { relinquish() }
        if maxCount <= 0 { return [] }
        var bytes = [UInt8](repeating: 0, count: min(maxCount, DescriptorChannel.largestRead))
        if handle < 0 { return try readBlockingNext(into: &bytes, timeout: timeout) }
        let port = self.port
        let outcome = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(TransportError) -> Int in
                try SerialPortReading.read(
                    handle: handle, timeout: timeout, waiter: waiter, name: endpointName,
                    readNow: {
                        let result = sp_nonblocking_read(port, buffer.baseAddress, buffer.count)
                        if result.rawValue < 0 { return .failure(Self.ioError(result, call: "sp_nonblocking_read")) }
                        return .success(Int(result.rawValue))
                    },
                    nodeExists: { Platform.fileExists(endpointName) })
            }
        }
        let count = try outcome.get()
        bytes.removeSubrange(count...)
        return bytes
    }

    /// The read without a descriptor to wait on: `sp_blocking_read_next` (whole milliseconds).
    private func readBlockingNext(into bytes: inout [UInt8], timeout: HostDuration) throws(TransportError) -> [UInt8] {
        let ms = Self.milliseconds(timeout)
        let result = bytes.withUnsafeMutableBytes { buffer in
            ms == 0
                ? sp_nonblocking_read(port, buffer.baseAddress, buffer.count)
                : sp_blocking_read_next(port, buffer.baseAddress, buffer.count, ms)
        }
        if result.rawValue < 0 {
            throw Self.ioError(result, call: ms == 0 ? "sp_nonblocking_read" : "sp_blocking_read_next")
        }
        if result.rawValue == 0 && ms > 0 && !Platform.fileExists(endpointName) {
            // A hung-up tty reads as empty rather than failing; an unplugged USB adapter also
            // loses its device node, which is how we tell the two apart.
            throw .disconnected
        }
        bytes.removeSubrange(Int(result.rawValue)...)
        return bytes
    }

    /// Closes the port (`sp_close`, `sp_free_port`) once the calls in flight return.
    public func close() {
        lock.lock()
        let mustRelease = !closeRequested && inFlight == 0
        closeRequested = true
        if mustRelease { released = true }
        lock.unlock()
        if mustRelease { release() }
    }
}

extension SerialPortTransport: WakeableTransport {
    /// Whether the port has a descriptor to wait on (``WakeableTransport``).
    public var canWaitApart: Bool { handle >= 0 }

    /// Waits with one `ppoll(2)` on the port's descriptor and `wake` (``WakeableTransport``);
    /// without a descriptor (``canWaitApart`` false) it does not wait.
    public func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
        try acquire()
        defer { relinquish() }
        guard handle >= 0 else { return false }
        let deadline = waiter.clock.now() + timeout
        switch waiter.wait(for: Platform.pollIn, on: handle, orWake: wake.descriptor, until: deadline) {
        case .failure(let e) where e.meansDisconnected: throw .disconnected
        case .failure(let e): throw .ioFailed(reason: "poll on \(endpointName): \(e)")
        case .success(let outcome): return outcome.events != 0
        }
    }
}
