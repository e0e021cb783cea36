import Foundation
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
    static func prepare(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let root = TestPaths.packageRoot
        for (directory, target) in [("hardware/firmware", "avr"), ("hardware/avrsim", "all")] {
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
        return root.appendingPathComponent("hardware/firmware/build/avr/thrum.elf")
    }

    static func run(_ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
    let standardErrorURL: URL
    private let directory: URL
    private let output = Pipe()

    init(elf: URL, extraArguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-avrsim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        traceURL = directory.appendingPathComponent("trace.csv")
        hostLogURL = directory.appendingPathComponent("host.csv")
        standardErrorURL = directory.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: standardErrorURL.path, contents: nil)
        process.executableURL = try TestPaths.thrumBinary
        process.currentDirectoryURL = TestPaths.packageRoot
        process.arguments = ["sim", "--mcu", "atmega328p", "--elf", elf.path, "--trace", traceURL.path,
                             "--host-log", hostLogURL.path] + extraArguments
        process.standardOutput = output
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

/// The harness's CSV: `time_us,register,value,pacing_lag_us` rows, `#` comment lines with
/// `key=value` facts (t0 on CLOCK_MONOTONIC, the device clock's start, the end-of-run summary).
struct AVRTrace {
    struct Write: Equatable {
        var timeMicros: Double
        var register: UInt8
        var value: UInt8
        var pacingLagMicros: Double
    }

    /// A 10 ms window in which the simulation fell more than 100 µs behind the wall clock.
    struct LagWindow: Equatable {
        var endMicros: Double
        var maxLagMicros: Double
    }

    var writes: [Write] = []
    var facts: [String: String] = [:]
    var lagWindows: [LagWindow] = []

    init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        for (number, line) in text.split(separator: "\n").enumerated() {
            if line.hasPrefix("# lag ") {
                let values = line.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
                if values.count == 2 { lagWindows.append(LagWindow(endMicros: values[0], maxLagMicros: values[1])) }
                continue
            }
            if line.hasPrefix("#") {
                for word in line.split(separator: " ") where word.contains("=") {
                    let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    if parts.count == 2, !parts[0].isEmpty { facts[String(parts[0])] = String(parts[1]) }
                }
                continue
            }
            if line.hasPrefix("time_us") { continue }
            let fields = line.split(separator: ",")
            guard fields.count == 4, let t = Double(fields[0]), let r = UInt8(fields[1]), let v = UInt8(fields[2]),
                  let lag = Double(fields[3])
            else {
                throw AVRSimulationError(message: "\(url.lastPathComponent):\(number + 1): expected time_us,register,value,pacing_lag_us, got '\(line)'")
            }
            writes.append(Write(timeMicros: t, register: r, value: v, pacingLagMicros: lag))
        }
    }

    func number(_ key: String) throws -> Double {
        guard let text = facts[key], let value = Double(text) else {
            throw AVRSimulationError(message: "the trace has no numeric '\(key)' (facts: \(facts.keys.sorted()))")
        }
        return value
    }

    /// The largest pacing lag (µs) the harness saw between simulated times `from` and `to`.
    func maxLag(from: Double, to: Double) -> Double {
        let windowed = lagWindows.filter { $0.endMicros >= from && $0.endMicros - 10_000 <= to }.map(\.maxLagMicros)
        let atWrites = writes.filter { $0.timeMicros >= from && $0.timeMicros <= to }.map(\.pacingLagMicros)
        return (windowed + atWrites).max() ?? 0
    }

    /// The first non-zero RTP_INPUT write at or after `time`: for a marked SEGMENT whose drive is
    /// due at `time`, the write the firmware reports as its ONSET (PROTOCOL.md §4.1).
    func firstDriveWrite(notBefore time: Double) -> Write? {
        rtpWrites.first { $0.timeMicros >= time && $0.value != 0 }
    }

    /// RTP_INPUT (0x02) writes.
    var rtpWrites: [Write] { writes.filter { $0.register == 0x02 } }
}

/// The harness's `--host-log` CSV: `time_us,byte` of each host byte as it reached the UART.
struct HostLog {
    struct Entry {
        var timeMicros: Double
        var byte: UInt8
    }

    /// A SEGMENT that marks a haptic event's onset, as the device received it.
    struct OnsetSegment: Equatable {
        var receivedMicros: Double
        var event: UInt32
        /// Device time (µs) the host asked the ramp to start at.
        var start: UInt32
        var duration: UInt32
        var from: UInt8
        var to: UInt8

        /// Device time (µs) the drive is due (PROTOCOL.md §4.1): the start, or for a ramp up from
        /// 0 the crossing `start + ceil(duration / (2 × to))` where its rounded value reaches 1.
        var due: UInt32 { start &+ SegmentCommand.firstDriveOffset(duration: duration, from: from, to: to) }
    }

    var entries: [Entry] = []

    init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        for (number, line) in text.split(separator: "\n").enumerated() where !line.hasPrefix("time_us") {
            let fields = line.split(separator: ",")
            guard fields.count == 2, let t = Double(fields[0]), let b = UInt8(fields[1]) else {
                throw AVRSimulationError(message: "\(url.lastPathComponent):\(number + 1): expected time_us,byte, got '\(line)'")
            }
            entries.append(Entry(timeMicros: t, byte: b))
        }
    }

    /// Every onset-marking SEGMENT in the host's frames, retransmissions removed.
    func onsetSegments() -> [OnsetSegment] {
        var decoder = FrameDecoder(direction: .hostToDevice)
        var found: [OnsetSegment] = []
        for entry in entries {
            for frame in decoder.push([entry.byte]) {
                guard let messages = try? HostMessage.parsePayload(frame.payload) else { continue }
                for case .segment(let segment) in messages where segment.event != 0 {
                    if found.contains(where: { $0.event == segment.event && $0.start == segment.start }) { continue }
                    found.append(OnsetSegment(
                        receivedMicros: entry.timeMicros, event: segment.event, start: segment.start,
                        duration: segment.duration, from: segment.from, to: segment.to))
                }
            }
        }
        return found
    }
}
