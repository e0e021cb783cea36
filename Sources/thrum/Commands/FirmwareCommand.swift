import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumWire

#if canImport(Glibc)
import Glibc
#endif

/// `thrum firmware list | build | flash`: the supported boards, building their images, and
/// writing an image through a board's own bootloader (``BootloaderFlasher``).
enum FirmwareCommand: Subcommand {
    static let name = "firmware"
    static let summary = "list the supported boards, build their firmware, flash it through the board's bootloader"
    static let usage = """
        Usage: thrum firmware list [--json]
               thrum firmware build --board B [--library]
               thrum firmware flash --board B --port PATH [--library | --image FILE] [--attempts N] [--json]

        list     each supported board (\(BoardCatalogue.ids)): its MCU, how it talks to the host, its
                 bootloader, the pins the firmware uses (SDA, SCL, the DRV2605L's EN, trigger inputs) and
                 its images' sizes against their budgets (built ones)
        build    builds the board's image with the Debian toolchains (gcc-avr, gcc-arm-none-eabi) from
                 hardware/firmware in this checkout, and prints its size against the budget
        flash    writes the image through the board's own bootloader: avrdude with the Arduino bootloader
                 protocol (uno, nano: optiboot at 115200 baud; nano-old: ATmegaBOOT at 57600), or
                 stm32flash through the STM32 ROM bootloader (bluepill: set BOOT0 to 1 and press reset
                 first). The image is checked first (Intel HEX records, budget, the bootloader's section):
                 a broken or oversized one is refused and the previous firmware stays. Progress shows as a
                 bar on a terminal (--json: JSON lines). The tool verifies what it wrote; then thrum
                 reconnects and checks that the device answers with this firmware's version and protocol.
                 A running Thrum firmware is reflashed the same way: opening the port resets an Arduino
                 into its bootloader (DTR auto-reset; `thrum sim --board` does the same on its pty).

        Options:
          --board B          \(BoardCatalogue.ids)
          --library          the preset-library image (make avr-library) instead of the streaming one
          --image FILE       flash this file (Intel HEX for AVR boards, raw binary for bluepill)
          --port PATH        the board's serial port (or `thrum sim --board`'s pseudo-terminal)
          --attempts N       how many times avrdude tries to reach the bootloader, about 5 s each (default 3)
          --json             list: one JSON object; flash: JSON lines ({"event": "progress", ...}, then
                             {"event": "done", ...})
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        guard let verb = arguments.leadingWord() else {
            throw UsageError(message: "give list, build or flash")
        }
        switch verb {
        case "list": return try list(&arguments)
        case "build": return try build(&arguments)
        case "flash": return try flash(&arguments)
        default: throw UsageError(message: "unknown firmware command '\(verb)': give list, build or flash")
        }
    }

    static func takeBoard(_ arguments: inout ArgumentList) throws -> Board {
        guard let id = try arguments.option("board") else {
            throw UsageError(message: "give --board: \(BoardCatalogue.ids)")
        }
        guard let board = BoardCatalogue.board(id) else {
            throw UsageError(message: "--board \(id): the supported boards are \(BoardCatalogue.ids)")
        }
        return board
    }

    static func takeImage(_ arguments: inout ArgumentList, board: Board) throws -> FirmwareImage {
        let kind: FirmwareImage.Kind = arguments.flag("library") ? .library : .streaming
        guard let image = board.image(kind) else {
            throw UsageError(message: "--library: \(board.id) has no library image yet (only the streaming one)")
        }
        return image
    }

    // MARK: list

    static func list(_ arguments: inout ArgumentList) throws -> Int32 {
        let json = arguments.flag("json")
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()
        if json {
            JSONOutput.print(["boards": BoardCatalogue.boards.map(boardJSON)])
            return 0
        }
        for (index, board) in BoardCatalogue.boards.enumerated() {
            if index > 0 { print("") }
            print("\(board.id): \(board.name)")
            print("  MCU         \(board.mcu)")
            print("  host link   \(board.hostLink)")
            let bootloader = board.bootloader
            print("  bootloader  \(bootloader.name), \(bootloader.protocolName), \(bootloader.baud) baud; \(bootloader.entry)")
            let pins = board.pins
            let triggers = pins.triggers.isEmpty ? "none" : pins.triggers.joined(separator: ", ")
            print("  pins        SDA \(pins.sda), SCL \(pins.scl), EN \(pins.enable); trigger inputs \(triggers) (\(pins.triggersNote))")
            for image in board.images {
                let size = imageSize(image).map { "\($0) B of \(image.budget) B" }
                    ?? "not built (\(image.budget) B budget): thrum firmware build --board \(board.id)\(image.kind == .library ? " --library" : "")"
                print("  \(image.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0))  \(image.checkoutPath): \(size)")
            }
        }
        return 0
    }

    /// Bytes the built image programs (text + data), nil when not built.
    static func imageSize(_ image: FirmwareImage) -> Int? {
        (try? FirmwareImageFile.read(image.checkoutPath))?.programmed
    }

    static func boardJSON(_ board: Board) -> [String: Any] {
        [
            "id": board.id, "name": board.name, "mcu": board.mcu, "host_link": board.hostLink,
            "bootloader": [
                "name": board.bootloader.name, "protocol": board.bootloader.protocolName, "baud": board.bootloader.baud,
                "tool": board.bootloader.tool.command, "entry": board.bootloader.entry,
                "boot_section": JSONOutput.orNull(board.bootloader.bootSection),
                "high_fuse": JSONOutput.orNull(board.bootloader.highFuse),
            ] as [String: Any],
            "pins": [
                "sda": board.pins.sda, "scl": board.pins.scl, "en": board.pins.enable, "triggers": board.pins.triggers,
            ] as [String: Any],
            "images": board.images.map { image -> [String: Any] in
                [
                    "kind": image.kind.rawValue, "path": image.checkoutPath, "budget": image.budget,
                    "size": JSONOutput.orNull(imageSize(image)), "make_target": image.makeTarget,
                    "protocol_version": JSONOutput.orNull(image.protocolVersion.map { Int($0) }),
                ]
            },
        ]
    }

    // MARK: build

    static func build(_ arguments: inout ArgumentList) throws -> Int32 {
        let board = try takeBoard(&arguments)
        let image = try takeImage(&arguments, board: board)
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()
        try buildImage(image, board: board, echo: true)
        return 0
    }

    /// Runs the firmware Makefile's target for `image`; prints its report when `echo`.
    static func buildImage(_ image: FirmwareImage, board: Board, echo: Bool) throws {
        let directory = BoardCatalogue.firmwareDirectory
        guard FileManager.default.fileExists(atPath: directory + "/Makefile") else {
            throw CommandFailure(message: "no \(directory)/Makefile here: run thrum firmware build from a checkout of the repository")
        }
        let compilers = image.makeTarget.hasPrefix("avr")
            ? [("avr-gcc", "gcc-avr and avr-libc"), ("avr-objcopy", "binutils-avr")]
            : [("arm-none-eabi-gcc", "gcc-arm-none-eabi and libnewlib-arm-none-eabi")]
        for (tool, package) in compilers where BootloaderFlasher.which(tool) == nil {
            throw CommandFailure(message: "\(tool) not found: install the Debian packages \(package) (tools/ensure-deps.sh)")
        }
        let (status, output) = AVRSimLauncher.runMake(["-s", "--no-print-directory", "-C", directory, image.makeTarget])
        if echo || status != 0 {
            let report = output.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("make") }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            if !report.isEmpty { (status == 0 ? { print($0) } : { printError($0) })(report) }
        }
        if status != 0 {
            if output.contains("budget EXCEEDED") {
                throw CommandFailure(message: "\(board.id) \(image.kind.rawValue) image over budget: see the report above; nothing to flash")
            }
            throw CommandFailure(message: "make -C \(directory) \(image.makeTarget) failed (see above)")
        }
        if echo, let size = imageSize(image) {
            print("\(image.checkoutPath): \(size) B of the \(image.budget) B budget (\(percent(size, image.budget)) %)")
        }
    }

    static func percent(_ part: Int, _ whole: Int) -> String { String(format: "%.1f", Double(part) * 100 / Double(whole)) }

    // MARK: flash

    static func flash(_ arguments: inout ArgumentList) throws -> Int32 {
        let board = try takeBoard(&arguments)
        let image = try takeImage(&arguments, board: board)
        if try arguments.option("place") != nil {
            throw UsageError(
                message: "--place: firmware flash writes through the serial port on the board's own machine (a labgrid "
                    + "place's port is a network one, which cannot reset the board into its bootloader); run it there with --port")
        }
        guard let port = try arguments.option("port") else {
            throw UsageError(message: "give --port PATH: the board's serial port (`thrum devices` lists them)")
        }
        let explicitImage = try arguments.option("image")
        let attempts = try arguments.option(
            "attempts", as: { Int($0).flatMap { (1...20).contains($0) ? $0 : nil } }, expected: "a whole number from 1 to 20") ?? 3
        let json = arguments.flag("json")
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()
        let started = Date()

        // 1. The image, checked before anything touches the board.
        let path = explicitImage ?? image.checkoutPath
        if explicitImage == nil, !FileManager.default.fileExists(atPath: path) {
            try buildImage(image, board: board, echo: false)
        }
        let file: FirmwareImageFile
        if case .avrdude = board.bootloader.tool, !path.hasSuffix(".hex") {
            throw CommandFailure(message: "\(path): an image for \(board.id) is an Intel HEX file (.hex), as `thrum firmware build` makes")
        }
        do {
            file = try FirmwareImageFile.read(path)
            try file.check(budget: image.budget, applicationLimit: board.applicationLimit, board: board)
        } catch {
            throw CommandFailure(message: error.description)
        }

        // 2. The port: there, ours to open, nobody else's.
        try checkPort(port)

        // 3. The board's tool through its bootloader.
        var flasher = BootloaderFlasher(board: board, port: port, image: path)
        flasher.attempts = attempts
        let bar = FirmwareProgressBar(enabled: !json && isatty(STDERR_FILENO) != 0, label: "\(board.id) \(file.programmed) B")
        let outcome: BootloaderFlasher.Outcome
        // Ctrl-C reaches the tool too (one process group): it stops, and this says where the
        // board was left, instead of ending silently the default way.
        Interrupt.install()
        func interrupted(after written: Bool) -> CommandFailure {
            let signal = Interrupt.signalNumber ?? SIGINT
            let message = written
                ? "interrupted (signal \(signal)) after \(flasher.command[0]) wrote and verified the image; not checked that the firmware answers (`thrum info --port \(port)`)"
                : "interrupted (signal \(signal)) while \(flasher.command[0]) was at work: the board may hold part of the image and run nothing; its bootloader still answers: run the same `thrum firmware flash` again"
            return CommandFailure(message: message, exitCode: 128 + signal)
        }
        do {
            outcome = try flasher.run { step in
                if json {
                    JSONOutput.printLine(["event": "progress", "phase": step.phase, "percent": step.percent])
                    flushStandardOutput()
                } else {
                    bar.show(step)
                }
            }
        } catch {
            bar.finish()
            if Interrupt.requested { throw interrupted(after: false) }
            throw CommandFailure(message: "\(error)")
        }
        bar.finish()
        if Interrupt.requested { throw interrupted(after: true) }
        let flashSeconds = Date().timeIntervalSince(started)

        // 4. The firmware answers: version and protocol.
        let identity = try confirm(board: board, image: explicitImage == nil ? image : nil, port: port)
        let total = Date().timeIntervalSince(started)
        let version = "\(identity.fwMajor).\(identity.fwMinor).\(identity.fwPatch)"
        if json {
            JSONOutput.printLine([
                "event": "done", "board": board.id, "port": port, "image": path, "bytes": file.programmed,
                "budget": image.budget, "tool": flasher.command[0],
                "tool_seconds": JSONOutput.orNull(outcome.toolSeconds.map(JSONOutput.seconds)),
                "flash_seconds": JSONOutput.seconds(flashSeconds), "total_seconds": JSONOutput.seconds(total),
                "firmware": version, "protocol": Int(identity.protocolVersion), "verified": true,
            ])
        } else {
            let toolFigure = outcome.toolSeconds.map { String(format: " (%@'s own figure: %.2f s)", flasher.command[0], $0) } ?? ""
            print(
                "flashed \(path) (\(file.programmed) B of \(image.budget) B) to \(board.name) on \(port): written and verified in "
                    + String(format: "%.2f s", flashSeconds) + toolFigure
                    + "; the device answers: firmware \(version), protocol \(identity.protocolVersion)"
                    + String(format: " (%.2f s in all)", total))
        }
        return 0
    }

    /// Refuses a port that is missing, not ours to open, or held by another process.
    static func checkPort(_ port: String) throws {
        if port.contains("://") {
            throw CommandFailure(
                message: "\(port): firmware flash writes through a serial port on this machine (avrdude and stm32flash reset "
                    + "the board into its bootloader through the port's own lines, which a network port does not carry); "
                    + "run it on the machine the board is plugged into")
        }
        var info = stat()
        guard stat(port, &info) == 0 else { throw CommandFailure(message: FlashFailure.noPort(port).message) }
        if access(port, R_OK | W_OK) != 0, errno == EACCES {
            throw CommandFailure(message: FlashFailure.permission(port).message)
        }
        let holders = PortInspection().holders(of: port)
        if !holders.isEmpty { throw CommandFailure(message: FlashFailure.busy(port, holders: holders).message) }
    }

    /// Reconnects after the flash and checks what answers: this checkout's firmware version
    /// (hardware/firmware/include/thrum_fw.h) and the image's protocol version.
    static func confirm(board: Board, image: FirmwareImage?, port: String) throws -> DeviceIdentity {
        // The bootloader hands over to the firmware, and opening the port resets an Arduino into
        // its bootloader once more: a few connects, each with the session's own timeout.
        for _ in 0..<2 {
            do {
                let target = try PlaybackTarget.open(port: port, baud: 115_200)
                defer { target.close() }
                let connection = try DeviceConnection.open(target: target, profile: ActuatorProfile.default, configure: false)
                let identity = connection.status.identity!
                connection.device.release()
                if let expected = sourceVersion(),
                    expected != [identity.fwMajor, identity.fwMinor, identity.fwPatch]
                {
                    throw CommandFailure(
                        message: "flashed and verified, but the device answers firmware \(identity.fwMajor).\(identity.fwMinor)."
                            + "\(identity.fwPatch), not this checkout's \(expected.map(String.init).joined(separator: "."))")
                }
                if let protocolVersion = image?.protocolVersion, identity.protocolVersion != protocolVersion {
                    throw CommandFailure(
                        message: "flashed and verified, but the device answers protocol \(identity.protocolVersion); the \(image!.kind.rawValue) "
                            + "image speaks \(protocolVersion)")
                }
                return identity
            } catch let failure as CommandFailure where failure.message.hasPrefix("flashed and verified") {
                throw failure
            } catch {
                continue
            }
        }
        let start = board.bootloader.tool.command == "stm32flash" ? " (BOOT0 back to 0, then reset)" : ""
        throw CommandFailure(
            message: "flashed and verified, but no Thrum firmware answered on \(port) afterwards: check that the image is a "
                + "Thrum firmware for \(board.id) and that the board runs it\(start)")
    }

    /// THRUM_FW_VERSION_MAJOR/MINOR/PATCH from this checkout's firmware, nil outside a checkout.
    static func sourceVersion() -> [UInt32]? {
        guard let text = try? String(contentsOfFile: BoardCatalogue.firmwareDirectory + "/include/thrum_fw.h", encoding: .utf8)
        else { return nil }
        let parts = ["MAJOR", "MINOR", "PATCH"].compactMap { part -> UInt32? in
            guard let range = text.range(of: "#define THRUM_FW_VERSION_\(part) [0-9]+", options: .regularExpression) else { return nil }
            return UInt32(text[range].split(separator: " ").last!)
        }
        return parts.count == 3 ? parts : nil
    }
}

/// The flash's progress bar on standard error: `uno 12222 B [#####-----] 50 % write`.
final class FirmwareProgressBar {
    let enabled: Bool
    let label: String
    private var shown = false

    init(enabled: Bool, label: String) {
        self.enabled = enabled
        self.label = label
    }

    func show(_ step: BootloaderFlasher.Progress) {
        guard enabled else { return }
        let width = 30
        let filled = step.percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let text = "\r\(label) [\(bar)] \(String(step.percent).leftPad(3)) % \(step.phase == "write" ? "writing" : "verifying")"
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
        shown = true
    }

    func finish() {
        if shown { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
        shown = false
    }
}

extension String {
    fileprivate func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
