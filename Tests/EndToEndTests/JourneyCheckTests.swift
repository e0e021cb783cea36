import Foundation
import XCTest

/// What an outside walk of the users' journeys found (a shell user, a designer): each runs the
/// `thrum` binary as a user does and judges by the exit status, the bytes printed and the files
/// on disk.
final class JourneyCheckTests: XCTestCase {
    private var heartbeat: String { TestPaths.example("heartbeat.ahap").path }

    /// A one-character file name (`--csv a`, `thrum studio x`) trapped in Foundation's
    /// `deletingLastPathComponent` (SIGILL and a backtrace); it is a file like any other.
    func testOneCharacterFileNamesAreFiles() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        // One output (both go through OutputFile.checkDestination, where it trapped).
        for (option, name) in [("--csv", "c")] {
            let result = try ThrumProcess.run(["render", "preset:rom.1", option, name], directory: dir)
            XCTAssertEqual(result.status, 0, "\(option) \(name): \(result.standardError.prefix(300))")
            let written = try Data(contentsOf: dir.appendingPathComponent(name))
            XCTAssertFalse(written.isEmpty, "\(option) \(name) wrote nothing")
        }
        _ = try CLITestSupport.write("not a pattern", named: "x", in: dir)
        let studio = try ThrumProcess.run(["studio", "x"], timeout: 30, directory: dir)
        XCTAssertEqual(studio.status, 1, studio.standardError.prefix(300).description)
        XCTAssertEqual(studio.standardError, "thrum: x: not an AHAP file (.ahap)\n")
    }

    /// `play --json` printed nothing on standard output when it failed before playing (a missing
    /// file, a bad value, a stored preset on a missing port), where every other command prints
    /// its error document: a script parsing the output got no JSON. One document now, never two.
    func testPlayWithJSONPrintsOneErrorDocumentOnEveryFailure() throws {
        let cases: [(arguments: [String], status: Int32, kind: String)] = [
            (["play", "/nonexistent/x.ahap", "--json"], 1, "failure"),
            (["play", heartbeat, "--rate", "abc", "--json"], 2, "usage"),
            (["play", "id:1", "--port", "/dev/thrum-no-such-port", "--json"], 1, "failure"),
            (["play", heartbeat, "--port", "/dev/thrum-no-such-port", "--json"], 1, "failure"),
        ]
        for (arguments, status, kind) in cases {
            let result = try ThrumProcess.run(arguments, timeout: 30)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.standardError)")
            let document = try CLITestSupport.json(result) as? [String: Any]
            XCTAssertEqual(document?["command"] as? String, "play", "\(arguments)")
            XCTAssertEqual(document?["exit_code"] as? Int, Int(status), "\(arguments)")
            let error = document?["error"] as? [String: Any]
            XCTAssertEqual(error?["kind"] as? String, kind, "\(arguments)")
            XCTAssertEqual(
                "thrum: \(error?["message"] as? String ?? "")", result.standardError.split(separator: "\n").first.map(String.init),
                "\(arguments)")
        }
    }

    /// `thrum firmware flash --place NAME` (a labgrid place, offered by its help) became
    /// `--port rfc2217://…`, and then "no port rfc2217://…: is the board plugged in?": avrdude
    /// cannot reach a bootloader through a network port. Refused, with the reason, before any tool runs.
    func testFirmwareFlashRefusesANetworkPortOrAPlaceWithTheReason() throws {
        let help = try ThrumProcess.run(["firmware", "--help"])
        XCTAssertFalse(help.standardOutput.contains("--place"), help.standardOutput)
        for (arguments, status) in [
            (["firmware", "flash", "--board", "uno", "--port", "rfc2217://127.0.0.1:9"], Int32(1)),
            (["firmware", "flash", "--board", "uno", "--port", "tcp://127.0.0.1:9"], 1),
            (["firmware", "flash", "--board", "uno", "--place", "rig1"], 2),
        ] {
            let result = try ThrumProcess.run(arguments, environment: ["LG_COORDINATOR": "127.0.0.1:9"])
            XCTAssertEqual(result.status, status, "\(arguments): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains("firmware flash writes through"), "\(arguments): \(result.standardError)")
            XCTAssertFalse(result.standardError.contains("no port"), "\(arguments): \(result.standardError)")
        }
    }

    /// `thrum studio --listen 999.1.1.1:P` (a typo) listened on 231.1.1.1 (CivetWeb's parse wraps
    /// each part) under a URL naming 999.1.1.1. A host that is not an address is a usage error,
    /// before anything listens.
    func testStudioListensOnlyOnAnAddressAsWritten() throws {
        for host in ["999.1.1.1", "256.0.0.1", "127.1", "rig.example"] {
            let result = try ThrumProcess.run(["studio", "--listen", "\(host):8123"], timeout: 10)
            XCTAssertEqual(result.status, 2, "\(host): \(result.standardError)")
            XCTAssertTrue(
                result.standardError.hasPrefix("thrum: --listen '\(host)': not an IPv4 or IPv6 address (or localhost)\n"),
                result.standardError)
            XCTAssertEqual(result.standardOutput, "", "\(host): served")
        }
    }

    /// `--port "$PORT"` with PORT unset said "no such port: " (exit 1) and `--junit ''` "cannot
    /// write the JUnit report to ''": an empty value is a usage error naming the option.
    func testAnEmptyOptionValueIsAUsageError() throws {
        let place = try ThrumProcess.run(["info", "--place", ""], environment: ["LG_COORDINATOR": "127.0.0.1:9"])
        XCTAssertEqual(place.status, 2, place.standardError)
        XCTAssertTrue(place.standardError.hasPrefix("thrum: --place needs a value (a labgrid place's name; it was given an empty one)\n"))
        for arguments in [["info", "--port", ""], ["play", heartbeat, "--junit="], ["render", heartbeat, "--csv", ""]] {
            let result = try ThrumProcess.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.standardError)")
            let option = arguments.first { $0.hasPrefix("--") }!.replacingOccurrences(of: "=", with: "")
            XCTAssertTrue(result.standardError.hasPrefix("thrum: \(option) needs a value (it was given an empty one)\n"), result.standardError)
        }
    }

    /// `sim --storage` on a directory or in a missing one said "cannot create the storage file
    /// PATH" and no more: now why.
    func testSimStorageThatCannotBeCreatedSaysWhy() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        for (path, reason) in [(dir.path, "it is a directory; give a file name"), ("\(dir.path)/none/s.bin", "the directory \(dir.path)/none does not exist")] {
            let result = try ThrumProcess.run(["sim", "--storage", path], timeout: 20)
            XCTAssertEqual(result.status, 1, result.standardError)
            XCTAssertEqual(result.standardError, "thrum: --storage: cannot create the storage file \(path): \(reason)\n")
        }
    }

    /// `thrum studio --open` where no browser opens: xdg-open's own lines ("www-browser: not
    /// found" six times, then "no method available") ran under the URL; now one line says so.
    func testStudioOpenWithoutABrowserSaysSoInOneLine() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let fake = try CLITestSupport.write(
            "#!/bin/sh\necho 'www-browser: not found' >&2\necho 'lynx: not found' >&2\necho \"xdg-open: no method available for opening '$1'\" >&2\nexit 3\n",
            named: "xdg-open", in: dir)
        XCTAssertEqual(chmod(fake, 0o755), 0)
        let studio = Process()
        studio.executableURL = try TestPaths.thrumBinary
        studio.arguments = ["studio", TestPaths.example("heartbeat.ahap").path, "--open"]
        studio.environment = ProcessInfo.processInfo.environment.merging(["PATH": "\(dir.path):/usr/bin:/bin"]) { _, new in new }
        let errors = Pipe()
        studio.standardOutput = FileHandle.nullDevice
        studio.standardError = errors
        try studio.run()
        var text = ""
        let deadline = Date().addingTimeInterval(15)
        let fd = errors.fileHandleForReading.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !text.contains("open the URL above yourself\n") && Date() < deadline && studio.isRunning {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4096) }
            if n > 0 { text += String(decoding: buffer[0..<n], as: UTF8.self) } else { usleep(20_000) }
        }
        studio.terminate()
        studio.waitUntilExit()
        XCTAssertTrue(text.hasPrefix("thrum: --open: no browser opened (xdg-open: no method available for opening 'http://127.0.0.1:"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 1, text)
    }

    /// `actuator compute --f0 700` (a typo for 170): the sampling window leaves no drive, and the
    /// calculator printed "2000000000.000 V peak on the output" and a clamp warning about it.
    func testRegisterCalculatorSaysNoDriveInsteadOfGigavolts() throws {
        let text = try ThrumProcess.run(["actuator", "compute", "--f0", "700", "--vrms", "2"])
        XCTAssertEqual(text.status, 0, text.standardError)
        XCTAssertTrue(text.standardOutput.contains("→  0 (0x00)  = no drive: the back-EMF window fills the period\n"), text.standardOutput)
        XCTAssertTrue(text.standardOutput.contains("the driver would never drive"), text.standardOutput)
        XCTAssertFalse(text.standardOutput.contains("2000000000"), text.standardOutput)
        let json = try ThrumProcess.run(["actuator", "compute", "--f0", "700", "--vrms", "2", "--json"])
        let calculation = try XCTUnwrap((try CLITestSupport.json(json) as? [String: Any])?["intermediate"] as? [String: Any], json.standardOutput)
        XCTAssertTrue(calculation["rated_voltage_peak_volts"] is NSNull, "\(calculation)")
    }

    /// A directory where a file goes (`thrum validate examples/`, the commonest slip) said
    /// "unsupported file type (no extension)", or "cannot read examples" and no more; a file where
    /// the library directory goes looked for FILE/library.json. Each says what it is.
    func testADirectoryWhereAFileGoesAndTheOtherWayRoundSayWhatTheyAre() throws {
        let examples = TestPaths.packageRoot.appendingPathComponent("examples").path
        let cases: [(arguments: [String], message: String)] = [
            (["validate", examples], "cannot read '\(examples)': it is a directory, not a regular file; give the files in it (\(examples)/*.ahap)"),
            (["play", examples], "cannot read '\(examples)': it is a directory, not a regular file; give the files in it (\(examples)/*.ahap)"),
            (["library", "inspect", examples], "cannot read \(examples): it is a directory, not a file"),
            (["flash", examples, "--port", "/dev/null"], "cannot read \(examples): it is a directory, not a file"),
            (["library", "build", heartbeat, "-o", "/dev/null"], "\(heartbeat): error: not a directory: give the library directory, the one holding library.json"),
        ]
        for (arguments, message) in cases {
            let result = try ThrumProcess.run(arguments)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.standardError)")
            XCTAssertTrue((result.standardOutput + result.standardError).contains(message), "\(arguments): \(result.standardOutput)\(result.standardError)")
            XCTAssertFalse(result.standardError.contains("no extension"), result.standardError)
        }
    }

    /// `play --junit` into a missing directory played the whole pattern (on a rig: the actuator)
    /// and only then said the report could not be written. Said first, nothing played.
    func testAJUnitReportThatCannotBeWrittenIsSaidBeforeThePlay() throws {
        let result = try ThrumProcess.run(["play", heartbeat, "--no-plot", "--junit", "/nonexistent-thrum-dir/j.xml"])
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertEqual(
            result.standardError, "thrum: cannot write the JUnit report to '/nonexistent-thrum-dir/j.xml': the directory '/nonexistent-thrum-dir' does not exist\n")
        XCTAssertEqual(result.standardOutput, "", "it played first")
    }

    /// Two pages on one file (two browsers, or a page and an editor): one deletes the first
    /// event and saves; the other, which still shows it, moves its second event and saves. The
    /// edit named the event by its place, and moved the third one (the one now second). A save
    /// made on other bytes than the file holds is refused (409) and changes nothing.
    func testTwoPagesOnOneFileCannotEditTheWrongEvent() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let events = [(0.0, 1.0), (0.1, 0.5), (0.2, 0.2)].map { time, intensity in
            #"{"Event": {"Time": \#(time), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}]}}"#
        }
        let file = try CLITestSupport.write(#"{"Version": 1, "Pattern": [\#(events.joined(separator: ",\n"))]}"#, named: "three.ahap", in: dir)
        let studio = Process()
        studio.executableURL = try TestPaths.thrumBinary
        studio.arguments = ["studio", dir.path]
        let output = Pipe()
        studio.standardOutput = output
        studio.standardError = FileHandle.nullDevice
        try studio.run()
        defer { if studio.isRunning { studio.terminate() } }
        let line = SimulatorProcess.firstLine(of: output)
        let url = try XCTUnwrap(URL(string: String(line.dropFirst(5))), line)
        let token = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        func base() throws -> String {
            let (status, body) = try StudioPortTests.request(url, "/api/pattern?file=three.ahap", token: token)
            XCTAssertEqual(status, 200)
            return try XCTUnwrap((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["base"] as? String)
        }
        let first = try base(), second = try base()
        let (deleted, _) = try StudioPortTests.request(url, "/api/save", token: token, body: #"{"file": "three.ahap", "deletions": [0], "base": "\#(first)"}"#)
        XCTAssertEqual(deleted, 200)
        let after = try String(contentsOfFile: file, encoding: .utf8)
        let (stale, reply) = try StudioPortTests.request(
            url, "/api/save", token: token, body: #"{"file": "three.ahap", "changes": [{"event": 1, "time": 0.15}], "base": "\#(second)"}"#)
        XCTAssertEqual(stale, 409, String(decoding: reply, as: UTF8.self))
        XCTAssertTrue(String(decoding: reply, as: UTF8.self).contains("changed on disk since this page read it"))
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), after, "the stale edit changed the file")
        XCTAssertFalse(after.contains("0.15"))
    }

    /// `thrum help NOSUCH` printed the overview with status 0, as if the command existed.
    func testHelpForAnUnknownCommandIsAUsageError() throws {
        let result = try ThrumProcess.run(["help", "nosuch"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.standardError.hasPrefix("thrum: unknown command 'nosuch'\n"), result.standardError)
        XCTAssertEqual(result.standardOutput, "")
        let helpHelp = try ThrumProcess.run(["help", "help"])
        XCTAssertEqual(helpHelp.status, 0, helpHelp.standardError)
        XCTAssertTrue(helpHelp.standardOutput.hasPrefix("thrum 0.1.0: play Core Haptics patterns"), helpHelp.standardOutput)
    }
}
