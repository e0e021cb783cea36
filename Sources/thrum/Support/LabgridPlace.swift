import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `--place NAME` (or `LG_PLACE`): a labgrid place used as the device's port (docs/hil.md, "A
/// farm of rigs").
///
/// Before the command runs, the place is acquired through ``LabgridClient`` (unless this user
/// already holds it: then it is used and left acquired), its serial resource is read from the
/// coordinator, and `--place NAME` becomes `--port rfc2217://HOST:PORT` (or `tcp://` for a raw
/// export), so every command that takes `--port` takes a place the same way. A place someone
/// else holds is refused, with who and since when, before anything is written.
///
/// What was acquired is released when the command ends, also on an error or a signal: a small
/// watcher process (`sh`, ignoring SIGINT, SIGTERM and SIGHUP) holds the read end of a pipe only
/// this process writes to, and releases the place when that pipe closes — at ``Lease/end()``,
/// which waits for it, or when this process dies however it dies (Ctrl-C, `kill -9`).
enum LabgridPlace {
    /// The commands that take `--port` and so `--place` (not `firmware flash`: a bootloader is
    /// reached through a serial port on the board's own machine, which a place's network port is not).
    static let commands: Set<String> = ["play", "info", "calibrate", "flash", "monitor", "doctor", "studio", "library"]
    /// Those that take `LG_PLACE` when given neither `--port` nor `--place` (not `library`, whose
    /// other actions take no device).
    static let placeFromEnvironment: Set<String> = commands.subtracting(["library"])

    /// What `thrum COMMAND --help` adds for a command that takes `--place`.
    static let usageNote = "\n\n" + """
        On a labgrid farm (docs/hil.md, "A farm of rigs"):
          --place NAME       a labgrid place instead of --port (default $LG_PLACE when no --port
                             is given): acquired for the command unless you already hold it,
                             released after it (also on errors and Ctrl-C), refused before
                             anything is sent when someone else holds it. The coordinator is
                             $LG_COORDINATOR; labgrid-client is $THRUM_LABGRID_CLIENT, else on
                             PATH, else in the build's labgrid-venv (tools/labgrid-venv.sh)
        """

    /// `command`'s usage, with ``usageNote`` when it takes `--place`.
    static func usage(of command: any Subcommand.Type) -> String {
        commands.contains(command.name) ? command.usage + usageNote : command.usage
    }

    /// One acquired (or already held) place.
    final class Lease {
        let place: String
        /// False when the user already held the place: it stays acquired.
        let acquiredHere: Bool
        private var watcher: Process?
        private var pipeWrite: Int32

        fileprivate init(place: String, acquiredHere: Bool, watcher: Process?, pipeWrite: Int32) {
            self.place = place
            self.acquiredHere = acquiredHere
            self.watcher = watcher
            self.pipeWrite = pipeWrite
        }

        /// Releases the place if it was acquired here, and waits for the release.
        func end() {
            if pipeWrite >= 0 {
                close(pipeWrite)
                pipeWrite = -1
            }
            if let watcher {
                watcher.waitUntilExit()
                if watcher.terminationStatus != 0 {
                    printError("could not release place \(place) (labgrid-client -p \(place) release failed)")
                }
                self.watcher = nil
            }
        }

        deinit { end() }
    }

    /// The command line with every `--place NAME` replaced by the place's `--port URL` (and
    /// `LG_PLACE` used when a port-taking command has neither), and the leases to end after
    /// the command. Without a place, `arguments` unchanged and no leases.
    static func substitute(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (arguments: [String], leases: [Lease]) {
        guard let command = arguments.first, commands.contains(command) else { return (arguments, []) }
        var rest: [String] = []
        var places: [String] = []
        var index = 1
        var afterDashes = false
        while index < arguments.count {
            let item = arguments[index]
            if !afterDashes && item == "--" { afterDashes = true }
            if !afterDashes && item == "--place" {
                guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
                    throw UsageError(message: "--place needs a value (a labgrid place's name)")
                }
                places.append(arguments[index + 1])
                index += 2
                continue
            }
            if !afterDashes && item.hasPrefix("--place=") {
                places.append(String(item.dropFirst("--place=".count)))
                index += 1
                continue
            }
            rest.append(item)
            index += 1
        }
        if places.contains(where: \.isEmpty) {
            throw UsageError(message: "--place needs a value (a labgrid place's name; it was given an empty one)")
        }
        let hasPort = rest.contains { $0 == "--port" || $0.hasPrefix("--port=") }
        if !places.isEmpty && hasPort { throw UsageError(message: "give --port or --place, not both") }
        if places.isEmpty, !hasPort, placeFromEnvironment.contains(command), let place = environment["LG_PLACE"], !place.isEmpty,
            !rest.contains("--help"), !rest.contains("-h")
        {
            places = [place]
        }
        guard !places.isEmpty else { return (arguments, []) }
        let client = try LabgridClient.locate(environment: environment)
        var leases: [Lease] = []
        var ports: [String] = []
        do {
            for place in places {
                let (lease, port) = try acquire(place, with: client)
                leases.append(lease)
                ports += ["--port", port]
            }
        } catch {
            for lease in leases { lease.end() }
            throw error
        }
        return ([command] + rest + ports, leases)
    }

    /// Acquires `place` (unless this user holds it) and returns its lease and port address.
    static func acquire(_ place: String, with client: LabgridClient) throws -> (Lease, String) {
        let acquired = try client.run(["-p", place, "acquire"])
        var acquiredHere = true
        if acquired.status != 0 {
            let message = acquired.message
            if message.hasPrefix("You have already acquired") {
                acquiredHere = false
            } else {
                throw refusal(place, message: message, client: client)
            }
        }
        let lease = try watch(place, acquiredHere: acquiredHere, client: client)
        do {
            return (lease, try serialPort(of: place, client: client))
        } catch {
            lease.end()
            throw error
        }
    }

    /// The clear error for a failed `acquire`.
    static func refusal(_ place: String, message: String, client: LabgridClient) -> CommandFailure {
        if message.contains("already acquired by") {
            let shown = try? client.run(["-p", place, "show"])
            let (holder, since) = LabgridOutput.holder(inShow: shown?.standardOutput ?? "")
            let who = holder ?? message.components(separatedBy: "already acquired by ").last?
                .split(separator: ".").first.map(String.init) ?? "someone else"
            return CommandFailure(
                message: "place \(place) is held by \(who)\(since.map { " since \($0)" } ?? ""): nothing was sent to it "
                    + "(they release it with labgrid-client -p \(place) release)")
        }
        if message.contains("Could not connect to coordinator") || message.contains("coordinator is unavailable") {
            return CommandFailure(
                message: "place \(place): the labgrid coordinator at \(client.coordinator) is unreachable; nothing was sent")
        }
        if message.contains("has no matching remote resource") {
            return CommandFailure(
                message: "place \(place): its serial resource is offline (\(message): is its exporter running?); nothing was sent")
        }
        if message.contains("matches nothing") {
            return CommandFailure(message: "no labgrid place named \(place) at \(client.coordinator) (labgrid-client places lists them)")
        }
        return CommandFailure(message: "place \(place) could not be acquired: \(message)")
    }

    /// The place's serial address, from `labgrid-client env` (the exporter starts ser2net when
    /// the place is acquired, so the port may take a moment to be published).
    static func serialPort(of place: String, client: LabgridClient) throws -> String {
        for attempt in 0..<20 {
            let env = try client.run(["-p", place, "env"])
            guard env.status == 0 else { throw refusal(place, message: env.message, client: client) }
            guard let port = LabgridOutput.serialPort(inEnvironment: env.standardOutput) else {
                throw CommandFailure(message: "place \(place) has no serial port (no NetworkSerialPort among its resources)")
            }
            if let url = port.url {
                if port.servedByLabgridSer2net {
                    printError(
                        "note: place \(place) is served by labgrid's own ser2net, whose character delay holds the device's "
                            + "reports ≥ 1 ms: onset bounds of ≈ ± 1–2 ms (a ser2net with chardelay: false exported as a "
                            + "NetworkSerialPort gives ≈ ± 0.15 ms: docs/hil.md, \"A farm of rigs\")")
                }
                return url
            }
            if attempt < 19 { usleep(250_000) }
        }
        throw CommandFailure(message: "place \(place): its exporter did not publish the serial port's address (ser2net not started?)")
    }

    /// Starts the watcher that releases `place` when this process's end of its pipe closes;
    /// none when the place was held before (nothing to release).
    static func watch(_ place: String, acquiredHere: Bool, client: LabgridClient) throws -> Lease {
        guard acquiredHere else { return Lease(place: place, acquiredHere: false, watcher: nil, pipeWrite: -1) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0, fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 else {
            _ = try? client.run(["-p", place, "release"])
            throw CommandFailure(message: "cannot make a pipe to guard place \(place): \(String(cString: strerror(errno)))")
        }
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Signals from the terminal (Ctrl-C) and a hang-up leave it running: it releases the
        // place once this process is gone, however it went.
        watcher.arguments = [
            "-c", "trap '' INT TERM HUP; cat > /dev/null; exec \"$0\" -p \"$1\" release > /dev/null 2>&1",
            client.executable, place,
        ]
        watcher.environment = client.environment
        watcher.standardInput = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        do {
            try watcher.run()
        } catch {
            close(fds[1])
            _ = try? client.run(["-p", place, "release"])
            throw CommandFailure(message: "cannot start the watcher that releases place \(place): \(error.localizedDescription)")
        }
        return Lease(place: place, acquiredHere: true, watcher: watcher, pipeWrite: fds[1])
    }
}
