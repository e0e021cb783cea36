import Foundation
import ThrumSim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the AVR firmware binary in simavr for `thrum sim --mcu atmega328p`.
///
/// simavr is GPL-3.0, so it never links into Thrum: the simulation is a separate program,
/// `avrsim` (hardware/avrsim), which this replaces the `thrum` process with (`execv`). Its first
/// stdout line is `pty: /dev/pts/N`, the same contract as the virtual device, and signals
/// (Ctrl-C, SIGTERM) reach it directly.
enum AVRSimLauncher {
    /// The MCUs the harness simulates.
    static let supportedMCUs = ["atmega328p"]

    /// Where the harness and the firmware image are looked for: the checkout in the working
    /// directory, or the files installed beside the binary (``ResourceRoot``).
    static var harnessMakefileDirectory: String { ResourceRoot.path("hardware/avrsim") }
    static var harnessBuildPath: String { ResourceRoot.path("hardware/avrsim/build/avrsim") }
    static var firmwareMakefileDirectory: String { ResourceRoot.path("hardware/firmware") }
    static var firmwareBuildPath: String { ResourceRoot.path("hardware/firmware/build/avr/thrum.elf") }
    /// The library image (`make avr-library`): the default with `--storage`.
    static var libraryFirmwareBuildPath: String { ResourceRoot.path("hardware/firmware/build/avr-library/thrum.elf") }

    struct Request {
        var mcu: String
        var elf: String?
        var trace: String?
        var hostLog: String?
        /// Link faults the harness injects (`--fault corrupt=P,seed=N`).
        var faults: FaultPlan?
        /// The 24LC256's contents file (`--storage FILE`): the library image's storage.
        var storage: String?
        /// Bootloader mode (`--board B`): the board's bootloader runs what the flash holds.
        var board: Board?
        /// The simulated flash's file (`--flash FILE`), with `board`.
        var flash: String?
        /// A worn flash byte's address (`--worn-flash ADDR`), with `board`: it keeps nothing written.
        var wornFlash: Int?
        /// The resonance of the actuator wired to the board (`--actuator`'s), Hz.
        var resonanceHz: Double?
    }

    /// The part of the `--fault` grammar the harness implements: corruption and its seed. Any
    /// other fault is a usage error that says so.
    static func faults(_ text: String) throws -> FaultPlan {
        let plan: FaultPlan
        do {
            plan = try FaultPlan(parsing: text)
        } catch {
            throw UsageError(message: "--fault: \(error.description)")
        }
        var supported = FaultPlan()
        supported.corruption = plan.corruption
        supported.seed = plan.seed
        guard plan == supported else {
            throw UsageError(
                message: "--fault \(text): with --mcu the harness injects corrupt=P (and seed=N) only; "
                    + "loss, dup, reorder, stall, disconnect and reset are for the virtual device")
        }
        return plan
    }

    static func hex(_ address: Int) -> String { "0x" + String(address, radix: 16, uppercase: true) }

    /// Finds (or builds) the harness and the ELF, then execs the harness. Returns only on failure.
    static func run(_ request: Request) throws -> Never {
        guard supportedMCUs.contains(request.mcu) else {
            throw UsageError(
                message: "--mcu \(request.mcu): the simulated MCUs are \(supportedMCUs.joined(separator: ", "))")
        }
        let harness = try locateHarness()
        var arguments = [harness, "--mcu", request.mcu]
        if let board = request.board {
            if request.elf != nil {
                throw UsageError(message: "--elf with --board: the board runs what its flash holds; flash it with `thrum firmware flash`")
            }
            arguments += ["--bootloader", try locateBootloader(board), "--reset-vector", String(board.bootloader.bootSection ?? 0)]
            if let flash = request.flash { arguments += ["--flash", flash] }
            if let worn = request.wornFlash {
                let boot = board.bootloader.bootSection ?? 0
                guard worn < boot else {
                    throw UsageError(
                        message: "--worn-flash \(hex(worn)): \(board.id)'s boot section starts at \(hex(boot)); give an address below it")
                }
                arguments += ["--worn-flash", String(worn)]
            }
        } else {
            if request.flash != nil || request.wornFlash != nil {
                throw UsageError(message: "--flash and --worn-flash are for bootloader mode: give --board too")
            }
            arguments += ["--elf", try locateFirmware(request.elf, library: request.storage != nil)]
        }
        if let storage = request.storage { arguments += ["--storage", storage] }
        if let resonance = request.resonanceHz { arguments += ["--resonance", String(resonance)] }
        if let trace = request.trace { arguments += ["--trace", trace] }
        if let hostLog = request.hostLog { arguments += ["--host-log", hostLog] }
        if let faults = request.faults, faults.corruption > 0 {
            arguments += ["--corrupt", String(faults.corruption), "--seed", String(faults.seed)]
        }
        flushStandardOutput()
        var cArguments = arguments.map { strdup($0) }
        cArguments.append(nil)
        execv(harness, &cArguments)
        let reason = String(cString: strerror(errno))
        throw CommandFailure(message: "cannot start the AVR simulation harness \(harness): \(reason)")
    }

    /// `THRUM_AVRSIM`, then `avrsim` next to the `thrum` executable, then the repository's build,
    /// built with make when its sources are here.
    static func locateHarness() throws -> String {
        let fm = FileManager.default
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["THRUM_AVRSIM"], !explicit.isEmpty {
            candidates.append(explicit)
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("avrsim").path)
        }
        candidates.append(harnessBuildPath)
        if let found = candidates.first(where: { fm.isExecutableFile(atPath: $0) }) { return found }
        if fm.fileExists(atPath: harnessMakefileDirectory + "/Makefile") {
            let (status, output) = runMake(["-s", "-C", harnessMakefileDirectory])
            if status == 0, fm.isExecutableFile(atPath: harnessBuildPath) { return harnessBuildPath }
            throw CommandFailure(
                message: "cannot build the AVR simulation harness (make -C \(harnessMakefileDirectory) failed): "
                    + "it needs simavr, libsimavr-dev and libelf-dev; run tools/ensure-deps.sh\n\(output)")
        }
        throw CommandFailure(
            message: "the AVR simulation harness `avrsim` was not found (looked at "
                + candidates.joined(separator: ", ")
                + "); run thrum from a checkout of the repository with simavr installed (tools/ensure-deps.sh), "
                + "install it with tools/install.sh (which puts the harness beside it), or set THRUM_AVRSIM to its path")
    }

    /// The bootloader image the board's simulation runs: Debian's file, or the one the harness's
    /// Makefile builds from Debian's optiboot source (`make bootloaders`; hardware/avrsim/Makefile
    /// says why).
    static func locateBootloader(_ board: Board) throws -> String {
        guard let path = board.bootloader.simulatorHex else {
            throw UsageError(message: "--board \(board.id) is not simulated")
        }
        let fm = FileManager.default
        if fm.isReadableFile(atPath: path) { return path }
        if path.hasPrefix(harnessMakefileDirectory), fm.fileExists(atPath: harnessMakefileDirectory + "/Makefile") {
            let (status, output) = runMake(["-s", "-C", harnessMakefileDirectory, "bootloaders"])
            if status == 0, fm.isReadableFile(atPath: path) { return path }
            throw CommandFailure(
                message: "cannot build the simulated \(board.bootloader.name) (make -C \(harnessMakefileDirectory) bootloaders failed): "
                    + "it needs gcc-avr and arduino-core-avr; run tools/ensure-deps.sh\n\(output)")
        }
        throw CommandFailure(
            message: "no bootloader image \(path): install arduino-core-avr (tools/ensure-deps.sh) and run thrum from a checkout")
    }

    /// `--elf PATH`, or the repository's AVR build (the library image when `library`), built with
    /// make when its sources are here.
    static func locateFirmware(_ explicit: String?, library: Bool = false) throws -> String {
        let fm = FileManager.default
        if let explicit {
            guard fm.isReadableFile(atPath: explicit) else {
                throw CommandFailure(message: "--elf \(explicit): no readable firmware ELF there (build one with `make -C hardware/firmware avr`)")
            }
            return explicit
        }
        let path = library ? libraryFirmwareBuildPath : firmwareBuildPath
        let target = library ? "avr-library" : "avr"
        if fm.isReadableFile(atPath: path) { return path }
        if fm.fileExists(atPath: firmwareMakefileDirectory + "/Makefile") {
            let (status, output) = runMake(["-s", "-C", firmwareMakefileDirectory, target])
            if status == 0, fm.isReadableFile(atPath: path) { return path }
            throw CommandFailure(
                message: "cannot build the AVR firmware (make -C \(firmwareMakefileDirectory) \(target) failed): "
                    + "it needs gcc-avr and avr-libc; run tools/ensure-deps.sh\n\(output)")
        }
        throw CommandFailure(
            message: "no AVR firmware ELF: pass --elf PATH, or run thrum from a checkout of the repository "
                + "(it builds \(path) with make)")
    }

    /// Runs make with its output captured (so the `pty:` line stays the first line on stdout);
    /// returns its status and the output's last 2000 characters.
    static func runMake(_ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["make"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try process.run()
        } catch {
            return (-1, "cannot run make: \(error)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return (process.terminationStatus, String(text.suffix(2000)))
    }
}
