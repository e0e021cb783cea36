// Every difference between Linux (Glibc) and Darwin that the transports care about lives in this
// file, so the transports themselves read the same on both systems.
import CSerialPort
import ThrumTime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The platform's `struct termios`, named for what it holds.
typealias TerminalAttributes = termios

/// Why ``Platform/connectTCP(host:port:timeoutMilliseconds:)`` failed.
enum TCPConnectFailure: Error {
    /// `getaddrinfo` failed; its message.
    case unresolved(String)
    /// Every address refused or timed out; the last errno.
    case connect(SystemErrno)
}

enum Platform {
    /// `open(2)` flags for a terminal: read and write, never become the controlling terminal,
    /// never block (we wait with `poll(2)` instead).
    static let terminalOpenFlags: CInt = O_RDWR | O_NOCTTY | O_NONBLOCK
    /// `O_CLOEXEC`, so ports do not leak into child processes.
    static let closeOnExec: CInt = O_CLOEXEC

    static let pollIn = Int16(POLLIN)
    static let pollOut = Int16(POLLOUT)
    static let pollErr = Int16(POLLERR)
    static let pollHup = Int16(POLLHUP)
    static let pollNval = Int16(POLLNVAL)

    /// Sets VMIN and VTIME: with both zero a `read(2)` returns at once with what is queued.
    static func setNonCanonicalRead(_ attributes: inout TerminalAttributes, minimum: UInt8, time: UInt8) {
        withUnsafeMutableBytes(of: &attributes.c_cc) { cc in
            cc[Int(VMIN)] = minimum
            cc[Int(VTIME)] = time
        }
    }

    /// Reads VMIN and VTIME back (for tests of the raw-mode setup).
    static func nonCanonicalRead(_ attributes: TerminalAttributes) -> (minimum: UInt8, time: UInt8) {
        withUnsafeBytes(of: attributes.c_cc) { cc in (cc[Int(VMIN)], cc[Int(VTIME)]) }
    }

    /// Whether the local-mode flags still ask for canonical input or echo (raw mode clears both).
    static func isCanonicalOrEcho(_ attributes: TerminalAttributes) -> Bool {
        (attributes.c_lflag & tcflag_t(ICANON | ECHO)) != 0
    }

    /// Also ignore modem control lines and enable the receiver, as a serial device needs.
    static func enableReceiverIgnoringModem(_ attributes: inout TerminalAttributes) {
        attributes.c_cflag |= tcflag_t(CLOCAL | CREAD)
    }

    static let setNow: CInt = TCSANOW

    /// Flags for `posix_openpt(3)`. Linux passes them to `open("/dev/ptmx")`, so the master can be
    /// non-blocking and close-on-exec from the start; Darwin accepts only O_RDWR | O_NOCTTY.
    #if os(Linux)
    static let pseudoTerminalMasterFlags: CInt = O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC
    #else
    static let pseudoTerminalMasterFlags: CInt = O_RDWR | O_NOCTTY
    #endif

    /// `ptsname_r(3)`: the slave path of a pty master.
    static func slavePath(ofMaster fd: CInt) -> Result<String, SystemErrno> {
        var buffer = [CChar](repeating: 0, count: 128)
        let rc = thrum_ptsname_r(fd, &buffer, buffer.count)
        if rc != 0 { return .failure(SystemErrno(rc == -1 ? errno : rc)) }
        return .success(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Whether a resolved device path names a pseudo-terminal's slave side.
    ///
    /// Linux: `/dev/pts/N`, or any character device with no `/sys/class/tty/<name>` entry (a
    /// real UART or USB-serial adapter always has one). Darwin: `/dev/ttysNNN`.
    static func looksLikePseudoTerminal(resolvedPath path: String, fileExists: (String) -> Bool) -> Bool {
        #if os(Linux)
        if path.hasPrefix("/dev/pts/") { return true }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return !fileExists("/sys/class/tty/\(name)")
        #else
        if path.hasPrefix("/dev/ttys") { return true }
        return path.hasPrefix("/dev/pty")
        #endif
    }

    /// Whether anything exists at `path` (`lstat(2)`; a dangling symlink counts, so the open
    /// reports why it fails).
    static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// `realpath(3)`, or `path` itself when it cannot be resolved.
    static func resolve(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The processes other than this one with `path` open, as `PID 1234 (name)`: on Linux from
    /// `/proc/*/fd` (readable for one's own processes, all of them as root); elsewhere none.
    static func processesHolding(_ path: String) -> [String] {
        #if os(Linux)
        let lockers = processesLocking(path)
        if !lockers.isEmpty { return lockers }
        return PortInspection().holders(of: path).map(\.description)
        #else
        return []
        #endif
    }

    #if os(Linux)
    /// The processes holding a `flock` on `path`, from `/proc/locks` (`1: FLOCK ADVISORY WRITE
    /// 1234 00:19:4 0 EOF`: the PID, then the device as major:minor and the inode, in hex).
    static func processesLocking(_ path: String) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0, let file = fopen("/proc/locks", "r") else { return [] }
        defer { fclose(file) }
        let major = String(UInt32((info.st_dev >> 8) & 0xFFF), radix: 16), minor = String(UInt32((info.st_dev & 0xFF) | ((info.st_dev >> 12) & 0xFFF00)), radix: 16)
        var found: [String] = []
        var buffer = [CChar](repeating: 0, count: 512)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            // "1:", "FLOCK", "ADVISORY", "WRITE", pid, "maj:min:inode", start, end
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { continue }
            let id = fields[5].split(separator: ":").map(String.init)
            guard id.count == 3, UInt64(id[2]) == UInt64(info.st_ino),
                UInt32(id[0], radix: 16).map({ String($0, radix: 16) }) == major,
                UInt32(id[1], radix: 16).map({ String($0, radix: 16) }) == minor
            else { continue }
            if pid != getpid() { found.append(describeProcess(pid)) }
        }
        return found.sorted()
    }

    /// `PID 1234 (name)` from `/proc/PID/comm`, or `PID 1234`.
    static func describeProcess(_ pid: Int32) -> String {
        PortHolder(pid: pid, command: PortInspection().command(of: pid), servesPseudoTerminals: false, locks: true).description
    }
    #endif

    /// Whether ``waitForEvents(_:timeout:)`` waits to the nanosecond (`ppoll(2)`, Linux) rather
    /// than to the next whole millisecond (`poll(2)`, Darwin, which has no `ppoll`).
    #if os(Linux)
    static let waitsBelowAMillisecond = true
    #else
    static let waitsBelowAMillisecond = false
    #endif

    /// Waits until `entry`'s descriptor has one of its events, or `timeout` has passed: `ppoll(2)`
    /// with a `timespec` on Linux (the kernel's timer slack, 50 µs by default, is the only
    /// rounding), `poll(2)` elsewhere with the timeout rounded up to whole milliseconds so that a
    /// short wait still waits. A zero or negative timeout does not wait. A negative descriptor
    /// has no events: the call then only waits. Returns what the call returns (-1 with `errno`).
    static func waitForEvents(_ entry: inout pollfd, timeout: HostDuration) -> CInt {
        let nanoseconds = max(timeout.nanoseconds, 0)
        #if os(Linux)
        return thrum_ppoll_one(&entry, Int64(nanoseconds / 1_000_000_000), Int(nanoseconds % 1_000_000_000))
        #else
        return systemPoll(&entry, 1, pollMilliseconds(timeout))
        #endif
    }

    /// ``waitForEvents(_:timeout:)`` on several descriptors at once (a transport's and a wake
    /// descriptor). Returns what the call returns (-1 with `errno`); the events are in `entries`.
    static func waitForEvents(_ entries: inout [pollfd], timeout: HostDuration) -> CInt {
        let nanoseconds = max(timeout.nanoseconds, 0)
        let count = entries.count
        return entries.withUnsafeMutableBufferPointer { buffer in
            #if os(Linux)
            return thrum_ppoll_many(
                buffer.baseAddress, UInt(count), Int64(nanoseconds / 1_000_000_000),
                Int(nanoseconds % 1_000_000_000))
            #else
            return systemPoll(buffer.baseAddress!, nfds_t(count), pollMilliseconds(timeout))
            #endif
        }
    }

    /// `timeout` in whole milliseconds for `poll(2)`, rounded up (a positive timeout below 1 ms
    /// is 1 ms, not a busy poll), clamped to `CInt`.
    static func pollMilliseconds(_ timeout: HostDuration) -> CInt {
        let ns = timeout.nanoseconds
        if ns <= 0 { return 0 }
        return CInt(clamping: ns / 1_000_000 + (ns % 1_000_000 == 0 ? 0 : 1))
    }

    /// `SOCK_STREAM`, whose type differs between Glibc (an enum) and Darwin (an int).
    #if canImport(Glibc)
    static let streamSocket = CInt(SOCK_STREAM.rawValue)
    /// `send(2)` flags that turn SIGPIPE on a closed peer into EPIPE.
    static let sendFlags = CInt(MSG_NOSIGNAL)
    #else
    static let streamSocket = SOCK_STREAM
    static let sendFlags: CInt = 0
    #endif

    /// Resolves `host` (`getaddrinfo(3)`) and connects a non-blocking TCP socket to the first
    /// address that answers within `timeoutMilliseconds` (`socket`, `fcntl(O_NONBLOCK)`,
    /// `connect`, `poll`, `getsockopt(SO_ERROR)`), with TCP_NODELAY set and SIGPIPE suppressed.
    static func connectTCP(host: String, port: Int, timeoutMilliseconds: CInt) -> Result<CInt, TCPConnectFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(host, String(port), &hints, &list)
        if rc != 0 { return .failure(.unresolved(String(cString: gai_strerror(rc)))) }
        defer { freeaddrinfo(list) }
        var lastError = SystemErrno.connectionRefused
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
            if fd < 0 {
                lastError = .current
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: CInt = 1
            _ = setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
            suppressSigPipe(fd)
            var result = connect(fd, info.ai_addr, info.ai_addrlen)
            if result != 0 && errno == EINPROGRESS {
                var entry = pollfd(fd: fd, events: pollOut, revents: 0)
                var ready: CInt
                repeat { ready = systemPoll(&entry, 1, timeoutMilliseconds) } while ready < 0 && errno == EINTR
                if ready == 0 {
                    errno = ETIMEDOUT
                } else if ready > 0 {
                    var soError: CInt = 0
                    var length = socklen_t(MemoryLayout<CInt>.size)
                    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                    if soError == 0 { result = 0 } else { errno = soError }
                }
            }
            if result == 0 { return .success(fd) }
            lastError = .current
            _ = systemClose(fd)
        }
        return .failure(.connect(lastError))
    }

    /// Darwin has no MSG_NOSIGNAL; the socket option SO_NOSIGPIPE does the same per socket.
    static func suppressSigPipe(_ fd: CInt) {
        #if canImport(Darwin)
        var one: CInt = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<CInt>.size))
        #endif
    }
}

// Free-function aliases so `RealTermiosSystem`'s methods, which share the C names, can reach the
// C functions.
func systemOpen(_ path: UnsafePointer<CChar>, _ flags: CInt) -> CInt {
    #if canImport(Glibc)
    Glibc.open(path, flags)
    #else
    Darwin.open(path, flags)
    #endif
}
func systemClose(_ fd: CInt) -> CInt {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
func systemRead(_ fd: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
    #else
    Darwin.read(fd, buffer, count)
    #endif
}
func systemWrite(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
func systemPoll(_ fds: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeout: CInt) -> CInt {
    #if canImport(Glibc)
    Glibc.poll(fds, count, timeout)
    #else
    Darwin.poll(fds, count, timeout)
    #endif
}
