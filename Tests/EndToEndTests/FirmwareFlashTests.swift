import Foundation
import ThrumLink
import XCTest

/// `thrum firmware flash` end to end with no hardware: the real avrdude talks to the real Arduino
/// bootloader (optiboot, ATmegaBOOT) running in simavr (`thrum sim --board`), which writes the
/// simulated flash; the truth is the flash file the harness keeps (compared byte for byte with the
/// image as avr-objcopy lays it out) and what the firmware booted from it says (`thrum info`).
/// Real time: listed in tools/test.sh's real_time_tests (all but `testNoAnswerNamesTheCauses`, which
/// paces nothing: tools/test.sh's no_answer_end_to_end).
final class FirmwareFlashTests: XCTestCase {
    /// The streaming image through optiboot into an erased Uno, then broken and oversized images
    /// refused with the firmware still answering and the flash unchanged.
    func testUnoFlashThroughOptibootThenRefusals() throws {
        try BootloaderBoard.prepare()
        let board = try BootloaderBoard(board: "uno")
        let erased = try Data(contentsOf: board.flashURL)
        XCTAssertEqual(erased.count, 32768)
        XCTAssertTrue(erased.prefix(0x7E00).allSatisfy { $0 == 0xFF }, "a new --flash file starts erased")

        let flash = try BootloaderBoard.thrum(["firmware", "flash", "--board", "uno", "--port", board.pty, "--json"])
        XCTAssertEqual(flash.status, 0, flash.output)
        let events = flash.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let done = try XCTUnwrap(events.last { $0["event"] as? String == "done" }, flash.output)
        XCTAssertEqual(done["firmware"] as? String, "0.1.0")
        XCTAssertEqual(done["protocol"] as? Int, 0)
        let phases = Set(events.compactMap { $0["phase"] as? String })
        XCTAssertEqual(phases, ["write", "verify"], "progress from avrdude's own bars")
        XCTAssertTrue(events.contains { $0["phase"] as? String == "verify" && $0["percent"] as? Int == 100 })
        print("uno flash: thrum \(done["total_seconds"] ?? "?") s in all, \(done["flash_seconds"] ?? "?") s to write and verify; avrdude's own figure \(done["tool_seconds"] ?? "?") s for \(done["bytes"] ?? "?") B")

        let image = try BootloaderBoard.objcopyImage("hardware/firmware/build/avr/thrum.hex")
        let written = try board.flashWhenSettled(expectedPrefix: image)
        XCTAssertEqual(zip(written.prefix(image.count), image).filter { $0 != $1 }.count, 0, "the flash read back equals the image byte for byte")
        XCTAssertGreaterThanOrEqual(written.count, image.count)
        XCTAssertTrue(written[image.count..<0x7E00].allSatisfy { $0 == 0xFF }, "nothing else written below the bootloader")

        try board.assertAnswers(version: "0.1.0", protocolVersion: 0)

        // `thrum play` on the firmware booted from the simulated flash: the simulated chip's
        // trace shows the real-time playback's drive (RTP_INPUT, register 0x02, written non-zero).
        let play = try BootloaderBoard.thrum(["play", "--port", board.pty, "--json", TestPaths.example("metronome.ahap").path])
        XCTAssertTrue([0, 1].contains(play.status), play.output)
        XCTAssertTrue(play.stdout.contains("\"events\""), play.output)
        let trace = try String(contentsOf: board.traceURL, encoding: .utf8)
        let drive = trace.split(separator: "\n").filter { line in
            let fields = line.split(separator: ",")
            return fields.count == 4 && fields[1] == "2" && fields[2] != "0"
        }
        XCTAssertGreaterThan(drive.count, 0, "the metronome drove the chip")

        // A damaged image (one record's checksum off) and one over the budget: refused before
        // avrdude runs; the firmware keeps running and the flash is unchanged.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-fw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var lines = try String(contentsOfFile: TestPaths.packageRoot.appendingPathComponent("hardware/firmware/build/avr/thrum.hex").path, encoding: .utf8)
            .split(whereSeparator: \.isNewline).map(String.init)
        let last = lines[5].index(before: lines[5].endIndex)
        lines[5].replaceSubrange(last...last, with: lines[5].last == "0" ? "1" : "0")
        let broken = directory.appendingPathComponent("broken.hex")
        try (lines.joined(separator: "\n") + "\n").write(to: broken, atomically: true, encoding: .utf8)
        let refusedBroken = try BootloaderBoard.thrum(["firmware", "flash", "--board", "uno", "--port", board.pty, "--image", broken.path])
        XCTAssertEqual(refusedBroken.status, 1)
        XCTAssertTrue(refusedBroken.stderr.contains("broken.hex:6:1: checksum mismatch"), refusedBroken.stderr)

        let oversized = directory.appendingPathComponent("oversized.hex")
        try BootloaderBoard.hexFile(bytes: 13_000).write(to: oversized, atomically: true, encoding: .utf8)
        let refusedBig = try BootloaderBoard.thrum(["firmware", "flash", "--board", "uno", "--port", board.pty, "--image", oversized.path])
        XCTAssertEqual(refusedBig.status, 1)
        XCTAssertTrue(refusedBig.stderr.contains("13000 B is over the 12288 B budget"), refusedBig.stderr)
        XCTAssertTrue(refusedBig.stderr.contains("nothing written"), refusedBig.stderr)

        XCTAssertEqual(try Data(contentsOf: board.flashURL), written, "the refusals left the flash as it was")
        try board.assertAnswers(version: "0.1.0", protocolVersion: 0)
    }

    /// The new-bootloader Nano (optiboot at 115 200 baud behind the 1024-word boot section, its
    /// reset vector at 0x7800 running through erased words into optiboot), one simulated board for
    /// three cases: the streaming image into the erased board (byte for byte, then `thrum info` on
    /// it); a user outside the port's group (the dialout line, nothing touched: avrdude as that user
    /// is refused the same way); and a worn flash cell (`--worn-flash`) under an image that covers
    /// it (verify mismatch, nothing claimed; the cell reads erased in the flash and avrdude's own
    /// verify points at it), with the firmware still answering after both refusals.
    func testNanoFlashThroughOptibootThenPermissionAndVerifyMismatch() throws {
        try BootloaderBoard.prepare()
        // 0x3010: beyond the streaming image's 12 288 B budget, so only the test's image reaches it.
        let worn = 0x3010
        let board = try BootloaderBoard(board: "nano", options: ["--worn-flash", String(format: "0x%X", worn)])
        let flash = try BootloaderBoard.thrum(["firmware", "flash", "--board", "nano", "--port", board.pty])
        XCTAssertEqual(flash.status, 0, flash.output)
        XCTAssertTrue(flash.stdout.contains("to Arduino Nano (ATmega328P, new bootloader) on \(board.pty): written and verified"), flash.stdout)
        XCTAssertTrue(flash.stdout.contains("the device answers: firmware 0.1.0, protocol 0"), flash.stdout)
        print("nano flash: \(flash.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        let image = try BootloaderBoard.objcopyImage("hardware/firmware/build/avr/thrum.hex")
        let written = try board.flashWhenSettled(expectedPrefix: image)
        XCTAssertEqual(zip(written.prefix(image.count), image).filter { $0 != $1 }.count, 0, "the flash equals the image byte for byte")
        XCTAssertTrue(written[image.count..<0x7E00].allSatisfy { $0 == 0xFF }, "nothing else written, the words up to optiboot still erased")
        try board.assertAnswers(version: "0.1.0", protocolVersion: 0)

        // Permission: the port in the dialout group, flashed by a user outside it.
        if getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), let dialout = getgrnam("dialout") {
            XCTAssertEqual(chown(board.pty, 0, dialout.pointee.gr_gid), 0)
            XCTAssertEqual(chmod(board.pty, 0o660), 0)
            let denied = try ChildProcess.asNobody(
                [try TestPaths.thrumBinary.path, "firmware", "flash", "--board", "nano", "--port", board.pty])
            XCTAssertEqual(denied.status, 1, denied.output)
            XCTAssertEqual(
                denied.output,
                "thrum: permission denied on \(board.pty): join the dialout group (sudo usermod -aG dialout $USER), then log out and back in\n")
            let avrdude = try ChildProcess.asNobody(
                ["/usr/bin/avrdude", "-c", "arduino", "-p", "m328p", "-P", board.pty, "-b", "115200", "-x", "attempts=1"])
            XCTAssertNotEqual(avrdude.status, 0)
            XCTAssertTrue(avrdude.output.contains("Permission denied"), "avrdude's own word for it: \(avrdude.output)")
            XCTAssertEqual(try Data(contentsOf: board.flashURL), written, "nothing written")
        } else {
            print("nano flash: the permission case needs root, setpriv and a dialout group: not run")
        }

        // A worn cell under the image: avrdude writes the page, reads back 0xFF at the cell.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-fw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("page.hex")
        try BootloaderBoard.hexFile(bytes: 128, at: 0x3000).write(to: page, atomically: true, encoding: .utf8)
        let mismatch = try BootloaderBoard.thrum(["firmware", "flash", "--board", "nano", "--port", board.pty, "--image", page.path])
        XCTAssertEqual(mismatch.status, 1, mismatch.output)
        XCTAssertEqual(
            mismatch.stderr,
            "thrum: verify mismatch: the flash read back differs from the image, so nothing is claimed as flashed; flash again, "
                + "and if it repeats, the board's flash or its supply is suspect\n")
        XCTAssertFalse(mismatch.stdout.contains("flashed"), mismatch.stdout)
        let after = try board.flashWhenSettled(expectedPrefix: Array(written.prefix(0x3000)) + [UInt8](repeating: 0, count: 16))
        XCTAssertEqual(Array(after[0x3000..<0x3080].enumerated().filter { $0.element != 0 }.map { 0x3000 + $0.offset }), [worn],
                       "the page written but for the worn cell, which reads erased")
        XCTAssertEqual(after[worn], 0xFF)
        let verify = try AVRToolchain.run(
            ["avrdude", "-c", "arduino", "-p", "m328p", "-P", board.pty, "-b", "115200", "-U", "flash:v:\(page.path):i"])
        XCTAssertNotEqual(verify.status, 0)
        XCTAssertNotNil(verify.output.range(of: "0x0*3010", options: .regularExpression), "avrdude's own verify names the cell: \(verify.output)")
        try board.assertAnswers(version: "0.1.0", protocolVersion: 0)
    }

    /// The old Nano bootloader (ATmegaBOOT, 57 600 baud, 1024-word boot section) as Debian ships
    /// it, reflashing a running firmware: the board holds the library image (protocol 1) and
    /// runs it; the flash's open resets it into the bootloader, and the streaming image
    /// (protocol 0) replaces it.
    func testNanoOldReflashesARunningFirmwareThroughATmegaBOOT() throws {
        try BootloaderBoard.prepare()
        _ = try AVRToolchain.prepare(firmware: "avr-library")
        let library = try BootloaderBoard.objcopyImage("hardware/firmware/build/avr-library/thrum.hex")
        let board = try BootloaderBoard(board: "nano-old", flash: library + [UInt8](repeating: 0xFF, count: 32768 - library.count))
        try board.assertAnswers(version: "0.1.0", protocolVersion: 1)

        let flash = try BootloaderBoard.thrum(["firmware", "flash", "--board", "nano-old", "--port", board.pty])
        XCTAssertEqual(flash.status, 0, flash.output)
        XCTAssertTrue(flash.stdout.contains("the device answers: firmware 0.1.0, protocol 0"), flash.stdout)
        let image = try BootloaderBoard.objcopyImage("hardware/firmware/build/avr/thrum.hex")
        let written = try board.flashWhenSettled(expectedPrefix: image)
        XCTAssertEqual(zip(written.prefix(image.count), image).filter { $0 != $1 }.count, 0, "the flash equals the image byte for byte")
        // The Arduino bootloaders erase nothing but the pages they write (avrdude's chip erase is
        // a no-op for them): the old image's tail stays, as on a board.
        XCTAssertEqual(Array(written[image.count..<library.count]), Array(library[image.count...]))
    }

    /// A flash interrupted part way (Ctrl-C during `thrum firmware flash`) leaves an application
    /// that runs wild. On a board the bootloader still answers the next reset; the simulated board
    /// ended the simulation at simavr's first crash ("the simulated CPU crashed"), so the user's
    /// next flash found no port. It now holds the CPU until the port is opened: the real avrdude
    /// reads the chip's signature through optiboot (after a flash at the wrong baud, which fails).
    func testAnApplicationThatCrashesTheCPUStillLeavesTheBootloaderAReset() throws {
        try BootloaderBoard.prepare()
        // `sts 0x0900, r1`: a write past the ATmega328P's RAM, simavr's cpu_Crashed at once.
        var flash = [UInt8](repeating: 0xFF, count: 32768)
        flash.replaceSubrange(0..<4, with: [0x10, 0x92, 0x00, 0x09])
        let board = try BootloaderBoard(board: "uno", flash: flash)
        // The crash comes at the first instruction after power-on, before the harness first looks
        // for a client opening the port (the probe's reset).
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(board.simulator.process.isRunning, "the simulation ended at the application's crash")
        // The wrong board: `--board nano-old` is avrdude at 57 600 baud, the Uno's optiboot runs at
        // 115 200. A pty carries no baud, and this flash succeeded; the harness now reads the
        // speed avrdude set and garbles the bytes as a UART at the other rate would: no answer,
        // nothing written (the flash file is the truth), as on a board.
        let before = try Data(contentsOf: board.flashURL)
        let wrong = try BootloaderBoard.thrum(["firmware", "flash", "--board", "nano-old", "--port", board.pty, "--attempts", "1"])
        XCTAssertEqual(wrong.status, 1, wrong.output)
        XCTAssertTrue(wrong.stderr.contains("nothing was written"), wrong.stderr)
        XCTAssertEqual(try Data(contentsOf: board.flashURL), before, "the wrong-baud flash wrote nothing")
        // At the right baud it answers (the speed avrdude left went back to the default at its close).
        let probe = try AVRToolchain.run(["avrdude", "-c", "arduino", "-p", "m328p", "-P", board.pty, "-b", "115200"])
        XCTAssertEqual(probe.status, 0, probe.output)
        XCTAssertTrue(probe.output.contains("signature = 0x1e950f"), probe.output)
    }

    /// Ctrl-C during `thrum firmware flash`: thrum ended at once, the default way, while avrdude
    /// (in a process group of its own, which the terminal's Ctrl-C does not reach) went on
    /// writing the board behind the prompt, holding the port. The interrupt is passed on: avrdude
    /// stops, thrum says where the board was left, exit 130, and no avrdude is left on the port.
    func testCtrlCStopsTheToolAndSaysWhereTheBoardWasLeft() throws {
        try BootloaderBoard.prepare()
        let terminal = try PseudoTerminal(keepsDeviceSideOpen: false)
        defer { terminal.close() }
        let port = terminal.devicePath
        func avrdude() -> [pid_t] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter { pid in
                let line = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
                let words = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                return words.first.map { $0.hasSuffix("avrdude") } == true && words.contains(port)
            }
        }
        let flash = Process()
        flash.executableURL = try TestPaths.thrumBinary
        flash.arguments = ["firmware", "flash", "--board", "uno", "--port", port, "--attempts", "1"]
        let errors = Pipe()
        flash.standardOutput = FileHandle.nullDevice
        flash.standardError = errors
        try flash.run()
        let started = Date().addingTimeInterval(20)
        while avrdude().isEmpty && flash.isRunning && Date() < started { usleep(20_000) }
        XCTAssertFalse(avrdude().isEmpty, "avrdude did not start")
        kill(flash.processIdentifier, SIGINT)
        flash.waitUntilExit()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(flash.terminationReason, .exit, "thrum ended by the signal: \(text)")
        XCTAssertEqual(flash.terminationStatus, 130, text)
        XCTAssertTrue(text.hasPrefix("thrum: interrupted (signal 2) while avrdude was at work"), text)
        let gone = Date().addingTimeInterval(2)
        while !avrdude().isEmpty && Date() < gone { usleep(20_000) }
        let left = avrdude()
        XCTAssertTrue(left.isEmpty, "avrdude still running on \(port): \(left)")
        for pid in left { kill(pid, SIGKILL) }
    }

    /// Nothing answers on the port (a pseudo-terminal nobody serves): the bootloader error with its
    /// causes, nothing claimed.
    func testNoAnswerNamesTheCauses() throws {
        try BootloaderBoard.prepare()
        let terminal = try PseudoTerminal(keepsDeviceSideOpen: false)
        defer { terminal.close() }
        let slave = terminal.devicePath
        let result = try BootloaderBoard.thrum(["firmware", "flash", "--board", "uno", "--port", slave, "--attempts", "1"])
        XCTAssertEqual(result.status, 1)
        let message = result.stderr
        XCTAssertTrue(message.contains("no answer from the bootloader on \(slave)"), message)
        XCTAssertTrue(message.contains("--board nano-old (57600 baud)"), message)
        XCTAssertTrue(message.contains("auto-reset"), message)
        XCTAssertTrue(message.contains("another program on the port"), message)
        XCTAssertTrue(message.contains("nothing was written"), message)
        XCTAssertEqual(message.split(separator: "\n").count, 1, "one line: \(message)")
    }
}

/// A `thrum sim --mcu atmega328p --board B --flash FILE --trace CSV` in a temporary directory.
final class BootloaderBoard {
    let simulator: SimulatorProcess
    let pty: String
    let flashURL: URL
    let traceURL: URL
    private let directory: URL

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var output: String { stdout + stderr }
    }

    /// Builds the streaming image, the harness and the simulator's optiboot; skips (fails under
    /// CI) when the tools are missing.
    static func prepare() throws {
        _ = try AVRToolchain.prepare(firmware: "avr")
        let result = try AVRToolchain.run(["make", "-s", "-C", TestPaths.packageRoot.appendingPathComponent("hardware/avrsim").path, "bootloaders"])
        guard result.status == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/avrdude") else {
            let message = "the bootloader tests need avrdude, arduino-core-avr and gcc-avr (tools/ensure-deps.sh): \(result.output)"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message) }
            throw XCTSkip(message)
        }
    }

    /// `flash`: the board's flash as a previous run left it (32 KiB); nil: a new, erased board.
    /// `options`: more of `thrum sim`'s (`--worn-flash ADDR`).
    init(board: String, flash: [UInt8]? = nil, options: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-board-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        flashURL = directory.appendingPathComponent("flash.bin")
        if let flash { try Data(flash).write(to: flashURL) }
        traceURL = directory.appendingPathComponent("trace.csv")
        simulator = try SimulatorProcess(
            arguments: ["--mcu", "atmega328p", "--board", board, "--flash", flashURL.path, "--trace", traceURL.path] + options)
        pty = simulator.ptyPath
    }

    deinit {
        simulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The flash file once the harness has written the image back (it syncs every 10 ms of
    /// simulated time): waits up to 2 s for the prefix to appear.
    func flashWhenSettled(expectedPrefix: [UInt8]) throws -> Data {
        let deadline = Date().addingTimeInterval(2)
        var data = try Data(contentsOf: flashURL)
        while Array(data.prefix(expectedPrefix.count)) != expectedPrefix, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            data = try Data(contentsOf: flashURL)
        }
        return data
    }

    func assertAnswers(version: String, protocolVersion: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let info = try Self.thrum(["info", "--port", pty, "--json"])
        XCTAssertEqual(info.status, 0, info.output, file: file, line: line)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let device = try XCTUnwrap(object["device"] as? [String: Any], info.stdout, file: file, line: line)
        XCTAssertEqual(device["firmware_version"] as? String, version, file: file, line: line)
        XCTAssertEqual(device["protocol_version"] as? Int, protocolVersion, file: file, line: line)
    }

    /// `thrum ARGS` (a scratch config directory: nothing kept in the user's).
    static func thrum(_ arguments: [String]) throws -> Run {
        let result = try ThrumProcess.run(arguments, timeout: 120)
        return Run(status: result.status, stdout: result.standardOutput, stderr: result.standardError)
    }

    /// The image as avr-objcopy lays it out (independent of thrum's own HEX reader).
    static func objcopyImage(_ hex: String) throws -> [UInt8] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-img-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try AVRToolchain.run(
            ["avr-objcopy", "-I", "ihex", "-O", "binary", TestPaths.packageRoot.appendingPathComponent(hex).path, out.path])
        XCTAssertEqual(result.status, 0, result.output)
        return [UInt8](try Data(contentsOf: out))
    }

    /// A valid Intel HEX file of `bytes` bytes of NOPs from address `start`.
    static func hexFile(bytes: Int, at start: Int = 0) -> String {
        var text = ""
        var address = start
        while address < start + bytes {
            let count = min(16, start + bytes - address)
            var record = [UInt8(count), UInt8(address >> 8), UInt8(address & 0xFF), 0] + [UInt8](repeating: 0, count: count)
            record.append(UInt8((256 - record.reduce(0) { ($0 + Int($1)) & 0xFF }) & 0xFF))
            text += ":" + record.map { String(format: "%02X", $0) }.joined() + "\n"
            address += count
        }
        return text + ":00000001FF\n"
    }
}

/// What is refused before any tool runs: a port another process holds (named), a board that does
/// not exist, and a build without its compiler.
final class FirmwarePreflightTests: XCTestCase {
    /// `thrum sim --worn-flash` takes an application address of a simulated board, and says so
    /// in one line otherwise (refused before the harness starts).
    func testWornFlashTakesAnApplicationAddressOfABoard() throws {
        for (arguments, message) in [
            (["--board", "nano", "--worn-flash", "0x7900"], "--worn-flash 0x7900: nano's boot section starts at 0x7800; give an address below it"),
            (["--board", "uno", "--worn-flash", "0x9000"], "--worn-flash expects a byte address in the 32 KiB flash, e.g. 0x3010, got '0x9000'"),
            (["--worn-flash", "16"], "--flash and --worn-flash are for bootloader mode: give --board too"),
        ] {
            let result = try BootloaderBoard.thrum(["sim", "--mcu", "atmega328p"] + arguments)
            XCTAssertEqual(result.status, 2, result.output)
            XCTAssertEqual(result.stderr, "thrum: \(message)\nRun 'thrum sim --help' for its options.\n")
        }
    }

    func testAPortHeldByAnotherProcessIsNamed() throws {
        // This test process keeps the device side open: to thrum, another program on the port.
        let terminal = try PseudoTerminal(keepsDeviceSideOpen: true)
        defer { terminal.close() }
        let result = try BootloaderBoard.thrum(["firmware", "flash", "--board", "uno", "--port", terminal.devicePath])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stderr.contains("port busy: \(terminal.devicePath) is held by ") && result.stderr.contains("(pid \(getpid()))"),
            result.stderr)
    }

    func testBuildPrintsTheSizeAgainstTheBudgetOrNamesTheMissingCompiler() throws {
        _ = try AVRToolchain.prepare(firmware: "avr")
        let build = try BootloaderBoard.thrum(["firmware", "build", "--board", "uno"])
        XCTAssertEqual(build.status, 0, build.output)
        XCTAssertTrue(build.stdout.contains("AVR (ATmega328P) budget ok"), build.stdout)
        XCTAssertNotNil(
            build.stdout.range(of: #"hardware/firmware/build/avr/thrum\.hex: [0-9]+ B of the 12288 B budget"#, options: .regularExpression),
            build.stdout)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-empty-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let missing = try ThrumProcess.run(["firmware", "build", "--board", "uno"], environment: ["PATH": empty.path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(
            missing.standardError, "thrum: avr-gcc not found: install the Debian packages gcc-avr and avr-libc (tools/ensure-deps.sh)\n")
    }
}

/// `thrum firmware list --json` against the files the firmware builds from: each board's pins as
/// the ports define them, each image's budget as hardware/firmware/Makefile enforces it.
final class FirmwareListTests: XCTestCase {
    func testBoardTableMatchesTheFirmwareSources() throws {
        let result = try BootloaderBoard.thrum(["firmware", "list", "--json"])
        XCTAssertEqual(result.status, 0, result.output)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let boards = try XCTUnwrap(object["boards"] as? [[String: Any]])
        XCTAssertEqual(boards.compactMap { $0["id"] as? String }, ["uno", "nano", "nano-old", "bluepill"])
        let root = TestPaths.packageRoot.appendingPathComponent("hardware/firmware")
        func source(_ path: String) throws -> String { try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }
        let makefile = try source("Makefile")
        // The pin headers the firmware builds from (and the wiring diagrams are drawn from): a
        // line `#define THRUM_PIN_<ROLE> <bit> /* <board pin> -> … */`.
        func pinTable(_ path: String) throws -> [String: (bit: String, pin: String)] {
            var table: [String: (bit: String, pin: String)] = [:]
            for line in try source(path).split(separator: "\n") where line.hasPrefix("#define THRUM_PIN_") && line.contains("/*") {
                let words = line.split(separator: " ", omittingEmptySubsequences: true)
                guard words.count >= 5 else { continue }
                let role = String(words[1].dropFirst("THRUM_PIN_".count))
                table[role] = (String(words[2]), String(words[4]))
            }
            return table
        }
        let avrPins = try pinTable("ports/avr/pins.h"), armPins = try pinTable("ports/cortex-m/pins.h")
        func avr(_ role: String) -> String { avrPins[role].map { "\($0.pin) (\($0.bit))" } ?? "no \(role) in pins.h" }
        func arm(_ role: String) -> String {
            armPins[role].map { "P\($0.pin.prefix(1))\($0.bit.filter(\.isNumber))" } ?? "no \(role) in pins.h"
        }
        for board in boards {
            let id = board["id"] as? String ?? "?"
            let pins = try XCTUnwrap(board["pins"] as? [String: Any])
            let bootloader = try XCTUnwrap(board["bootloader"] as? [String: Any])
            let images = try XCTUnwrap(board["images"] as? [[String: Any]])
            if id == "bluepill" {
                XCTAssertEqual(pins["sda"] as? String, arm("SDA"))
                XCTAssertEqual(pins["scl"] as? String, arm("SCL"))
                XCTAssertEqual(pins["en"] as? String, arm("EN"))
                XCTAssertEqual(bootloader["tool"] as? String, "stm32flash")
                XCTAssertTrue(makefile.contains("--arch arm --flash-max \(images[0]["budget"] as? Int ?? -1)"))
                continue
            }
            XCTAssertEqual(pins["en"] as? String, avr("EN"))
            XCTAssertEqual(pins["sda"] as? String, avr("SDA"))
            XCTAssertEqual(pins["scl"] as? String, avr("SCL"))
            XCTAssertEqual(pins["triggers"] as? [String], [avr("TRIGGER0"), avr("TRIGGER1")])
            XCTAssertEqual(bootloader["baud"] as? Int, id == "nano-old" ? 57600 : 115200)
            let budgets = Dictionary(uniqueKeysWithValues: images.map { ($0["make_target"] as? String ?? "", $0["budget"] as? Int ?? -1) })
            XCTAssertTrue(makefile.contains("AVR_BUDGET := $(INDIRECT) --arch avr --flash-max \(budgets["avr"] ?? -1) "))
            XCTAssertTrue(makefile.contains("AVR_LIB_BUDGET := $(INDIRECT) --arch avr --flash-max \(budgets["avr-library"] ?? -1) "))
        }
    }
}

/// The Blue Pill path: the real stm32flash against a simulated STM32 ROM bootloader
/// (``STM32ROMBootloader``, AN3155 on a pseudo-terminal). The Cortex-M image cannot run here, so
/// the reconnect that follows finds no Thrum firmware and says so: the flash is judged on the
/// bootloader's memory, byte for byte, and on the GO it received.
final class BluePillFlashTests: XCTestCase {
    func testStm32flashWritesAndVerifiesThroughTheROMBootloader() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/stm32flash") else {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("stm32flash is missing (tools/ensure-deps.sh)") }
            throw XCTSkip("stm32flash is missing (tools/ensure-deps.sh)")
        }
        let build = try AVRToolchain.run(["make", "-s", "-C", TestPaths.packageRoot.appendingPathComponent("hardware/firmware").path, "cortex-m"])
        guard build.status == 0 else {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(build.output) }
            throw XCTSkip("the Cortex-M build needs gcc-arm-none-eabi: \(build.output.suffix(500))")
        }
        let rom = try STM32ROMBootloader()
        defer { rom.stop() }
        let result = try BootloaderBoard.thrum(["firmware", "flash", "--board", "bluepill", "--port", rom.slavePath, "--json"])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.stderr.contains("flashed and verified, but no Thrum firmware answered on \(rom.slavePath)"), result.stderr)
        XCTAssertTrue(result.stdout.contains(#"{"event":"progress","percent":100,"phase":"write"}"#), result.stdout)

        let image = [UInt8](try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("hardware/firmware/build/cortex-m/thrum.bin")))
        let flash = rom.flash
        let differing = zip(flash.prefix(image.count), image).filter { $0 != $1 }.count
        XCTAssertEqual(differing, 0, "the ROM bootloader's flash equals the image byte for byte")
        XCTAssertTrue(flash[image.count...].allSatisfy { $0 == 0xFF })
        let log = rom.log
        XCTAssertEqual(log.go, STM32ROMBootloader.flashBase, "stm32flash -g 0x0 started the image at the flash base")
        XCTAssertTrue(log.commands.contains(0x43) && log.commands.contains(0x31) && log.commands.contains(0x11), "\(log.commands)")
    }
}
