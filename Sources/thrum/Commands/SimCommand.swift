import Foundation
import ThrumCompiler
import ThrumHarness
import ThrumLink
import ThrumSim
import ThrumTime

/// `thrum sim`: serve the virtual device on a pseudo-terminal until stopped.
enum SimCommand: Subcommand {
    static let name = "sim"
    static let summary = "serve the virtual device (or the AVR firmware in simavr) on a pseudo-terminal"
    static let usage = """
        Usage: thrum sim [options]
               thrum sim --mcu atmega328p [--actuator NAME] [--elf PATH] [--storage FILE] [--trace CSV] [--host-log CSV]
               thrum sim --mcu atmega328p [--actuator NAME] --board uno|nano|nano-old [--flash FILE] [--worn-flash ADDR] [--storage FILE] [--trace CSV]

        Opens a pseudo-terminal, prints `pty: /dev/pts/N` as the first line on standard output, and
        serves the virtual device (the real firmware core, a DRV2605L model and an LRA model) on it
        in real time until stopped (Ctrl-C or SIGTERM). Point `thrum play --port` at the printed path.

        Options:
          --actuator NAME    actuator profile the virtual device is built around: a built-in id
                             (thrum actuator list) or a profile FILE.json (--profile NAME: the same)
          --drift-ppm X      frequency error of the device's crystal, in ppm (default 0)
          --supply V         the driver's supply VDD, 2.0…5.2 V (default 5.0); a rated voltage whose
                             peak needs more than VDD / 1.5 fails calibration
          --no-actuator      nothing on the driver's outputs (an open coil): calibration fails
          --no-driver        no DRV2605L on the I²C bus (a breakout not wired or not powered): the
                             firmware reports driver id 0
          --mounted NAME     a different actuator (built-in id or FILE.json) is wired to a board set
                             up for --actuator: calibration finds its resonance, not the profile's
          --storage FILE     give the device a library storage (a 24LC256-class 32 KiB EEPROM) kept in
                             FILE across restarts: `thrum flash LIB.thl --port PTY` writes it, the
                             library survives quitting and restarting the simulator. While serving,
                             a line `trigger N` (or just `N`) on standard input presses trigger
                             input N (0…7) for 100 ms: the preset the library maps to it plays.
                             In the background (`thrum sim … &`) it serves on and reads its
                             terminal again once brought to the foreground
          --triggers PATH    read `trigger N` lines from PATH (a FIFO: `mkfifo`, for scripts and
                             services) instead of standard input
          --trace CSV        write every register write of the chip model as it happens:
                             time_us (true time since serving started), monotonic_ns (the same
                             instant on CLOCK_MONOTONIC, the clock `thrum play --json` reports
                             start_host_monotonic_ns on), register, value
          --fault SPEC       inject faults, e.g.
                             loss=0.05,corrupt=0.05,dup=0.01,reorder=0.01,stall=200ms@1.5s,disconnect@2s,reset@3s
                             loss/corrupt/dup/reorder=P: per chunk of bytes, both ways (P 0…1 or 5%);
                             reorder holds a chunk 2 ms so the next overtakes it; stall=D@T: nothing
                             crosses from T for D; disconnect@T: the pty hangs up and sim exits;
                             reset@T: the device's microcontroller resets (repeatable); seed=N.
                             Times count from the start of serving; units us, ms or s.
          --link SPEC        delay the bytes on the pseudo-terminal as a link would: a link model
                             by name (usb-fs, ftdi-115200-16ms, ch340, … as in `thrum bench`), or
                             out=A-B,back=A-B (per-direction delays, uniform), stall=A-B@P (a
                             chunk held A to B with probability P, and what follows it waits),
                             tick=T (device → host bytes released only on a T tick), step=A@T
                             (from T on, each chunk either way delayed a further A: a link that
                             degrades; repeatable, steps add up), baud=N, seed=N; e.g.
                             out=0.3-0.6ms,back=2-6ms. Bytes keep their order on each leg.
                             Combine with --fault for loss and bit flips

        With --mcu, the firmware binary itself runs instead, in the simavr AVR simulator: the
        separate `avrsim` program (hardware/avrsim; simavr is GPL-3.0 and stays out of Thrum) with a
        DRV2605L model on its I²C bus, paced to the wall clock. It prints the same `pty:` line.
          --mcu NAME         atmega328p
          --elf PATH         firmware image (default: hardware/firmware/build/avr/thrum.elf, built
                             with make when missing; with --storage the library image,
                             hardware/firmware/build/avr-library/thrum.elf, `make avr-library`)
          --actuator NAME    the actuator wired to the board (default \(ActuatorProfile.default.id)): the
                             driver model measures its resonance when calibrating
          --storage FILE     a 24LC256 EEPROM at 0x50 on the I²C bus, its 32 KiB kept in FILE across
                             restarts (the library image's storage); a line `trigger N` on standard
                             input presses trigger input N (0: PB0, 1: PB1) for 100 ms
          --trace CSV        write every DRV2605L register write (time_us,register,value,pacing_lag_us)
          --host-log CSV     write every byte the host sent, with the simulated time it arrived
          --fault SPEC       corrupt=P[,seed=N] only: each frame, either way, has one bit flipped
                             with probability P (frames found by their header, so P counts frames)
          --board B          bootloader mode, no --elf: the board's real bootloader (uno, nano: optiboot
                             at 115200 baud; nano-old: ATmegaBOOT at 57600) in its boot section with the
                             board's fuses (the reset vector at the boot section), running what the
                             flash holds. Opening the pty resets the MCU into the bootloader, as DTR
                             does on a board: `thrum firmware flash --board B --port PTY` writes the
                             flash with avrdude, and the firmware starts when the bootloader hands over
          --flash FILE       the simulated 32 KiB flash, kept in FILE across restarts (created erased:
                             then only the bootloader runs); without it the flash starts erased and is
                             not kept
          --worn-flash ADDR  a worn flash cell (with --board): the byte at ADDR (e.g. 0x3010, below the
                             boot section) keeps nothing written and reads erased, so avrdude's verify
                             fails there, as on a board whose flash no longer holds a charge
        """

    /// Refuses an output file (`--trace`, `--host-log`) that is one of the files the simulator
    /// reads or keeps (its storage, its flash, the profile), or another output.
    private static func refuseOverwriting(outputs: [(option: String, path: String?)], inputs: [(path: String?, what: String)]) throws(UsageError) {
        let given = inputs.compactMap { input in input.path.map { (path: $0, what: input.what) } }
        var earlier: [(path: String, what: String)] = []
        for case let (option, path?) in outputs {
            try OutputFile.refuseOverwriting(path, option: option, inputs: given)
            if let other = earlier.first(where: { OutputFile.sameFile($0.path, path) }) {
                throw UsageError(message: "--\(option) and \(other.what) name the same file: give two")
            }
            earlier.append((path, "--\(option)"))
        }
    }

    /// A byte address in the ATmega328P's 32 KiB flash: decimal, or hex with 0x.
    static func flashAddress(_ text: String) -> Int? {
        let value = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
        return value.flatMap { (0..<32768).contains($0) ? $0 : nil }
    }

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        if let mcu = try arguments.option("mcu") {
            var request = AVRSimLauncher.Request(
                mcu: mcu, elf: try arguments.option("elf"), trace: try arguments.option("trace"),
                hostLog: try arguments.option("host-log"))
            request.storage = try arguments.option("storage")
            request.board = try arguments.option("board").map { id in
                guard let board = BoardCatalogue.simulatedBoards.first(where: { $0.id == id }) else {
                    let ids = BoardCatalogue.simulatedBoards.map(\.id).joined(separator: ", ")
                    throw UsageError(message: "--board \(id): the simulated boards are \(ids)")
                }
                return board
            }
            request.flash = try arguments.option("flash")
            request.wornFlash = try arguments.option(
                "worn-flash", as: flashAddress, expected: "a byte address in the 32 KiB flash, e.g. 0x3010")
            if let faultText = try arguments.option("fault") {
                request.faults = try AVRSimLauncher.faults(faultText)
            }
            // The actuator wired to the board: its resonance is what the harness's DRV2605L measures.
            let avrActuatorFile = InputFiles.actuator(in: arguments)
            request.resonanceHz = (try ActuatorChoice.take(from: &arguments) ?? ActuatorProfile.default).physical.resonanceHz
            for option in ["drift-ppm", "supply", "mounted"] where try arguments.option(option) != nil {
                throw UsageError(
                    message: "--\(option) is for the virtual device; with --mcu the AVR binary runs with its own board "
                        + "defaults and a 16 MHz clock")
            }
            _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
            try arguments.finish()
            try refuseOverwriting(
                outputs: [("trace", request.trace), ("host-log", request.hostLog)],
                inputs: [(request.storage, "library storage"), (request.flash, "flash file"), (request.elf, "firmware image")]
                    + avrActuatorFile.map { ($0.path, $0.what) })
            try AVRSimLauncher.run(request)
        }
        let actuatorFile = InputFiles.actuator(in: arguments)
        let mountedFile = arguments.peekOption("mounted").flatMap { ActuatorProfile.builtIn(id: $0) == nil ? $0 : nil }
        let chosenProfile = try ActuatorChoice.take(from: &arguments)
        let drift = try arguments.option("drift-ppm", as: { Double($0) }, expected: "a number") ?? 0
        let supply = try arguments.option(
            "supply", as: { Double($0).flatMap { $0.isFinite && $0 >= 2.0 && $0 <= 5.2 ? $0 : nil } },
            expected: "a supply voltage from 2.0 to 5.2 V (the DRV2605L's range)")
        let noActuator = arguments.flag("no-actuator")
        let noDriver = arguments.flag("no-driver")
        let mounted = try arguments.option("mounted").map { try ActuatorChoice.resolve($0) }
        let faultText = try arguments.option("fault")
        let linkText = try arguments.option("link")
        let tracePath = try arguments.option("trace")
        let storagePath = try arguments.option("storage")
        let triggersPath = try arguments.option("triggers")
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()
        try refuseOverwriting(
            outputs: [("trace", tracePath)],
            inputs: [(storagePath, "library storage"), (triggersPath, "triggers file"), (mountedFile, "mounted actuator's profile")]
                + actuatorFile.map { ($0.path, $0.what) })
        let driftRange = VirtualDevice.Configuration.crystalErrorPPMRange
        guard drift.isFinite, driftRange.contains(drift) else {
            throw UsageError(
                message: "--drift-ppm must be a number from \(Int(driftRange.lowerBound)) to \(Int(driftRange.upperBound)) ppm, got \(drift)")
        }

        var faults = FaultPlan()
        if let faultText {
            do {
                faults = try FaultPlan(parsing: faultText)
            } catch {
                throw UsageError(message: "--fault: \(error.description)")
            }
        }
        var link: (any LinkModel)?
        if let linkText {
            do {
                link = try LinkSpec.link(parsing: linkText)
            } catch {
                throw UsageError(message: "--link: \(error.description)")
            }
        }
        let profile = chosenProfile ?? ActuatorProfile.default
        let terminal: PseudoTerminal
        do {
            terminal = try PseudoTerminal()
        } catch {
            throw CommandFailure(message: "cannot open a pseudo-terminal: \(error)")
        }
        var configuration = VirtualDeviceFactory.configuration(for: profile, crystalErrorPPM: drift)
        var board = "crystal \(drift) ppm"
        if let supply {
            configuration.chip.supplyVoltage = supply
            board += ", VDD \(supply) V"
        }
        if let mounted {
            // The board was set up for `profile`, but another actuator is wired to it.
            configuration.actuator = VirtualDeviceFactory.lraParameters(for: mounted)
            board += ", but a \(mounted.name) (\(mounted.id)) is mounted"
        }
        if noActuator {
            configuration.actuator = .absent
            board += ", no actuator connected"
        }
        if noDriver {
            configuration.driverOnBus = false
            board += ", no driver on the I²C bus"
        }
        if let storagePath {
            do {
                configuration.storage = try LibraryStorage(file: URL(fileURLWithPath: storagePath))
            } catch {
                throw CommandFailure(message: "--storage: \(error.description)")
            }
        }
        let device = VirtualDevice(configuration: configuration)
        print("pty: \(terminal.devicePath)")
        print("virtual device: \(profile.name), \(board); serving until stopped")
        if let storagePath {
            if let library = device.activeLibrary {
                print("library storage \(storagePath): library of \(library.size) B, CRC-32 \(LibraryCommand.hexCRC(library.crc)), slot \(library.slot) (record \(library.seq)); type `trigger N` to press input N")
            } else {
                print("library storage \(storagePath): no library stored (flash one with `thrum flash LIB.thl --port \(terminal.devicePath)`)")
            }
        }
        try ProcessStreams.requireFlushed()
        let triggers: TriggerLines?
        if let triggersPath {
            let descriptor = open(triggersPath, O_RDWR)  // a FIFO opened read-write never reads end of file
            guard descriptor >= 0 else {
                throw CommandFailure(message: "--triggers: cannot open \(triggersPath): \(String(cString: strerror(errno)))")
            }
            triggers = TriggerLines(descriptor: descriptor)
        } else {
            triggers = storagePath == nil ? nil : TriggerLines(descriptor: 0)
        }
        if !faults.isEmpty { print("injecting faults: \(faultText ?? "")") }
        if let linkText { print("link: \(linkText)") }
        try ProcessStreams.requireFlushed()
        let server = DeviceServer(device: device, transport: terminal.master)
        if let link { server.link = link }
        server.faults = faults
        // A trace that cannot be written (a full disk) stops the simulator with that error.
        var traceFailure: CommandFailure?
        if let tracePath {
            let file = try OutputFile.handle(tracePath, what: "trace")
            try OutputFile.write("time_us,monotonic_ns,register,value\n", to: file, path: tracePath, what: "trace")
            server.registerWriteSink = { writes, hostTime in
                guard traceFailure == nil else { return }
                var text = ""
                for w in writes {
                    text += "\(w.time),\(hostTime(w.time).nanoseconds),\(w.register),\(w.value)\n"
                }
                do throws(CommandFailure) {
                    try OutputFile.write(text, to: file, path: tracePath, what: "trace")
                } catch {
                    traceFailure = error
                }
            }
        }
        server.onDeviceFault = { fault in
            switch fault {
            case .disconnect(let t): print("fault: disconnecting at \(seconds(t))")
            case .reset(let t): print("fault: device reset at \(seconds(t))")
            case .clockLoss(let t, let micros): print("fault: the device clock lost \(micros) µs at \(seconds(t))")
            }
            flushStandardOutput()
        }
        var releases: [(input: Int, at: UInt64)] = []
        do {
            try server.serve(shouldStop: {
                for input in triggers?.take() ?? [] {
                    device.setTrigger(input, active: true)
                    releases.append((input, device.now + 100_000))
                    print("trigger \(input) pressed")
                    flushStandardOutput()
                }
                while let first = releases.first, device.now >= first.at {
                    releases.removeFirst()
                    device.setTrigger(first.input, active: false)
                }
                return traceFailure != nil
            })
        } catch .disconnected where faults.disconnect != nil {
            let c = server.injectedLinkFaults
            print("disconnected as asked; link faults injected: \(c.lost) lost, \(c.corrupted) corrupted, \(c.duplicated) duplicated, \(c.reordered) reordered, \(c.stalled) stalled")
            return 0
        } catch {
            throw CommandFailure(message: "the pseudo-terminal failed: \(error)")
        }
        if let traceFailure { throw traceFailure }
        return 0
    }
}

/// Lines `trigger N` (or `N`) read from a descriptor (standard input, or a FIFO given with
/// `--triggers`) on a thread of their own, handed to the serving loop (which owns the device)
/// through a lock.
final class TriggerLines: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Int] = []

    /// Reads lines from `descriptor` until its end of file (the simulator serves on after it).
    ///
    /// A simulator started in the background (`thrum sim … &`) must not be stopped by its shell
    /// for reading the terminal (SIGTTIN, "Stopped (tty input)"): the signal is ignored, so such a
    /// read fails with EIO instead, and the thread tries again every 250 ms until the job is
    /// brought to the foreground.
    init(descriptor: Int32) {
        if descriptor == 0 { signal(SIGTTIN, SIG_IGN) }
        // Raw reads of the descriptor, not readLine(): a thread blocked in getline holds the stdin
        // FILE lock, and fflush(NULL) elsewhere would wait for it forever.
        let thread = Thread { [weak self] in
            var line: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 256) }
                if n < 0, errno == EIO || errno == EINTR || errno == EAGAIN {
                    usleep(250_000)
                    continue
                }
                if n <= 0 { return }
                for byte in buffer[0..<n] {
                    guard byte == UInt8(ascii: "\n") else {
                        line.append(byte)
                        continue
                    }
                    let text = String(decoding: line, as: UTF8.self)
                    line.removeAll()
                    let word = text.replacingOccurrences(of: "trigger", with: "").trimmingCharacters(in: .whitespaces)
                    guard let n = Int(word), (0..<8).contains(n) else {
                        printError("sim: type `trigger N` with N 0…7")
                        continue
                    }
                    guard let self else { return }
                    self.lock.lock()
                    self.pending.append(n)
                    self.lock.unlock()
                }
            }
        }
        thread.start()
    }

    /// The inputs asked for since the last call.
    func take() -> [Int] {
        lock.lock()
        defer { lock.unlock() }
        defer { pending.removeAll() }
        return pending
    }
}

/// `1.500 s` from µs.
private func seconds(_ us: UInt64) -> String { String(format: "%.3f s", Double(us) / 1e6) }
