import Foundation
import ThrumCompiler
import ThrumPattern
import ThrumStudio

/// `thrum studio`: a local web page to see, feel and edit a pattern (docs/studio.md).
enum StudioCommand: Subcommand {
    static let name = "studio"
    static let summary = "serve a local web page to see, play and edit AHAP patterns"
    static let usage = """
        Usage: thrum studio [FILE.ahap | DIR] [options]

        Serves Thrum Studio on loopback and prints its URL, with a per-run token, as the first line
        (`url: http://127.0.0.1:PORT/?token=…`); open it in a browser. The page lists the AHAP files
        of DIR (or of FILE's directory, FILE opened first), draws the pattern on a timeline with
        the compiled drive and the actuator's acceleration (as thrum render does), plays it on the
        device (space bar) and shows each event's reported onset, its ± bound and, on the virtual
        device, the true onset; events are dragged to edit them, and Save writes the file keeping
        every key not edited as it was. A file changed by another editor is reloaded.

        Options:
          --port PATH       play on the Thrum device on this serial port or pseudo-terminal
                            (held by the studio while it runs); repeatable: the page's device
                            picker plays on any of them, or several at once (two or more ports
                            on one timeline, with each onset's skew against the first); the
                            virtual device is always offered, and is the default without --port
          --baud N          baud rate of a real serial port (default 115200)
          --actuator NAME   actuator profile (default: \(ActuatorProfile.default.id)); --profile NAME is the same
          --listen H:P      address to listen on (default 127.0.0.1:0, a free port on loopback);
                            another address than loopback is reachable from the network: a warning says so
          --open            open the URL in the desktop's browser (xdg-open)

        Every request must carry the token, name this studio's address as its Host (and Origin,
        when a browser sends one), and stay under the served directory. Ctrl-C stops the studio.
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let ports = try DeviceAddressOptions.ports(from: &arguments)
        let baud = try DeviceAddressOptions.baudRate(from: &arguments) ?? DeviceAddressOptions.defaultBaud
        let chosenProfile = try ActuatorChoice.take(from: &arguments)
        let listen = try arguments.option("listen") ?? "127.0.0.1:0"
        let open = arguments.flag("open")
        let positionals = try arguments.positionals()
        try arguments.finish()
        guard positionals.count <= 1 else { throw UsageError(message: "give one AHAP file or directory") }
        let (host, listenPort) = try parseListen(listen)

        let given = positionals.first ?? "."
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory) else {
            throw CommandFailure(message: "\(given): no such file or directory")
        }
        let directoryPath = isDirectory.boolValue ? given : FilePathText.directory(of: given)
        let directory: ServedDirectory
        do {
            directory = try ServedDirectory(path: directoryPath.isEmpty ? "." : directoryPath)
        } catch {
            throw CommandFailure(message: error.message)
        }
        let initial = isDirectory.boolValue ? nil : (given as NSString).lastPathComponent
        if let initial, directory.resolve(initial) == nil {
            throw CommandFailure(message: "\(given): not an AHAP file (.ahap)")
        }
        if let twice = ports.first(where: { p in ports.filter { $0 == p }.count > 1 }) {
            throw UsageError(message: "--port \(twice) is given twice")
        }
        let profile = chosenProfile ?? ActuatorProfile.default
        Interrupt.install()  // from here on a stop signal is noted (waitForSignal), whenever it comes
        // The virtual device is always there (to compare against); each port is opened and held now.
        var devices = [try StudioDevice(port: nil, baud: baud, profile: profile)]
        do {
            for port in ports { devices.append(try StudioDevice(port: port, baud: baud, profile: profile)) }
        } catch {
            for d in devices { d.close() }
            throw error
        }
        let app = StudioApp(directory: directory, initialFile: initial, backend: StudioBackend(devices: devices, baseDirectory: directory.root))
        let url: String
        do {
            url = try app.start(host: host, port: listenPort)
        } catch {
            for d in devices { d.close() }
            throw CommandFailure(message: error.message)
        }
        print("url: \(url)")
        let names = ports.isEmpty ? devices[0].name : ports.joined(separator: ", ") + " (and the virtual device)"
        print("serving \(given) (\(directory.list().count) AHAP files); device: \(names); Ctrl-C stops")
        if !RequestGuard.names(listenHost: "127.0.0.1").contains(host) && host != "::1" {
            printError("warning: listening on \(host), reachable from other machines; the token is all that guards it")
        }
        try ProcessStreams.requireFlushed()
        if open { openInBrowser(url) }
        waitForSignal()
        app.stop()
        for d in devices { d.close() }
        return 0
    }

    /// Opens `url` with xdg-open. Its own lines (and a browser's) stay out of the terminal; when
    /// no browser opens, one line says so (on a machine without a desktop xdg-open printed six
    /// lines of "www-browser: not found" under the URL).
    static func openInBrowser(_ url: String) {
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        browser.arguments = ["xdg-open", url]
        let output = Pipe()
        browser.standardOutput = output
        browser.standardError = output
        browser.standardInput = FileHandle.nullDevice
        do {
            try browser.run()
        } catch {
            printError("--open: cannot run xdg-open (\(error.localizedDescription)); open the URL above yourself")
            return
        }
        // Read to the end (a browser started by it may keep writing there), keep the last line.
        Thread.detachNewThread {
            var last = ""
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                let lines = String(decoding: chunk, as: UTF8.self).split(whereSeparator: \.isNewline)
                if let line = lines.last { last = String(line) }
                if !browser.isRunning && browser.terminationStatus != 0 { break }
            }
            browser.waitUntilExit()
            guard browser.terminationStatus != 0 else { return }
            let said = browser.terminationStatus == 127 ? "xdg-open is not installed" : TextEscaping.escaped(last)
            printError("--open: no browser opened (\(said.isEmpty ? "xdg-open exit status \(browser.terminationStatus)" : said)); open the URL above yourself")
        }
    }

    /// `HOST:PORT` or `[V6]:PORT`.
    static func parseListen(_ text: String) throws(UsageError) -> (String, Int) {
        let expected = UsageError(message: "--listen takes HOST:PORT (such as 127.0.0.1:8080), not '\(text)'")
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw expected
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw expected }
        // An address as written (inet_pton's strict forms) or localhost: CivetWeb's own parse
        // wraps `999.1.1.1` to 231.1.1.1 and listened there under a URL naming the typo.
        var address = in6_addr()
        guard host == "localhost" || inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1 else {
            throw UsageError(message: "--listen \(TextEscaping.quotedExcerpt(host)): not an IPv4 or IPv6 address (or localhost)")
        }
        return (host, port)
    }

    /// Blocks until SIGINT, SIGTERM or SIGQUIT (``Interrupt``, installed when the command began:
    /// a signal that came while the devices opened or the browser started is kept, not lost).
    /// Polled: a DispatchSource installed here once missed a SIGTERM sent right after the URL was
    /// printed, and the studio served on until killed (JourneyCheckTests, 1 clean-clone CI run).
    private static func waitForSignal() {
        while !Interrupt.requested { usleep(50_000) }
    }
}
