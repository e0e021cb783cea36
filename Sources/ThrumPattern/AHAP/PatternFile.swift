import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a pattern file's bytes, saying plainly why a path cannot be read: missing, a
/// directory, a FIFO or device (which would block or never end), no permission, too large.
enum PatternFile {
    /// The largest file the reader loads: 1 GiB (a million events take about 150 MB).
    static let maximumSize = 1 << 30

    /// Why reading failed: a sentence fragment to follow the path.
    struct Failure: Error {
        var reason: String
        var missing: Bool
    }

    /// The bytes of the regular file at `path`.
    static func bytes(at path: String) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(openFailure(errno)) }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(Failure(reason: describe(errno), missing: false)) }
        if let kind = nonRegularKind(info.st_mode) {
            return .failure(Failure(reason: "it is \(kind), not a regular file", missing: false))
        }
        let size = Int(info.st_size)
        guard size <= maximumSize else {
            return .failure(Failure(reason: "it is \(size) bytes; the reader accepts at most \(maximumSize) bytes (1 GiB)", missing: false))
        }
        // Not zero-filled first: `read` fills it (a 200 MB file: one pass over its pages, not two).
        var filled = 0
        var readFailure: CInt = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while filled < size {
                let n = read(fd, buffer.baseAddress! + filled, size - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    readFailure = errno
                    break
                }
                if n == 0 { break }
                filled += n
            }
            count = filled
        }
        if readFailure != 0 { return .failure(Failure(reason: describe(readFailure), missing: false)) }
        // Full as fstat said: the file may have grown since. Probe with a small
        // read (not by doubling the buffer, which would double the peak memory of a large file),
        // and read on, still bounded, only if there is more.
        while filled == size, bytes.count < maximumSize {
            var probe = [UInt8](repeating: 0, count: min(4096, maximumSize - bytes.count))
            let n = probe.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(reason: describe(errno), missing: false))
            }
            if n == 0 { break }
            bytes.append(contentsOf: probe[0..<n])
        }
        return .success(bytes)
    }

    private static func openFailure(_ code: CInt) -> Failure {
        switch code {
        case ENOENT: return Failure(reason: "no such file", missing: true)
        case ENOTDIR: return Failure(reason: "a component of the path is not a directory", missing: true)
        case EACCES, EPERM: return Failure(reason: "permission denied (the file is not readable by this user)", missing: false)
        case ELOOP: return Failure(reason: "too many levels of symbolic links", missing: false)
        case EISDIR: return Failure(reason: "it is a directory, not a file", missing: false)
        default: return Failure(reason: describe(code), missing: false)
        }
    }

    private static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    private static func describe(_ code: CInt) -> String {
        String(cString: strerror(code)).lowercased()
    }
}
