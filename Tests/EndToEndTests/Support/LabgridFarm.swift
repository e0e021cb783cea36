import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A labgrid farm on the loopback interface, from the pinned labgrid in the virtual environment
/// tools/labgrid-venv.sh makes: a coordinator and two exporters, each exporting one `thrum sim`
/// (with its `--trace`) as a place. `rig1` through a ser2net tuned for Thrum (`tcp(nodelay)`,
/// `chardelay: false`) that the exporter publishes as a `NetworkSerialPort` (docs/hil.md),
/// `rig2` the way labgrid exports a port by itself (a `RawSerialPort`: the exporter starts its
/// own ser2net when the place is acquired). ``stop()`` ends every process it started,
/// ser2net children of the exporters included.
final class LabgridFarm {
    struct Rig {
        var place: String
        var simulator: SimulatorProcess
        var trace: URL
        var exporter: Process
        /// The ser2net the test runs for it (the tuned rig), nil when the exporter runs one.
        var server: Ser2NetProcess?
    }

    let venv: URL
    let coordinator: String
    private(set) var rigs: [Rig] = []
    private var processes: [Process] = []
    private var servers: [Ser2NetProcess] = []
    private let scratch: URL

    /// Makes (or finds) the virtual environment, then starts the farm and creates both places.
    /// - Throws: `XCTSkip` when the environment cannot be made (no network to PyPI).
    init(scratch: URL) throws {
        self.scratch = scratch
        let script = TestPaths.packageRoot.appendingPathComponent("tools/labgrid-venv.sh")
        let made = try Self.run(script.path, ["--path"], timeout: 600)
        guard made.status == 0, let path = made.standardOutput.split(separator: "\n").last else {
            throw XCTSkip("the labgrid virtual environment could not be made (tools/labgrid-venv.sh: \(made.standardError.suffix(300)))")
        }
        venv = URL(fileURLWithPath: String(path))
        coordinator = "127.0.0.1:\(try Ser2NetProcess.freePort())"
        do {
            try start()
        } catch {
            stop()
            throw error
        }
    }

    private func start() throws {
        processes.append(try launch(venvTool("labgrid-coordinator"), ["-l", coordinator], log: "coordinator.log"))
        var configs: [URL] = []
        var simulators: [(String, SimulatorProcess, URL, Ser2NetProcess?)] = []
        for (index, place) in ["rig1", "rig2"].enumerated() {
            let trace = scratch.appendingPathComponent("\(place)-trace.csv")
            let simulator = try SimulatorProcess(arguments: ["--trace", trace.path])
            let config = scratch.appendingPathComponent("\(place)-exporter.yaml")
            if index == 1 {
                try "\(place):\n  RawSerialPort:\n    port: \(simulator.ptyPath)\n    speed: 115200\n"
                    .write(to: config, atomically: true, encoding: .utf8)
            } else {
                let server = try Ser2NetProcess(accepter: "telnet(rfc2217),tcp(nodelay)", device: simulator.ptyPath)
                servers.append(server)
                try "\(place):\n  NetworkSerialPort:\n    host: 127.0.0.1\n    port: \(server.port)\n    speed: 115200\n    protocol: rfc2217\n"
                    .write(to: config, atomically: true, encoding: .utf8)
            }
            configs.append(config)
            simulators.append((place, simulator, trace, index == 0 ? servers.last : nil))
        }
        // The coordinator takes a moment to listen: create the places as soon as it answers.
        let deadline = Date().addingTimeInterval(30)
        for place in ["rig1", "rig2"] {
            while true {
                let created = try client(["-p", place, "create"])
                if created.status == 0 || created.standardError.contains("already exists") { break }
                guard Date() < deadline else { throw FarmError(message: "labgrid-client create \(place): \(created.standardError)") }
                usleep(300_000)
            }
        }
        // Exporters give up on a coordinator that does not answer yet: started once it does.
        for (config, (place, simulator, trace, server)) in zip(configs, simulators) {
            let exporter = try launch(
                venvTool("labgrid-exporter"),
                ["-c", coordinator, "-n", "farm-\(place)", "--hostname", "127.0.0.1", config.path], log: "\(place)-exporter.log")
            processes.append(exporter)
            rigs.append(Rig(place: place, simulator: simulator, trace: trace, exporter: exporter, server: server))
        }
        let matches = try parallel(rigs.map { rig in { try self.client(["-p", rig.place, "add-match", "farm-\(rig.place)/\(rig.place)/*"]) } })
        for match in matches where match.status != 0 { throw FarmError(message: "add-match: \(match.standardError)") }
        // Both exporters have registered their resource.
        while true {
            let listed = try client(["resources"])
            if rigs.allSatisfy({ listed.standardOutput.contains("farm-\($0.place)/\($0.place)/NetworkSerialPort") }) { break }
            guard Date() < deadline else {
                let logs = rigs.map { rig in
                    let text = (try? String(contentsOf: scratch.appendingPathComponent("\(rig.place)-exporter.log"), encoding: .utf8)) ?? ""
                    return "\(rig.place)'s exporter: \(text.suffix(600))"
                }
                throw FarmError(message: "the exporters did not register: \(listed.standardOutput)\n\(logs.joined(separator: "\n"))")
            }
            usleep(300_000)
        }
    }

    /// A program of the virtual environment (`bin/NAME`).
    func venvTool(_ name: String) -> String { venv.appendingPathComponent("bin/\(name)").path }

    /// labgrid's environment for a job of `user` on this farm, with the client Thrum uses.
    func environment(user: String = "ci-job") -> [String: String] {
        [
            "LG_COORDINATOR": coordinator, "LG_USERNAME": user, "THRUM_LABGRID_CLIENT": venvTool("labgrid-client"),
        ]
    }

    /// Runs `labgrid-client ARGUMENTS…` as `user`.
    func client(_ arguments: [String], user: String = "ci-job") throws -> ThrumProcess.Result {
        try Self.run(venvTool("labgrid-client"), arguments, environment: environment(user: user))
    }

    /// Who holds `place` now (`host/user`), nil when nobody does.
    func holder(of place: String) throws -> String? {
        let shown = try client(["-p", place, "show"])
        let line = shown.standardOutput.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("acquired:") }
        let value = line.map { $0.trimmingCharacters(in: .whitespaces).dropFirst("acquired:".count).trimmingCharacters(in: .whitespaces) }
        return value == "None" ? nil : value
    }

    /// Kills `rig`'s exporter and its ser2net (the one the exporter started, or the tuned one),
    /// with SIGKILL: the rig machine's services die.
    func killExporterAndSer2net(of rig: Rig) {
        let children = Self.children(of: rig.exporter.processIdentifier)
        if let server = rig.server { kill(server.process.processIdentifier, SIGKILL) }
        kill(rig.exporter.processIdentifier, SIGKILL)
        for child in children { kill(child, SIGKILL) }
        rig.exporter.waitUntilExit()
        rig.server?.process.waitUntilExit()
    }

    /// Every process the farm started and their children now (the ser2net an exporter runs).
    var processIdentifiers: [Int32] {
        let own = processes.map(\.processIdentifier) + servers.map(\.process.processIdentifier)
            + rigs.map(\.simulator.process.processIdentifier)
        return own + own.flatMap { Self.children(of: $0) }
    }

    /// Ends every process of the farm (the exporters' ser2net children first).
    func stop() {
        for process in processes where process.isRunning {
            for child in Self.children(of: process.processIdentifier) { kill(child, SIGTERM) }
            process.terminate()
        }
        for process in processes { process.waitUntilExit() }
        for server in servers { server.stop() }
        for rig in rigs { rig.simulator.stop() }
    }

    deinit { stop() }

    /// Starts `executable` with its output in `log` in the scratch directory; it dies with this
    /// process (`setpriv --pdeathsig`), so a crashed test leaves no coordinator behind.
    private func launch(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--pdeathsig", "KILL", "--", executable] + arguments
        let logURL = scratch.appendingPathComponent(log)
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logURL)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        // The coordinator keeps its places in its working directory (places.yaml).
        process.currentDirectoryURL = scratch
        try process.run()
        return process
    }

    /// The direct children of `pid` (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Runs the closures at once and returns their results in order.
    func parallel<T>(_ jobs: [() throws -> T]) throws -> [T] {
        try jobs.map { Background($0) }.map { try $0.wait() }
    }

    /// Runs a program to its end.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
    ) throws -> ThrumProcess.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errorReader = Background { err.fileHandleForReading.readDataToEndOfFile() }
        let outReader = Background { out.fileHandleForReading.readDataToEndOfFile() }
        if !outReader.wait(timeout: timeout) { process.terminate() }
        process.waitUntilExit()
        let outData = try outReader.wait()
        let errorText = String(decoding: try errorReader.wait(), as: UTF8.self)
        return ThrumProcess.Result(
            status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self), standardError: errorText)
    }

    struct FarmError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
