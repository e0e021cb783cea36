import Foundation
import XCTest

/// Shell samples in the docs that run as written (in the spirit of `cram` and `trycmd`): every
/// block after a `<!-- doctest -->` line in README.md or docs/*.md is a session of `$ command`
/// lines, each followed by the output it prints (standard output and error together). The
/// commands run from the repository's root with the built `thrum` first on PATH; the output must
/// match line for line, except that a line `…` stands for any lines up to the next one that
/// matches, and `[..]` within a line for any text (a figure that varies from run to run). `$ echo $?` prints the previous command's exit status. A sample that drifts from what
/// the code prints fails here with the doc's file:line.
///
/// A block marked `<!-- doctest: sim PORT [ARGS…] -->` runs against a board the simulator stands
/// in for: `thrum sim ARGS…` serves for the whole block, PORT (e.g. `/dev/ttyACM0`, the path a
/// reader with a board types) is replaced by the simulator's pty in each command and the pty by
/// PORT in the output, and the block's commands share one configuration directory (a calibration
/// one command keeps, the next one finds).
final class DocSampleTests: XCTestCase {
    struct Step {
        var command: String
        var expected: [String]
        /// 1-based line of the command in its file.
        var line: Int
    }

    struct Block {
        var file: String
        var steps: [Step]
        /// `sim PORT ARGS…`: the port the doc names and the simulator's arguments.
        var simulator: (port: String, arguments: [String])? = nil
    }

    /// `<!-- doctest -->` → (nil), `<!-- doctest: sim PORT ARGS… -->` → (PORT, ARGS); nil when not a marker.
    static func marker(_ line: String) -> (port: String, arguments: [String])?? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed == "<!-- doctest -->" { return .some(nil) }
        guard trimmed.hasPrefix("<!-- doctest: sim "), trimmed.hasSuffix(" -->") else { return nil }
        let words = trimmed.dropFirst("<!-- doctest: sim ".count).dropLast(4).split(separator: " ").map(String.init)
        guard let port = words.first else { return nil }
        return .some((port, Array(words.dropFirst())))
    }

    static func blocks() throws -> [Block] {
        let root = TestPaths.packageRoot
        var files = ["README.md"]
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
        files += docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        var blocks: [Block] = []
        for file in files {
            let lines = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var i = 0
            while i < lines.count {
                defer { i += 1 }
                guard let simulator = marker(lines[i]), i + 1 < lines.count, lines[i + 1].hasPrefix("```") else { continue }
                var steps: [Step] = []
                var j = i + 2
                while j < lines.count, !lines[j].hasPrefix("```") {
                    if lines[j].hasPrefix("$ ") {
                        steps.append(Step(command: String(lines[j].dropFirst(2)), expected: [], line: j + 1))
                    } else if !steps.isEmpty {
                        steps[steps.count - 1].expected.append(lines[j])
                    }
                    j += 1
                }
                blocks.append(Block(file: file, steps: steps, simulator: simulator))
                i = j
            }
        }
        return blocks
    }

    func testEveryMarkedSampleRunsAsWritten() throws {
        let blocks = try Self.blocks()
        XCTAssertGreaterThanOrEqual(blocks.count, 3, "the marked samples were found")
        let binDir = try TestPaths.thrumBinary.deletingLastPathComponent().path
        for block in blocks {
            var lastStatus: Int32 = 0
            var simulator: SimulatorProcess?
            var configuration: URL?
            if let sim = block.simulator {
                simulator = try SimulatorProcess(arguments: sim.arguments)
                configuration = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-doc-\(UUID().uuidString)")
            }
            defer {
                simulator?.stop()
                if let configuration { try? FileManager.default.removeItem(at: configuration) }
            }
            for step in block.steps {
                var output: String
                if step.command == "echo $?" {
                    output = "\(lastStatus)\n"
                } else if let simulator, let sim = block.simulator {
                    let command = step.command.replacingOccurrences(of: sim.port, with: simulator.ptyPath)
                    let result = try Self.run(command, path: binDir, configuration: configuration)
                    lastStatus = result.status
                    output = result.output.replacingOccurrences(of: simulator.ptyPath, with: sim.port)
                } else {
                    let result = try Self.run(step.command, path: binDir)
                    lastStatus = result.status
                    output = result.output
                }
                var actual = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if actual.last == "" { actual.removeLast() }
                if let mismatch = Self.compare(expected: step.expected, actual: actual) {
                    XCTFail(
                        "\(block.file):\(step.line + 1 + mismatch.expectedIndex): `\(step.command)`: expected '\(mismatch.expected)', "
                            + "got '\(mismatch.actual)'\n--- output:\n\(output)")
                }
            }
        }
    }

    /// Where `actual` first departs from `expected` (`…` matches any run of lines), nil when they match.
    static func compare(expected: [String], actual: [String]) -> (expectedIndex: Int, expected: String, actual: String)? {
        var e = 0, a = 0
        while e < expected.count {
            if expected[e] == "…" {
                e += 1
                guard e < expected.count else { return nil }
                while a < actual.count, !matches(actual[a], expected[e]) { a += 1 }
                guard a < actual.count else { return (e, expected[e], "(end of output)") }
                continue
            }
            guard a < actual.count else { return (e, expected[e], "(end of output)") }
            guard matches(actual[a], expected[e]) else { return (e, expected[e], actual[a]) }
            e += 1
            a += 1
        }
        return a < actual.count ? (expected.count, "(end of the sample)", actual[a]) : nil
    }

    /// `line` against a sample line whose `[..]` stand for any text.
    static func matches(_ line: String, _ sample: String) -> Bool {
        guard sample.contains("[..]") else { return line == sample }
        let parts = sample.components(separatedBy: "[..]")
        guard line.hasPrefix(parts[0]), line.hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = line.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.count >= parts[parts.count - 1].count
    }

    /// Runs `command` with `sh -c`; `configuration` is its XDG_CONFIG_HOME (kept), else a fresh one (removed).
    static func run(_ command: String, path: String, configuration: URL? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec 2>&1\n" + command]
        process.currentDirectoryURL = TestPaths.packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-doc-\(UUID().uuidString)")
        environment["XDG_CONFIG_HOME"] = (configuration ?? scratch).path
        defer { if configuration == nil { try? FileManager.default.removeItem(at: scratch) } }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
