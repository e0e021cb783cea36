import Foundation
import XCTest

/// Runs the `thrum` binary the way a user or a CI job would.
struct ThrumProcess {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `thrum arguments…` to completion and returns its exit status and output.
    /// `environment` adds to (or replaces entries of) this process's environment. Unless it sets
    /// XDG_CONFIG_HOME, the child gets a fresh scratch one (removed afterwards), so no test reads
    /// or writes the user's config directory (`thrum play` and `calibrate` keep calibrations there).
    /// `executable` and `directory`: another `thrum` (an installed one) and its working directory.
    static func run(
        _ arguments: [String], timeout: TimeInterval = 60, environment: [String: String] = [:], executable: URL? = nil,
        directory: URL? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = try executable ?? TestPaths.thrumBinary
        if let directory { process.currentDirectoryURL = directory }
        process.arguments = arguments
        var environment = environment
        var scratch: URL?
        if environment["XDG_CONFIG_HOME"] == nil {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-config-\(UUID().uuidString)")
            environment["XDG_CONFIG_HOME"] = url.path
            scratch = url
        }
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            XCTFail("thrum \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }
}

/// A `thrum sim` process serving the virtual device on a pseudo-terminal.
final class SimulatorProcess {
    let process = Process()
    /// The pseudo-terminal path it printed.
    let ptyPath: String
    private let output = Pipe()

    /// What the test writes to the simulator's standard input (`trigger N` lines).
    let input = Pipe()

    /// Starts `thrum sim` (`executable`: another `thrum`, run in `directory`) and waits for its
    /// `pty: PATH` line.
    init(arguments: [String] = [], executable: URL? = nil, directory: URL? = nil) throws {
        process.executableURL = try executable ?? TestPaths.thrumBinary
        if let directory { process.currentDirectoryURL = directory }
        process.arguments = ["sim"] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = Self.firstLine(of: output)
        guard text.hasPrefix("pty: ") else {
            process.terminate()
            throw SimulatorError(message: "thrum sim printed '\(text)' instead of 'pty: PATH'")
        }
        ptyPath = String(text.dropFirst(5))
    }

    /// The first line a child writes to `pipe` (its `pty: PATH`), read byte by byte so nothing
    /// after it is consumed; what came before end of file when there is no newline.
    static func firstLine(of pipe: Pipe) -> String {
        let handle = pipe.fileHandleForReading
        var line = Data()
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// What the simulator has printed since the last call (after its `pty:` line), without waiting.
    func availableOutput() -> String {
        let fd = output.fileHandleForReading.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4096) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit { stop() }

    struct SimulatorError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// `thrum sim --trace`'s CSV (`time_us,monotonic_ns,register,value`): the chip's register writes
/// on the host's monotonic clock, readable while the simulator still writes it.
enum SimulatorTrace {
    /// The RTP_INPUT writes so far (monotonic ns, value); none when the file is not there yet.
    /// The writes that start a drive burst: a nonzero RTP value after a zero one (or the first
    /// write). A transient's drive ramps up, holds and ramps down to zero; a later write of the
    /// same burst (its ramp-down tail, which can run into the next event's lead) is not a start.
    static func driveStarts(_ url: URL) -> [Int64] {
        var starts: [Int64] = []
        var previous = 0
        for write in rtpWrites(url) {
            if write.value > 0 && previous == 0 { starts.append(write.ns) }
            previous = write.value
        }
        return starts
    }

    static func rtpWrites(_ url: URL) -> [(ns: Int64, value: Int)] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { row in
            let f = row.split(separator: ",")
            guard f.count == 4, let ns = Int64(f[1]), f[2] == "2", let value = Int(f[3]) else { return nil }
            return (ns, value)
        }
    }
}

/// Any other program run to completion, its standard output and error together.
enum ChildProcess {
    struct Result {
        var status: Int32
        var output: String
    }

    /// `environment`: the child's whole environment (nil: this process's); `directory`: its
    /// working directory (nil: this process's).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: text)
    }

    /// `arguments` (a program's path first) run as nobody, in no group, with a bare environment:
    /// a user outside the groups a port belongs to. Needs root and setpriv.
    static func asNobody(_ arguments: [String]) throws -> Result {
        try run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"])
    }
}
