import Foundation
import XCTest

/// What an outside check of the command line found (issue 27, the CLI half, checked again): an
/// output over any input, a failed write on either standard stream, huge values in every file and
/// option, and the limits of the numbers. Each runs the `thrum` binary as a user does and judges
/// by the files on disk, the exit status and the bytes printed.
final class CLIOutsideCheckTests: XCTestCase {
    private var heartbeat: String { TestPaths.example("heartbeat.ahap").path }
    private var profileText: String {
        get throws { try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("hardware/actuators/pmd-c10-100.json"), encoding: .utf8) }
    }

    /// `play --junit`, `sim --trace`/`--host-log` and `library build -o` refuse a file the command
    /// reads (the profile, the storage, the triggers file, the manifest, an AHAP it names, each
    /// other): a usage error, and the file is as it was.
    func testNoOutputReplacesAnInput() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let profile = try CLITestSupport.write(try profileText, named: "mine.json", in: dir)
        let storage = try CLITestSupport.write("not an EEPROM", named: "eeprom.bin", in: dir)
        let triggers = try CLITestSupport.write("", named: "triggers", in: dir)
        let library = dir.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let pattern = try CLITestSupport.write(try String(contentsOfFile: heartbeat, encoding: .utf8), named: "beat.ahap", in: library)
        let manifest = try CLITestSupport.write(
            #"{"name": "x", "presets": [{"id": 1, "ahap": "beat.ahap"}]}"#, named: "library.json", in: library)
        let cases: [(arguments: [String], file: String)] = [
            (["play", heartbeat, "--no-plot", "--actuator", profile, "--junit", profile], profile),
            (["sim", "--storage", storage, "--trace", storage], storage),
            (["sim", "--triggers", triggers, "--trace", triggers], triggers),
            (["sim", "--actuator", profile, "--trace", profile], profile),
            (["sim", "--mcu", "atmega328p", "--storage", storage, "--host-log", storage], storage),
            (["library", "build", library.path, "-o", manifest], manifest),
            (["library", "build", library.path, "-o", pattern], pattern),
            (["library", "build", library.path, "--actuator", profile, "-o", profile], profile),
        ]
        for (arguments, file) in cases {
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let result = try ThrumProcess.run(arguments, timeout: 30)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains("would overwrite the input"), "\(arguments): \(result.standardError)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), before, "\(arguments) wrote its input")
        }
        let both = try ThrumProcess.run(["sim", "--mcu", "atmega328p", "--trace", "\(dir.path)/x.csv", "--host-log", "\(dir.path)/x.csv"])
        XCTAssertEqual(both.status, 2, both.standardError)
        XCTAssertTrue(both.standardError.contains("name the same file"), both.standardError)
    }

    /// `library build --actuator FILE.json` reads the file the user named, from the working
    /// directory (it was looked up in the library directory, and "not found").
    func testLibraryBuildReadsTheActuatorFileFromTheWorkingDirectory() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        _ = try CLITestSupport.write(try profileText, named: "mine.json", in: dir)
        let result = try ThrumProcess.run(
            ["library", "build", TestPaths.packageRoot.appendingPathComponent("examples/library").path, "-o", "out.thl",
             "--actuator", "mine.json", "--json"],
            directory: dir)
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.thl").path))
        let missing = try ThrumProcess.run(["actuator", "compute", "--actuator", "\(dir.path)/none.json"])
        XCTAssertTrue(missing.standardError.hasSuffix("none.json: cannot read the profile: no such file\n"), missing.standardError)
    }

    /// Standard error that cannot be written (`2> /dev/full`) leaves the exit status to tell: 1,
    /// not a trap (SIGILL, "Fatal error" from FileHandle). Standard output that cannot be written
    /// stops `sim` and `studio` at once (their first lines are what their user needs), and
    /// `sim --trace` on a full device stops with that error and leaves the device node alone.
    func testFailedWritesOnEitherStreamEndWithStatusOne() throws {
        let full = URL(fileURLWithPath: "/dev/full")
        func run(_ arguments: [String], stdout: FileHandle, stderr: FileHandle) throws -> Process {
            let process = Process()
            process.executableURL = try TestPaths.thrumBinary
            process.arguments = arguments
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            return process
        }
        let failing = try run(["render", "/nonexistent/x.ahap"], stdout: FileHandle.nullDevice, stderr: try FileHandle(forWritingTo: full))
        failing.waitUntilExit()
        XCTAssertEqual(failing.terminationReason, .exit)
        XCTAssertEqual(failing.terminationStatus, 1)

        for arguments in [["sim"], ["studio"], ["sim", "--trace", "/dev/full"]] {
            let errors = Pipe()
            let stdout = arguments.count == 1 ? try FileHandle(forWritingTo: full) : FileHandle.nullDevice
            let process = try run(arguments, stdout: stdout, stderr: errors.fileHandleForWriting)
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            try errors.fileHandleForWriting.close()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(process.terminationReason, .exit, "\(arguments) was still serving or trapped: \(text)")
            XCTAssertEqual(process.terminationStatus, 1, "\(arguments): \(text)")
            XCTAssertTrue(text.contains("no space left on device"), "\(arguments): \(text)")
        }
        // Every output file on a full device says so in the same words (library build quoted
        // Foundation: "The operation could not be completed. There isn't enough space.").
        for arguments in [
            ["library", "build", TestPaths.packageRoot.appendingPathComponent("examples/library").path, "-o", "/dev/full"],
            ["render", heartbeat, "--svg", "/dev/full"],
        ] {
            let result = try ThrumProcess.run(arguments)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.standardError)")
            XCTAssertTrue(result.standardError.hasSuffix("'/dev/full': no space left on device\n")
                || result.standardError.hasSuffix("/dev/full: no space left on device\n"), "\(arguments): \(result.standardError)")
        }
        var info = stat()
        XCTAssertEqual(stat("/dev/full", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/full is no longer a character device")
    }

    /// A 10 MB key, invalid UTF-8 and a 100 kB option value in the files and options that had no
    /// guard: one short line naming the file, line:column (or the value by its first characters).
    func testHugeKeysBadBytesAndLongValuesEverywhere() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let key = String(repeating: "K", count: 10_000_000)
        let profile = try profileText
        let bigKeyProfile = try CLITestSupport.write(profile.replacingOccurrences(of: "\"id\"", with: "\"\(key)\": 1, \"id\""), named: "k.json", in: dir)
        let noPattern = try CLITestSupport.write("{\"\(key)\": 1}", named: "k.ahap", in: dir)
        var badBytes = Data(profile.utf8)
        badBytes.insert(contentsOf: [0xFF, 0xFE], at: badBytes.range(of: Data("pmd-c10-100".utf8))!.lowerBound)
        let badProfile = dir.appendingPathComponent("bad.json").path
        try badBytes.write(to: URL(fileURLWithPath: badProfile))
        let library = dir.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        _ = try CLITestSupport.write("{\"\(key)\": 1}", named: "library.json", in: library)

        let long = String(repeating: "L", count: 100_000)
        let cases: [(arguments: [String], expected: String)] = [
            (["actuator", "compute", "--actuator", bigKeyProfile], "…(10000000 characters); ignored"),
            (["validate", noPattern], "…(10000000 characters)) (at top level)"),
            (["library", "build", library.path, "-o", "\(dir.path)/x.thl"], "library.json:1:2: error: unknown key 'KKKK"),
            (["actuator", "compute", "--actuator", badProfile], "bad.json:11:10: string is not valid UTF-8 (at id)"),
            (["play", "preset:\(long)"], "…(100000 characters)"),
            (["render", heartbeat, "--actuator", long], "…(100000 characters)"),
            (["presets", "--family", long, "--json"], "…(100000 characters)"),
            (["info", "--port", long], "…(100000 characters)"),
        ]
        for (arguments, expected) in cases {
            let result = try ThrumProcess.run(arguments, timeout: 60)
            let text = result.standardOutput + result.standardError
            // An unknown key in a profile is a warning (exit 0); everything else here is refused.
            if arguments.last != bigKeyProfile { XCTAssertNotEqual(result.status, 0, "\(arguments.map { $0.prefix(40) })") }
            XCTAssertTrue(text.contains(expected), "\(arguments.map { $0.prefix(40) }): \(text.prefix(400))")
            XCTAssertLessThan(text.utf8.count, 2_000, "\(arguments.map { $0.prefix(40) }) echoed a value whole")
        }
    }

    /// `validate` of a 100 kB name shows it by its first 80 characters and its length, on standard
    /// output and in `--json`, as every other message does (it echoed 200 kB); the man page and a
    /// completion script on a full device name the reason (the man page said "a write failed");
    /// a one-character output name is written (Foundation's path code trapped on it: SIGILL).
    func testLongNamesFullDevicesAndOneCharacterOutputs() throws {
        let name = String(repeating: "a", count: 100_000) + ".ahap"
        for arguments in [["validate", name], ["validate", name, "--json"]] {
            let result = try ThrumProcess.run(arguments)
            XCTAssertEqual(result.status, 1, result.standardError)
            let text = result.standardOutput + result.standardError
            XCTAssertTrue(text.contains(String(repeating: "a", count: 80) + "…(1000"), "\(arguments.count): \(text.prefix(300))")
            XCTAssertLessThan(text.utf8.count, 2_000, "\(arguments.count) arguments: the name was echoed whole")
        }
        let full = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        for arguments in [["dev", "man"], ["dev", "completions", "bash"]] {
            let process = Process()
            process.executableURL = try TestPaths.thrumBinary
            process.arguments = arguments
            process.standardOutput = full
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 1, "\(arguments): \(text)")
            XCTAssertEqual(text, "thrum: cannot write to standard output: no space left on device\n", "\(arguments)")
        }
        let dir = try CLITestSupport.scratchDirectory(for: self)
        for (arguments, file) in [
            (["render", heartbeat, "--csv", "c"], "c"), (["render", heartbeat, "--svg", "s"], "s"),
            (["play", heartbeat, "--no-plot", "--junit", "j"], "j"),
        ] {
            let result = try ThrumProcess.run(arguments, directory: dir)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.standardError.prefix(300))")
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path), "\(arguments)")
        }
    }

    /// Numbers: `--baud` outside 50…4 000 000 is a usage error with or without a port; one pass on
    /// the virtual device whose last event starts beyond 86 400 s (a day, the latest AHAP time at
    /// rate 1: only a slowed rate goes beyond) is refused, at once.
    func testBaudRatesAndVeryLatePatternsAreUsageErrors() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        for baud in ["-5", "0", "49", "4000001", "nan"] {
            for arguments in [["play", heartbeat, "--no-plot"], ["info", "--port", "/dev/null"]] {
                let result = try ThrumProcess.run(arguments + ["--baud", baud])
                XCTAssertEqual(result.status, 2, "\(arguments) --baud \(baud): \(result.standardError)")
                XCTAssertTrue(result.standardError.contains("from 50 to 4000000"), result.standardError)
            }
        }
        let late = try CLITestSupport.write(
            #"{"Pattern":[{"Event":{"Time":86400,"EventType":"HapticTransient"}}]}"#, named: "late.ahap", in: dir)
        let start = Date()
        let refused = try ThrumProcess.run(["play", late, "--no-plot", "--rate", "0.5"], timeout: 30)
        XCTAssertEqual(refused.status, 2, refused.standardError)
        XCTAssertTrue(refused.standardError.contains("late.ahap:1:30: Pattern[0].Event.Time: the pattern plays its last event 172800 s in"), refused.standardError)
        XCTAssertTrue(refused.standardError.contains("plays at most 86400 s: give --port"), refused.standardError)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
        // A continuous event is judged by its end and its drive, not its start: one ending past a
        // day, one driving over an hour (the simulated chip integrates drive step by step). Named
        // where the file has it (its element, line and column), not by the model's event index
        // (the second is events[1], written after a Parameter as Pattern[2], on line 5).
        for (json, expected) in [
            (#"{"Pattern":[{"Event":{"Time":86000,"EventType":"HapticContinuous","EventDuration":500}}]}"#,
             "long.ahap:1:83: Pattern[0].Event.EventDuration: a HapticContinuous ending 86500 s in; the virtual device (virtual time) plays at most 86400 s"),
            ("""
            {"Pattern":[
              {"Parameter":{"ParameterID":"HapticIntensityControl","Time":0,"ParameterValue":0.5}},
              {"Event":{"Time":0,"EventType":"HapticTransient"}},
              {"Event":{"Time":1,"EventType":"HapticContinuous",
                        "EventDuration":3601}}]}
            """,
             "long.ahap:5:29: Pattern[2].Event.EventDuration: a HapticContinuous driving 3601 s; the virtual device (virtual time) drives at most 3600 s"),
        ] {
            let long = try CLITestSupport.write(json, named: "long.ahap", in: dir)
            let start = Date()
            let result = try ThrumProcess.run(["play", long, "--no-plot"], timeout: 30)
            XCTAssertEqual(result.status, 2, result.standardError)
            XCTAssertTrue(result.standardError.contains(expected), result.standardError)
            XCTAssertTrue(result.standardError.contains("give --port"), result.standardError)
            XCTAssertLessThan(Date().timeIntervalSince(start), 20)
        }
        let thousand = try CLITestSupport.write(
            #"{"Pattern":[{"Event":{"Time":1000,"EventType":"HapticTransient"}}]}"#, named: "thousand.ahap", in: dir)
        let slowed = try ThrumProcess.run(["play", thousand, "--no-plot", "--rate", "0.01"])
        XCTAssertEqual(slowed.status, 2, "1000 s at rate 0.01 is 100 000 s: \(slowed.standardError)")
        let stdin = try ThrumProcess.run(["validate", "-"])
        XCTAssertTrue(stdin.standardOutput.contains("'-' (standard input) is not read"), stdin.standardOutput)
    }

    /// `render --svg` of a dense pattern draws one event marker per pixel column, not one per
    /// event (10⁶ events made a 115 MB SVG of overlapping lines).
    func testDenseMarkersAreDrawnOncePerPixel() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let events = (0..<2_000).map { #"{"Event":{"Time":\#(Double($0) * 0.05),"EventType":"HapticTransient"}}"# }
        let file = try CLITestSupport.write(#"{"Pattern":["# + events.joined(separator: ",") + "]}", named: "dense.ahap", in: dir)
        let svg = dir.appendingPathComponent("dense.svg").path
        let result = try ThrumProcess.run(["render", file, "--svg", svg, "--rate", "100"], timeout: 60)
        XCTAssertEqual(result.status, 0, result.standardError)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        let group = try XCTUnwrap(text.range(of: "<g id=\"events\"").map { text[$0.lowerBound...] }?.components(separatedBy: "</g>").first)
        let lines = group.components(separatedBy: "<line ").count - 1
        XCTAssertGreaterThan(lines, 100)
        XCTAssertLessThanOrEqual(lines, 900, "one marker per pixel column of the 824")
    }

    /// `render --svg` of more than 2^18 rows decimates as the rows come instead of keeping them
    /// all (10⁶ events kept 3.5 GB of columns): the plot still reaches the peaks the CSV of the
    /// same render holds, on the left axis (0…1) and on the right one (0 to a rounded maximum).
    /// (A guard of the streaming path; the memory itself is measured with `/usr/bin/time`.)
    func testALongSVGKeepsEveryPeakOfTheRows() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        // 2 700 s of continuous drive at varied intensities and one transient, at 100 rows/s:
        // 270 016 rows, from the predictor (a program that long is not simulated), in ~1 s.
        var events = (0..<90).map { i in
            #"{"Event":{"Time":\#(Double(i) * 30),"EventType":"HapticContinuous","EventDuration":30,"#
                + #""EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(0.5 + 0.075 * Double((i * 7) % 5))}]}}"#
        }
        events.insert(#"{"Event":{"Time":1350.5,"EventType":"HapticTransient"}}"#, at: 46)
        let file = try CLITestSupport.write(#"{"Pattern":["# + events.joined(separator: ",") + "]}", named: "long.ahap", in: dir)
        let csv = dir.appendingPathComponent("long.csv").path, svg = dir.appendingPathComponent("long.svg").path
        let result = try ThrumProcess.run(["render", file, "--rate", "100", "--csv", csv, "--svg", svg], timeout: 120)
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "", "no warning")
        // The CSV's peaks, read with strtod over the bytes (String splitting 270 000 lines takes
        // seconds in a debug build).
        var peaks = (drive: 0.0, acceleration: 0.0, rows: -1)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: csv)))
        bytes.append(0)
        bytes.withUnsafeMutableBufferPointer { buffer in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var field = 0
            for i in 0..<(buffer.count - 1) {
                switch buffer[i] {
                case UInt8(ascii: "\n"):
                    peaks.rows += 1
                    field = 0
                case UInt8(ascii: ","):
                    field += 1
                    guard peaks.rows >= 0 else { continue }
                    if field == 3 { peaks.drive = max(peaks.drive, strtod(base + i + 1, nil)) }
                    if field == 4 { peaks.acceleration = max(peaks.acceleration, strtod(base + i + 1, nil)) }
                default: continue
                }
            }
        }
        XCTAssertGreaterThan(peaks.rows, 1 << 18, "the rows are bucketed only beyond 2^18")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertLessThan(text.utf8.count, 400_000)
        func group(_ id: String) throws -> String {
            let start = try XCTUnwrap(text.range(of: "<g id=\"\(id)\""))
            return String(text[start.lowerBound...].components(separatedBy: "</g>")[0])
        }
        func highest(_ id: String) throws -> Double {
            let g = try group(id)
            let points = try XCTUnwrap(g.range(of: "<polyline points=\"")).upperBound
            let list = g[points...].prefix { $0 != "\"" }.split(separator: " ")
            return list.map { Double($0.split(separator: ",")[1])! }.min()!
        }
        let axes = try group("axes")
        let rect = try XCTUnwrap(axes.range(of: "<rect x=\""))
        let y = try XCTUnwrap(axes[rect.upperBound...].range(of: " y=\""))
        let top = try XCTUnwrap(Double(axes[y.upperBound...].prefix { $0 != "\"" }))
        let bottom = 480.0 - 96
        XCTAssertEqual(try highest("series-drive"), bottom - min(peaks.drive, 1.05) * (bottom - top), accuracy: 0.051)
        // The right axis as SVGPlot scales it: 0 to the peak rounded up to a 1, 2 or 5 × 10ⁿ step.
        let raw = peaks.acceleration / 4
        let magnitude = pow(10, log10(raw).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw }!
        let rightMax = max(step, (peaks.acceleration / step).rounded(.up) * step)
        XCTAssertEqual(try highest("series-acceleration"), bottom - peaks.acceleration / rightMax * (bottom - top), accuracy: 0.051)
    }
}
