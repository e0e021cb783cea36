import CSerialPort
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's standard streams and signals, set up before a command runs and settled after it.
enum ProcessStreams {
    /// SIGQUIT (Ctrl-\) ends the process the default way. The Swift runtime's backtracer would
    /// otherwise take it as a crash: print "Program crashed" with a backtrace, and carry on.
    /// (`thrum play` handles it as it does SIGINT and SIGTERM: ``Interrupt``.)
    static func prepare() {
        signal(SIGQUIT, SIG_DFL)
    }

    /// The failure of a command whose standard output cannot be written (`error` from a
    /// `FileHandle` write): `cannot write to standard output: no space left on device`.
    static func standardOutputFailure(_ error: any Error) -> CommandFailure {
        CommandFailure(message: "cannot write to standard output: \(OutputFile.reason(for: error))")
    }

    /// Writes `text` on standard output at once (after what `print` left buffered), failing with
    /// the reason when it cannot be written: for an output that is one large text (the man page,
    /// a completion script), whose failed write would otherwise leave no reason behind (stdio's
    /// error flag keeps none) and be reported as only "a write failed".
    static func write(_ text: String) throws(CommandFailure) {
        fflush(thrum_standard_output())
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            throw standardOutputFailure(error)
        }
    }

    /// Flushes standard output and fails when it could not be written: for a command that serves
    /// until stopped (`sim`, `studio`), whose first lines (the pseudo-terminal, the URL) are what
    /// its user needs, so it stops at once rather than serve unseen.
    static func requireFlushed() throws(CommandFailure) {
        errno = 0
        let output = thrum_standard_output()
        let flushed = fflush(output) == 0
        let code = errno
        guard !flushed || ferror(output) != 0 else { return }
        let reason = code != 0 ? String(cString: strerror(code)).lowercased() : "a write failed"
        clearerr(output)
        throw CommandFailure(message: "cannot write to standard output: \(reason)")
    }

    /// Flushes standard output (`fflush`) and checks it for a failed write (`ferror`: a full
    /// disk, `/dev/full`, a closed file): then one line on standard error and exit status 1 (a
    /// command that failed already keeps its own status); `status` otherwise.
    static func finish(status: Int32) -> Int32 {
        errno = 0
        let output = thrum_standard_output()
        let flushed = fflush(output) == 0
        let code = errno
        guard !flushed || ferror(output) != 0 else { return status }
        let reason = code != 0 ? String(cString: strerror(code)).lowercased() : "a write failed"
        printError("cannot write to standard output: \(reason)")
        return status == 0 ? 1 : status
    }
}
