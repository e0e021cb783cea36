import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLibrary
import ThrumWire

/// `thrum flash LIB.thl --port P`: write a preset library into a device's storage.
enum FlashCommand: Subcommand {
    static let name = "flash"
    static let summary = "write a preset library image (.thl) into a device's storage"
    static let usage = """
        Usage: thrum flash LIB.thl --port PATH [--actuator NAME|FILE.json] [--baud N] [--json]

        Checks the image (format version, CRC-32, actuator profile, size against the device's slot)
        before writing anything, writes it into the storage slot the active library is not in,
        has the device read it back and check its CRC-32, then switch to it with one record write:
        a power loss at any moment leaves the previous library playable (docs/library.md).
        Shows a progress bar (bytes, rate, time left) on a terminal; --json prints JSON lines: one
        object per progress step ({"event": "progress", ...}) and a final {"event": "done", ...}.

        Options:
          --port PATH        serial port or pseudo-terminal of a Thrum device (`thrum sim --storage FILE`)
          --actuator NAME    the device's actuator profile: an image built for another is refused.
                             Without it, the profile of the device's kept calibration (`thrum
                             calibrate`) is checked; with none kept, the image's own is taken
          --baud N           baud rate of a real serial port (default 115200)
          --json             JSON lines

        Ctrl-C (SIGINT), SIGTERM or SIGQUIT while writing: the writes stop, the device is released,
        and `thrum: interrupted (signal N): …` says the new library is incomplete on the device and
        not active (the device keeps the one it had) and how to flash it again; exit 130, 143 or
        131. Once every byte is written the device's check and switch (under a second) complete.
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let address = try DeviceAddressOptions.take(from: &arguments)
        let chosen = try ActuatorChoice.take(from: &arguments)
        let profile = chosen ?? ActuatorProfile.default
        let json = arguments.flag("json")
        let files = try arguments.positionals()
        try arguments.finish()
        guard files.count == 1, let file = files.first else {
            throw UsageError(message: files.isEmpty ? "give the library image to flash (build one with `thrum library build`)" : "give one image")
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure(message: InputFiles.unreadable(file)) }
        let bytes = [UInt8](data)
        do {
            _ = try LibraryImage.decode(bytes)
        } catch {
            throw CommandFailure(message: "\(file): refused before writing anything: \(error.description)")
        }
        // A signal from here on stops the writes at the next acknowledgement (never the device's
        // check and switch once LIBRARY_COMMIT went out), with the device released.
        Interrupt.install()
        let target = try address.target(orVirtual: { .virtual(profile: profile) })
        let connection = try DeviceConnection.open(target: target, profile: profile, configure: false)
        defer {
            connection.device.release()
            target.close()
        }
        if let stop = Interrupt.failure("nothing was written; the device keeps its library and was released") { throw stop }
        let expected = deviceProfile(chosen: chosen, connection: connection).map { device in
            let registers = DriverRegisters.derive(from: device)
            return LibraryImage.Profile(
                id: device.id, ratedVoltage: registers.ratedVoltage, odClamp: registers.overdriveClamp,
                driveTime: registers.driveTime, olLraPeriod: registers.openLoopPeriod, sampleTime: registers.sampleTime)
        }
        let bar = ProgressBar(enabled: !json && isatty(STDERR_FILENO) != 0)
        let status: LibraryStatusReport
        var last: LibraryWriteProgress?
        do {
            status = try connection.device.writeLibrary(bytes, expectedProfile: expected, progress: { p in
                last = p
                if json {
                    JSONOutput.printLine([
                        "event": "progress", "phase": p.phase.rawValue, "bytes": p.bytesWritten, "total_bytes": p.totalBytes,
                        "elapsed_s": JSONOutput.seconds(p.elapsed.seconds), "rate_bytes_per_s": p.bytesPerSecond.rounded(),
                        "seconds_left": JSONOutput.orNull(p.secondsLeft.map { ($0 * 1000).rounded() / 1000 }),
                    ])
                    flushStandardOutput()
                } else {
                    bar.show(p)
                }
            }, shouldStop: { Interrupt.requested })
        } catch .interrupted(let written, let total) {
            bar.finish()
            throw Interrupt.failure(
                "\(file): the flash stopped after \(written) of \(total) B: the new library on the device is incomplete (never "
                    + "checked, not switched to: the device keeps the library it had, if any); to have it, flash it again: "
                    + "`thrum flash \(file) --port \(target.name)`")
                ?? CommandFailure(message: "\(file): stopped after \(written) of \(total) B")
        } catch {
            bar.finish()
            throw CommandFailure(message: "\(file): \(error.description)")
        }
        bar.finish()
        let seconds = last?.elapsed.seconds ?? 0
        if json {
            JSONOutput.printLine([
                "event": "done", "file": file, "bytes": Int(status.size), "crc32": LibraryCommand.hexCRC(status.crc),
                "slot": Int(status.slot), "sequence": Int(status.seq), "seconds": JSONOutput.seconds(seconds),
                "rate_bytes_per_s": seconds > 0 ? (Double(status.size) / seconds).rounded() : 0,
            ])
        } else {
            print(
                "flashed \(file) to \(target.name): \(status.size) B in \(String(format: "%.2f", seconds)) s"
                    + (seconds > 0 ? String(format: " (%.0f B/s)", Double(status.size) / seconds) : "")
                    + ", verified CRC-32 \(LibraryCommand.hexCRC(status.crc)), slot \(status.slot) active (record \(status.seq))")
        }
        // A signal after LIBRARY_COMMIT went out: the device checked and switched; it is said.
        if let stop = Interrupt.failure("it came after the last write: the new library was checked and is active") {
            printError(stop.message)
            return stop.exitCode
        }
        return 0
    }
}

extension FlashCommand {
    /// The actuator profile the device is set up for: `--actuator` when given, else the built-in
    /// profile its kept calibration was made for; nil when neither says (the image's is taken:
    /// this host's own default says nothing about the device).
    static func deviceProfile(chosen: ActuatorProfile?, connection: DeviceConnection) -> ActuatorProfile? {
        if let chosen { return chosen }
        return connection.stored.flatMap { ActuatorProfile.builtIn(id: $0.profile) }
    }
}

/// A one-line progress bar on standard error: `[#####.....]  1024/2598 B  9.8 kB/s  0.2 s left`.
final class ProgressBar {
    let enabled: Bool
    private var shown = false

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ p: LibraryWriteProgress) {
        guard enabled else { return }
        let width = 30
        let filled = p.totalBytes > 0 ? width * p.bytesWritten / p.totalBytes : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let rate = p.bytesPerSecond >= 1000 ? String(format: "%.1f kB/s", p.bytesPerSecond / 1000) : String(format: "%.0f B/s", p.bytesPerSecond)
        let left = p.secondsLeft.map { String(format: "%.1f s left", $0) } ?? ""
        let phase = p.phase == .writing ? "" : "  \(p.phase.rawValue)"
        var stream = StandardError()
        print("\r[\(bar)] \(p.bytesWritten)/\(p.totalBytes) B  \(rate)  \(left)\(phase)   ", terminator: "", to: &stream)
        shown = true
    }

    func finish() {
        guard enabled, shown else { return }
        var stream = StandardError()
        print("", to: &stream)
    }
}
