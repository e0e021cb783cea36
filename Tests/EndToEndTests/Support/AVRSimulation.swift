import Foundation
import ThrumBench
import ThrumWire
import XCTest

/// The AVR firmware binary in simavr (`thrum sim --mcu atmega328p`, which runs hardware/avrsim)
/// for end-to-end tests, and the register trace it writes.
///
/// The tools it needs (gcc-avr, avr-libc, simavr, libsimavr-dev, libelf-dev) are installed by
/// tools/ensure-deps.sh. When they are missing the tests skip with a message, except under CI
/// (`CI` set), where a missing tool is a failure.
enum AVRToolchain {
    /// Builds the firmware ELF and the harness (make is a no-op when both are current); returns
    /// the ELF path, or skips/fails when the tools are missing.
    /// `firmware` is the firmware's make target: `avr` (the streaming image) or `avr-library`.
    static func prepare(firmware: String = "avr", file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let root = TestPaths.packageRoot
        for (directory, target) in [("hardware/firmware", firmware), ("hardware/avrsim", "all")] {
            let result = try run(["make", "-s", "-C", root.appendingPathComponent(directory).path, target])
            if result.status != 0 {
                let message = "`make -C \(directory) \(target)` failed (the AVR simulation needs gcc-avr, avr-libc, simavr, "
                    + "libsimavr-dev and libelf-dev: run tools/ensure-deps.sh):\n\(result.output.suffix(1500))"
                if ProcessInfo.processInfo.environment["CI"] != nil {
                    XCTFail(message, file: file, line: line)
                    throw AVRSimulationError(message: message)
                }
                throw XCTSkip(message)
            }
        }
        return root.appendingPathComponent("hardware/firmware/build/\(firmware)/thrum.elf")
    }

    static func run(_ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
        let result = try ChildProcess.run("/usr/bin/env", arguments, directory: directory)
        return (result.status, result.output)
    }
}

struct AVRSimulationError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A running `thrum sim --mcu atmega328p` with its trace and host log in a temporary directory.
final class AVRSimulatorProcess {
    let process = Process()
    let ptyPath: String
    let traceURL: URL
    let hostLogURL: URL
    /// With `publishingClock`: the harness's clock file, for a host on the simulation's clock
    /// (``SimulationClock``).
    let clockURL: URL?
    let standardErrorURL: URL
    private let directory: URL
    private let output = Pipe()
    /// The harness's standard input: `trigger N` lines press trigger inputs (with `--storage`).
    let input = Pipe()

    /// `publishingClock`: run the harness itself (hardware/avrsim/build/avrsim, what `thrum sim
    /// --mcu` execs) with `--clock-file` in the temporary directory. `thrum sim --mcu` has no such
    /// option: only a host built on ``SimulationClock`` (the bench, these tests) can use the file.
    init(elf: URL, extraArguments: [String] = [], publishingClock: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-avrsim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        traceURL = directory.appendingPathComponent("trace.csv")
        hostLogURL = directory.appendingPathComponent("host.csv")
        standardErrorURL = directory.appendingPathComponent("stderr.txt")
        clockURL = publishingClock ? directory.appendingPathComponent("clock") : nil
        FileManager.default.createFile(atPath: standardErrorURL.path, contents: nil)
        process.currentDirectoryURL = TestPaths.packageRoot
        let logs = ["--elf", elf.path, "--trace", traceURL.path, "--host-log", hostLogURL.path]
        if let clockURL {
            process.executableURL = TestPaths.packageRoot.appendingPathComponent("hardware/avrsim/build/avrsim")
            process.arguments = logs + ["--clock-file", clockURL.path] + extraArguments
        } else {
            process.executableURL = try TestPaths.thrumBinary
            process.arguments = ["sim", "--mcu", "atmega328p"] + logs + extraArguments
        }
        process.standardOutput = output
        process.standardInput = input
        process.standardError = try FileHandle(forWritingTo: standardErrorURL)
        try process.run()
        let text = SimulatorProcess.firstLine(of: output)
        guard text.hasPrefix("pty: ") else {
            process.terminate()
            process.waitUntilExit()
            let stderr = (try? String(contentsOf: standardErrorURL, encoding: .utf8)) ?? ""
            throw AVRSimulationError(message: "thrum sim --mcu printed '\(text)' instead of 'pty: PATH'; stderr: \(stderr)")
        }
        ptyPath = String(text.dropFirst(5))
    }

    /// Stops the simulation (SIGTERM: the harness writes its trace footer) and reads the trace.
    func stop() throws -> AVRTrace {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return try AVRTrace(contentsOf: traceURL)
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
