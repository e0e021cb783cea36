import Foundation
import ThrumPattern

/// Writes a command's output file, failing with a sentence that names the problem (a directory,
/// a missing parent directory, no permission) rather than a Foundation error code.
enum OutputFile {
    /// Writes `text` to `path` (replacing it atomically).
    /// - Parameter what: what the file holds, for the message (`CSV`, `SVG`).
    static func write(_ text: String, to path: String, what: String) throws(CommandFailure) {
        try checkDestination(path, what: what)
        let shown = TextEscaping.escaped(path)
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(message: "cannot write the \(what) to '\(shown)': \(reason(for: error))")
        }
    }

    /// Opens `path` for writing, created or truncated in place (never replaced: a device, a FIFO
    /// or the target of a symbolic link stays what it is), for a file written as things happen.
    static func handle(_ path: String, what: String) throws(CommandFailure) -> FileHandle {
        try checkDestination(path, what: what)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure(
                message: "cannot write the \(what) to '\(TextEscaping.escaped(path))': \(String(cString: strerror(errno)).lowercased())")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Appends `text` to `file` (opened with ``handle(_:what:)``), failing with the sentence
    /// of a write that did not succeed.
    static func write(_ text: String, to file: FileHandle, path: String, what: String) throws(CommandFailure) {
        do {
            try file.write(contentsOf: Data(text.utf8))
        } catch {
            throw CommandFailure(message: "cannot write the \(what) to '\(TextEscaping.escaped(path))': \(reason(for: error))")
        }
    }

    /// Fails, before anything runs, when `path` cannot take the file (a directory, a missing
    /// parent): a report written at the end of a run (`play --junit`) is checked at its start.
    static func checkWritable(_ path: String, what: String) throws(CommandFailure) {
        try checkDestination(path, what: what)
    }

    /// Fails with a sentence when `path` cannot take the file: a directory, a missing parent.
    private static func checkDestination(_ path: String, what: String) throws(CommandFailure) {
        let shown = TextEscaping.escaped(path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure(message: "cannot write the \(what) to '\(shown)': it is a directory; give a file name")
        }
        let parent = FilePathText.directory(of: path)
        if !parent.isEmpty {
            var parentIsDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: parent, isDirectory: &parentIsDirectory) {
                throw CommandFailure(message: "cannot write the \(what) to '\(shown)': the directory '\(TextEscaping.escaped(parent))' does not exist")
            }
            if !parentIsDirectory.boolValue {
                throw CommandFailure(message: "cannot write the \(what) to '\(shown)': '\(TextEscaping.escaped(parent))' is not a directory")
            }
        }
    }

    /// An output file written a piece at a time (a CSV of millions of rows), with the same
    /// checks and messages as `write(_:to:what:)`.
    struct Stream {
        private let handle: FileHandle
        private let path: String
        private let what: String
        private var buffer: [UInt8] = []

        /// Creates (or truncates) the file at `path`.
        init(path: String, what: String) throws(CommandFailure) {
            try OutputFile.checkDestination(path, what: what)
            self.path = path
            self.what = what
            do {
                try Data().write(to: URL(fileURLWithPath: path))
                handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure(message: "cannot write the \(what) to '\(TextEscaping.escaped(path))': \(OutputFile.reason(for: error))")
            }
            buffer.reserveCapacity(Self.flushSize)
        }

        private static let flushSize = 1 << 20

        /// Appends `text`.
        mutating func write(_ text: String) throws(CommandFailure) {
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= Self.flushSize { try flush() }
        }

        /// Writes what is buffered and closes the file.
        mutating func close() throws(CommandFailure) {
            try flush()
            do {
                try handle.close()
            } catch {
                throw failure(error)
            }
        }

        private mutating func flush() throws(CommandFailure) {
            guard !buffer.isEmpty else { return }
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                throw failure(error)
            }
            buffer.removeAll(keepingCapacity: true)
        }

        private func failure(_ error: Error) -> CommandFailure {
            CommandFailure(message: "cannot write the \(what) to '\(TextEscaping.escaped(path))': \(OutputFile.reason(for: error))")
        }
    }

    /// Refuses to write `output` (given as `--option`) when it is one of `inputs` (what they are,
    /// by path): the same file by its resolved path (symbolic links, `.` and `..` followed) or by
    /// device and inode (a hard link). A usage error naming both; nothing is written.
    static func refuseOverwriting(_ output: String, option: String, inputs: [(path: String, what: String)]) throws(UsageError) {
        for input in inputs where sameFile(output, input.path) {
            throw UsageError(
                message: "--\(option) \(TextEscaping.quotedExcerpt(output)) is the \(input.what) "
                    + "\(TextEscaping.quotedExcerpt(input.path)): writing it would overwrite the input; give another file name")
        }
    }

    /// Whether paths `a` and `b` name the same file.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        func resolved(_ p: String) -> String { URL(fileURLWithPath: p).resolvingSymlinksInPath().standardizedFileURL.path }
        if resolved(a) == resolved(b) { return true }
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// The operating system's reason inside a Foundation error, when there is one.
    static func reason(for error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code))).lowercased()
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))).lowercased() }
        switch ns.code {
        case NSFileWriteNoPermissionError: return "permission denied"
        case NSFileWriteOutOfSpaceError: return "no space left on device"
        case NSFileWriteVolumeReadOnlyError: return "the file system is read-only"
        default: return ns.localizedDescription
        }
    }
}
