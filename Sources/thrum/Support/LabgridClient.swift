import Foundation

/// labgrid's command-line client (`labgrid-client`), the supported interface to a labgrid
/// coordinator: Thrum runs it rather than speaking the coordinator's gRPC protocol itself.
///
/// Where it is found, first hit wins: `THRUM_LABGRID_CLIENT` (a path), `labgrid-client` on
/// `PATH`, then the virtual environment tools/labgrid-venv.sh makes beside the build
/// (`.build/labgrid-venv/bin`, looked for in the directories above the `thrum` binary). The
/// coordinator and identity come from labgrid's own environment (`LG_COORDINATOR`,
/// `LG_USERNAME`, `LG_HOSTNAME`), which the client reads itself.
struct LabgridClient {
    /// The `labgrid-client` executable.
    let executable: String
    /// The environment it runs in (this process's).
    let environment: [String: String]

    /// What one run printed and how it ended.
    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// labgrid's one-line message (`labgrid-client: Error: …` without the prefix), or the
        /// last line of standard error.
        var message: String {
            let lines = standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            if let error = lines.last(where: { $0.contains("Error:") }) {
                return String(error[error.range(of: "Error:")!.upperBound...]).trimmingCharacters(in: .whitespaces)
            }
            return lines.last ?? "exit status \(status)"
        }
    }

    /// The coordinator the client talks to, as labgrid picks it (for messages).
    var coordinator: String { environment["LG_COORDINATOR"] ?? "127.0.0.1:20408 (labgrid's default; set LG_COORDINATOR)" }

    /// Finds `labgrid-client` (see the type's documentation).
    /// - Throws: `CommandFailure` saying where it was looked for.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LabgridClient {
        if let path = environment["THRUM_LABGRID_CLIENT"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw CommandFailure(message: "THRUM_LABGRID_CLIENT=\(path) is not an executable labgrid-client")
            }
            return LabgridClient(executable: path, environment: environment)
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(directory)/labgrid-client"
            if FileManager.default.isExecutableFile(atPath: path) { return LabgridClient(executable: path, environment: environment) }
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directory = URL(fileURLWithPath: own).deletingLastPathComponent()
        }
        while directory.path != "/" {
            for venv in ["labgrid-venv", ".build/labgrid-venv"] {
                let path = directory.appendingPathComponent("\(venv)/bin/labgrid-client").path
                if FileManager.default.isExecutableFile(atPath: path) { return LabgridClient(executable: path, environment: environment) }
            }
            directory = directory.deletingLastPathComponent()
        }
        throw CommandFailure(
            message: "--place needs labgrid's labgrid-client: not in THRUM_LABGRID_CLIENT, on PATH, or in the "
                + "build's labgrid-venv (make it with tools/labgrid-venv.sh, or pip install labgrid)")
    }

    /// Runs `labgrid-client ARGUMENTS…` to its end (at most `timeout`).
    func run(_ arguments: [String], timeout: TimeInterval = 60) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CommandFailure(message: "cannot run \(executable): \(error.localizedDescription)")
        }
        let group = DispatchGroup()
        let collected = Collected()
        for (pipe, isError) in [(out, false), (err, true)] {
            group.enter()
            DispatchQueue.global().async {
                collected.set(pipe.fileHandleForReading.readDataToEndOfFile(), isError: isError)
                group.leave()
            }
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            throw CommandFailure(
                message: "labgrid-client \(arguments.joined(separator: " ")) did not answer within \(Int(timeout)) s "
                    + "(coordinator \(coordinator))")
        }
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, standardOutput: String(decoding: collected.out, as: UTF8.self),
            standardError: String(decoding: collected.err, as: UTF8.self))
    }

    /// The two pipes' bytes, filled from two threads.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var out = Data()
        private(set) var err = Data()
        func set(_ data: Data, isError: Bool) {
            lock.withLock { if isError { err = data } else { out = data } }
        }
    }
}

/// What `labgrid-client` prints, read into what Thrum needs.
enum LabgridOutput {
    /// The serial port of a place, from `labgrid-client -p PLACE env` (the labgrid environment
    /// YAML of the acquired place): its `NetworkSerialPort`'s host, port, speed and protocol.
    struct SerialPort: Equatable {
        var host: String
        var port: Int?
        var speed: Int
        /// `rfc2217` (labgrid's default, and what an exported RawSerialPort or USBSerialPort
        /// serves) or `raw`.
        var protocolName: String
        /// The resource's name in its place: labgrid names an exported `RawSerialPort` or
        /// `USBSerialPort` after its class unless the exporter's config names it.
        var name: String? = nil

        /// Whether labgrid's exporter serves it through a ser2net it starts itself, with
        /// ser2net's default character delay (no way to configure it in labgrid 26).
        var servedByLabgridSer2net: Bool { name == "RawSerialPort" || name == "USBSerialPort" }

        /// The address Thrum opens: `rfc2217://host:port` or `tcp://host:port` (IPv6 in brackets).
        var url: String? {
            guard let port else { return nil }
            let host = self.host.contains(":") ? "[\(self.host)]" : self.host
            return "\(protocolName == "raw" ? "tcp" : "rfc2217")://\(host):\(port)"
        }
    }

    /// The first `NetworkSerialPort` in `env`'s YAML, nil when there is none.
    static func serialPort(inEnvironment yaml: String) -> SerialPort? {
        var fields: [String: String]?
        var indent = 0
        for raw in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let depth = line.prefix { $0 == " " }.count
            if fields == nil {
                if trimmed == "- NetworkSerialPort:" || trimmed == "NetworkSerialPort:" {
                    fields = [:]
                    indent = depth
                }
                continue
            }
            if trimmed.isEmpty { continue }
            if depth <= indent { break }
            guard let colon = trimmed.firstIndex(of: ":") else { continue }
            let key = String(trimmed[..<colon])
            var value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "'" || first == "\"", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            fields?[key] = value
        }
        guard let fields, let host = fields["host"] else { return nil }
        return SerialPort(
            host: host, port: fields["port"].flatMap { Int($0) }, speed: fields["speed"].flatMap { Int($0) } ?? 115_200,
            protocolName: fields["protocol"] ?? "rfc2217", name: fields["name"])
    }

    /// Who holds a place and since when, from `labgrid-client -p PLACE show` (`acquired: HOST/USER`
    /// and the place's `changed:` time, which acquiring sets).
    static func holder(inShow text: String) -> (holder: String?, since: String?) {
        var holder: String?
        var since: String?
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("acquired: ") {
                let value = String(line.dropFirst("acquired: ".count))
                if value != "None" { holder = value }
            } else if line.hasPrefix("changed: ") {
                let value = String(line.dropFirst("changed: ".count))
                since = value.split(separator: ".").first.map(String.init) ?? value
            }
        }
        return (holder, since)
    }
}
