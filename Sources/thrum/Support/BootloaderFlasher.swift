import Foundation
import ThrumLink

#if canImport(Glibc)
import Glibc
#endif

/// Writes an image through a board's own bootloader with the board's tool (`avrdude` for the
/// Arduino bootloaders, `stm32flash` for the STM32 ROM bootloader), run as a separate program:
/// its output is read as it comes, turned into progress (writing, then verifying), and its
/// failures into one line naming the cause and its fix (``FlashFailure``).
struct BootloaderFlasher {
    let board: Board
    let port: String
    let image: String
    /// How many times avrdude tries to reach the bootloader (`-x attempts=N`; each try waits
    /// about 5 s for an answer).
    var attempts = 3

    /// One step of progress: `phase` is `write` or `verify`, `percent` 0…100.
    struct Progress {
        var phase: String
        var percent: Int
    }

    /// What the tool reported when it succeeded.
    struct Outcome {
        /// The tool's own time figures (avrdude's "100% 1.16s" for writing and for verifying),
        /// summed; nil when it printed none.
        var toolSeconds: Double?
        var output: String
    }

    /// The program and its arguments.
    var command: [String] {
        switch board.bootloader.tool {
        case .avrdude(let part):
            let format = image.hasSuffix(".hex") ? "i" : (image.hasSuffix(".elf") ? "e" : "r")
            return [
                "avrdude", "-c", "arduino", "-p", part, "-P", port, "-b", String(board.bootloader.baud),
                "-x", "attempts=\(attempts)", "-U", "flash:w:\(image):\(format)",
            ]
        case .stm32flash:
            // The ROM bootloader's USART runs 8E1 (stm32flash's default); a pseudo-terminal (a
            // simulated bootloader) refuses parity settings, and carries none: 8N1 there.
            let mode = port.hasPrefix("/dev/pts/") ? ["-m", "8n1"] : []
            return ["stm32flash", "-b", String(board.bootloader.baud)] + mode + ["-w", image, "-v", "-g", "0x0", port]
        }
    }

    /// Runs the tool; `progress` is called as its output arrives.
    func run(progress: (Progress) -> Void) throws(FlashFailure) -> Outcome {
        let command = self.command
        guard let executable = Self.which(command[0]) else {
            throw FlashFailure(
                kind: .toolMissing,
                message: "\(command[0]) is not installed: install the Debian package \(command[0]) (tools/ensure-deps.sh does)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw FlashFailure(kind: .toolMissing, message: "cannot run \(executable): \(error.localizedDescription)")
        }
        // Foundation starts the tool in a process group of its own, so the terminal's Ctrl-C
        // reaches only thrum: passed on, or the tool went on writing the board after thrum ended.
        Thread.detachNewThread {
            while process.isRunning {
                if Interrupt.requested {
                    process.interrupt()
                    return
                }
                usleep(20_000)
            }
        }
        var parser = ProgressParser()
        var output = Data()
        while true {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
            for step in parser.feed(chunk) { progress(step) }
        }
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        if process.terminationStatus != 0 || Self.failed(text) {
            throw FlashFailure.classify(output: text, board: board, port: port, tool: command[0])
        }
        return Outcome(toolSeconds: parser.toolSeconds, output: text)
    }

    /// avrdude exits 0 after some failures it only warns about; a verification error never passes.
    static func failed(_ output: String) -> Bool {
        output.contains("verification error") || output.contains("verification mismatch")
    }

    /// The tool on PATH.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Turns avrdude's bars (`Writing | ####… | 100% 1.16s`, a `#` per 2 %) and stm32flash's
    /// `Wrote and verified address 0x… (NN.NN%)` into steps.
    struct ProgressParser {
        private var phase: String?
        private var hashes = 0
        private var lastPercent = -1
        private var line = ""
        private(set) var toolSeconds: Double?

        mutating func feed(_ data: Data) -> [Progress] {
            var steps: [Progress] = []
            for byte in data {
                let character = Character(UnicodeScalar(byte))
                if character == "\n" || character == "\r" {
                    finishLine(&steps)
                    line = ""
                    continue
                }
                line.append(character)
                if line.hasSuffix("Writing |") { start("write", &steps) }
                if line.hasSuffix("Reading |") { start("verify", &steps) }
                if character == "#", let phase {
                    hashes += 1
                    emit(phase, min(100, hashes * 2), &steps)
                }
            }
            return steps
        }

        private mutating func start(_ name: String, _ steps: inout [Progress]) {
            // avrdude 7 reads the signature with a bar of its own before writing: only the bars
            // after a write count as verifying.
            if name == "verify", phase == nil { return }
            phase = name
            hashes = 0
            lastPercent = -1
            emit(name, 0, &steps)
        }

        private mutating func emit(_ name: String, _ percent: Int, _ steps: inout [Progress]) {
            guard percent != lastPercent else { return }
            lastPercent = percent
            steps.append(Progress(phase: name, percent: percent))
        }

        private mutating func finishLine(_ steps: inout [Progress]) {
            if let range = line.range(of: #"100% ([0-9.]+)s"#, options: .regularExpression), phase != nil {
                let figure = line[range].dropFirst(5).dropLast()
                if let seconds = Double(figure) { toolSeconds = (toolSeconds ?? 0) + seconds }
            }
            if let range = line.range(of: #"\(([0-9.]+)%\)"#, options: .regularExpression),
                let value = Double(line[range].dropFirst().dropLast(2))
            {
                emit("write", Int(value), &steps)  // stm32flash writes and verifies block by block
            }
        }
    }
}

/// Why a flash failed, with the fix: one line a person can act on.
struct FlashFailure: Error, LocalizedError, CustomStringConvertible {
    enum Kind: String {
        case noAnswer = "no-answer"
        case permission
        case busy
        case noPort = "no-port"
        case verifyMismatch = "verify-mismatch"
        case overBudget = "over-budget"
        case badImage = "bad-image"
        case toolMissing = "tool-missing"
        case wrongFirmware = "wrong-firmware"
        case failed
    }

    let kind: Kind
    let message: String
    var description: String { message }
    var errorDescription: String? { message }

    /// The one-line reason in the tool's output.
    static func classify(output: String, board: Board, port: String, tool: String) -> FlashFailure {
        let lower = output.lowercased()
        if lower.contains("verification error") || lower.contains("verification mismatch") || lower.contains("failed to verify") {
            return FlashFailure(
                kind: .verifyMismatch,
                message: "verify mismatch: the flash read back differs from the image, so nothing is claimed as flashed; "
                    + "flash again, and if it repeats, the board's flash or its supply is suspect")
        }
        if lower.contains("permission denied") {
            return permission(port)
        }
        if lower.contains("device or resource busy") || lower.contains("resource temporarily unavailable") {
            return busy(port, holders: PortInspection().holders(of: port))
        }
        if lower.contains("no such file or directory") && (lower.contains("open") || lower.contains("port")) {
            return noPort(port)
        }
        if lower.contains("not in sync") || lower.contains("programmer is not responding")
            || lower.contains("failed to init device") || lower.contains("failed to read ack")
        {
            return noAnswer(board: board, port: port)
        }
        let lines = output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.contains("TIOCM") && !$0.contains("Thank you") }
        let errors = lines.filter { $0.lowercased().contains("error") || $0.lowercased().contains("fail") }
        let tail = (errors.isEmpty ? lines : errors).suffix(2).joined(separator: "; ")
        return FlashFailure(kind: .failed, message: "\(tool) failed on \(port): \(tail)")
    }

    static func noAnswer(board: Board, port: String) -> FlashFailure {
        let causes: String
        switch board.bootloader.tool {
        case .avrdude:
            let other = BoardCatalogue.boards.filter {
                if case .avrdude = $0.bootloader.tool { return $0.bootloader.baud != board.bootloader.baud }
                return false
            }.map { "--board \($0.id) (\($0.bootloader.baud) baud)" }
            causes = "a different board or bootloader baud (\(board.id) expects \(board.bootloader.name) at "
                + "\(board.bootloader.baud) baud; try \(other.joined(separator: ", "))), no auto-reset (DTR not wired: "
                + "press reset as the upload starts), or another program on the port"
        case .stm32flash:
            causes = "BOOT0 not set to 1 before reset, TX/RX swapped (adapter TX to PA10, RX to PA9), a 5 V adapter, "
                + "or another program on the port"
        }
        return FlashFailure(
            kind: .noAnswer, message: "no answer from the bootloader on \(port): likely \(causes); nothing was written")
    }

    static func permission(_ port: String) -> FlashFailure {
        FlashFailure(
            kind: .permission,
            message: "permission denied on \(port): join the dialout group (sudo usermod -aG dialout $USER), then log out "
                + "and back in")
    }

    static func busy(_ port: String, holders: [PortHolder]) -> FlashFailure {
        var named = holders.prefix(3).map { "\($0.command) (pid \($0.pid))" }
        if holders.count > 3 { named.append("\(holders.count - 3) more") }
        let who = holders.isEmpty ? "another program" : named.joined(separator: ", ")
        return FlashFailure(
            kind: .busy, message: "port busy: \(port) is held by \(who); close it (or stop it) and flash again")
    }

    static func noPort(_ port: String) -> FlashFailure {
        FlashFailure(
            kind: .noPort,
            message: "no port \(port): is the board plugged in? `thrum devices` lists the serial ports this machine has")
    }
}
