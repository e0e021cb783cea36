import Foundation
import ThrumTime

@testable import ThrumLink

/// A `TermiosSystem` that performs nothing: it records every call, in order, and answers from
/// scripts the test sets up, so tests assert exact call sequences and inject errno values.
///
/// Unscripted calls succeed: `open` hands out descriptors from 10 up, `read` fails with EAGAIN,
/// `write` takes everything, `poll` times out.
final class RecordingTermiosSystem: TermiosSystem, @unchecked Sendable {
    /// One recorded call, with the arguments that matter.
    enum Call: Equatable, CustomStringConvertible {
        case open(String, flags: CInt)
        case close(CInt)
        case read(CInt, count: Int)
        case write(CInt, [UInt8], socket: Bool)
        /// The timeout as asked for, to the nanosecond.
        case poll(CInt, events: Int16, timeout: HostDuration)
        case getAttributes(CInt)
        /// `raw` is true when the attributes written have ICANON and ECHO clear and VMIN = VTIME = 0.
        case setAttributes(CInt, raw: Bool)
        case discardPending(CInt)
        case openMaster(flags: CInt)
        case grant(CInt)
        case unlock(CInt)
        case slavePath(CInt)
        case lockExclusively(CInt)
        case setTerminalExclusive(CInt)
        case clearTerminalExclusive(CInt)
        case processesHolding(String)
        case requestLowLatency(CInt)

        var description: String {
            switch self {
            case .open(let p, let f): return "open(\(p), \(f))"
            case .close(let fd): return "close(\(fd))"
            case .read(let fd, let n): return "read(\(fd), \(n))"
            case .write(let fd, let b, let s): return "write(\(fd), \(b), socket: \(s))"
            case .poll(let fd, let e, let t): return "poll(\(fd), \(e), \(t.nanoseconds)ns)"
            case .getAttributes(let fd): return "tcgetattr(\(fd))"
            case .setAttributes(let fd, let raw): return "tcsetattr(\(fd), raw: \(raw))"
            case .discardPending(let fd): return "tcflush(\(fd))"
            case .openMaster(let f): return "posix_openpt(\(f))"
            case .grant(let fd): return "grantpt(\(fd))"
            case .unlock(let fd): return "unlockpt(\(fd))"
            case .slavePath(let fd): return "ptsname_r(\(fd))"
            case .lockExclusively(let fd): return "flock(\(fd), LOCK_EX | LOCK_NB)"
            case .setTerminalExclusive(let fd): return "ioctl(\(fd), TIOCEXCL)"
            case .clearTerminalExclusive(let fd): return "ioctl(\(fd), TIOCNXCL)"
            case .processesHolding(let p): return "holders(\(p))"
            case .requestLowLatency(let fd): return "ioctl(\(fd), TIOCSSERIAL, ASYNC_LOW_LATENCY)"
            }
        }
    }

    private let lock = NSLock()
    private var recorded: [Call] = []
    private var nextDescriptor: CInt = 10

    var openResults: [Result<CInt, SystemErrno>] = []
    var readResults: [Result<[UInt8], SystemErrno>] = []
    /// How many bytes each `write` takes (clamped to what was offered), or its error.
    var writeResults: [Result<Int, SystemErrno>] = []
    var pollResults: [Result<Int16, SystemErrno>] = []
    /// The clock each `poll` moves on by the matching entry of ``pollElapsed`` (the time the wait
    /// took before it returned); by the whole timeout when it times out unscripted.
    var clock: ManualClock?
    /// How long each `poll` took, in call order; unscripted: the timeout of one that times out.
    var pollElapsed: [HostDuration] = []
    var getAttributesResults: [Result<Void, SystemErrno>] = []
    var setAttributesResults: [Result<Void, SystemErrno>] = []
    var masterResults: [Result<CInt, SystemErrno>] = []
    var unlockResults: [Result<Void, SystemErrno>] = []
    var slavePath = "/dev/pts/42"
    var lockResults: [Result<Void, SystemErrno>] = []
    var exclusiveResults: [Result<Void, SystemErrno>] = []
    /// What `processesHolding` answers.
    var holders: [String] = []

    /// The calls so far.
    var calls: [Call] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// Forgets the calls so far (after setting a transport up, to look at one operation).
    func resetCalls() {
        lock.lock()
        recorded.removeAll()
        lock.unlock()
    }

    private func record<T>(
        _ call: Call, _ script: ReferenceWritableKeyPath<RecordingTermiosSystem, [T]>, default value: () -> T
    ) -> T {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(call)
        if self[keyPath: script].isEmpty { return value() }
        return self[keyPath: script].removeFirst()
    }

    private func record(_ call: Call) {
        lock.lock()
        recorded.append(call)
        lock.unlock()
    }

    private func freshDescriptor() -> CInt {
        defer { nextDescriptor += 1 }
        return nextDescriptor
    }

    func open(_ path: String, flags: CInt) -> Result<CInt, SystemErrno> {
        record(.open(path, flags: flags), \.openResults) { .success(freshDescriptor()) }
    }

    func close(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.close(fd))
        return .success(())
    }

    func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemErrno> {
        let result = record(.read(fd, count: buffer.count), \.readResults) { .failure(.wouldBlock) }
        return result.map { bytes in
            let n = min(bytes.count, buffer.count)
            buffer.copyBytes(from: bytes.prefix(n))
            return n
        }
    }

    func write(_ fd: CInt, from buffer: UnsafeRawBufferPointer, socket: Bool) -> Result<Int, SystemErrno> {
        let result = record(.write(fd, Array(buffer), socket: socket), \.writeResults) { .success(buffer.count) }
        return result.map { min($0, buffer.count) }
    }

    /// The wait on a descriptor and a wake descriptor: recorded and scripted as ``poll(_:events:timeout:)`` (never woken).
    func poll(
        _ fd: CInt, events: Int16, orWake wake: CInt, timeout: HostDuration
    ) -> Result<(events: Int16, woken: Bool), SystemErrno> {
        poll(fd, events: events, timeout: timeout).map { ($0, false) }
    }

    func poll(_ fd: CInt, events: Int16, timeout: HostDuration) -> Result<Int16, SystemErrno> {
        let result = record(.poll(fd, events: events, timeout: timeout), \.pollResults) { .success(0) }
        if let clock {
            lock.lock()
            let elapsed = pollElapsed.isEmpty ? nil : pollElapsed.removeFirst()
            lock.unlock()
            if let elapsed {
                clock.advance(by: elapsed)
            } else if case .success(0) = result {
                clock.advance(by: timeout)
            }
        }
        return result
    }

    func getAttributes(_ fd: CInt) -> Result<TerminalAttributes, SystemErrno> {
        record(.getAttributes(fd), \.getAttributesResults) { .success(()) }.map {
            // A cooked terminal, as a fresh tty is.
            var attributes = TerminalAttributes()
            attributes.c_lflag = tcflag_t(ICANON | ECHO | ISIG)
            Platform.setNonCanonicalRead(&attributes, minimum: 1, time: 0)
            return attributes
        }
    }

    func setAttributes(_ fd: CInt, _ attributes: TerminalAttributes) -> Result<Void, SystemErrno> {
        let vmin = Platform.nonCanonicalRead(attributes)
        let raw = !Platform.isCanonicalOrEcho(attributes) && vmin.minimum == 0 && vmin.time == 0
        return record(.setAttributes(fd, raw: raw), \.setAttributesResults) { .success(()) }
    }

    func discardPending(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.discardPending(fd))
        return .success(())
    }

    func openPseudoTerminalMaster(flags: CInt) -> Result<CInt, SystemErrno> {
        record(.openMaster(flags: flags), \.masterResults) { .success(freshDescriptor()) }
    }

    func grantPseudoTerminal(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.grant(fd))
        return .success(())
    }

    func unlockPseudoTerminal(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.unlock(fd), \.unlockResults) { .success(()) }
    }

    func pseudoTerminalSlavePath(_ fd: CInt) -> Result<String, SystemErrno> {
        record(.slavePath(fd))
        return .success(slavePath)
    }

    func lockExclusively(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.lockExclusively(fd), \.lockResults) { .success(()) }
    }

    func setTerminalExclusive(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.setTerminalExclusive(fd), \.exclusiveResults) { .success(()) }
    }

    func clearTerminalExclusive(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.clearTerminalExclusive(fd))
        return .success(())
    }

    func requestLowLatency(_ fd: CInt) -> Result<Void, SystemErrno> {
        record(.requestLowLatency(fd))
        return .failure(.notATerminal)
    }

    func processesHolding(_ path: String) -> [String] {
        record(.processesHolding(path))
        return holders
    }
}
