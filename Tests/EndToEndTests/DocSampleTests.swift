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
/// one command keeps, the next one finds). A step `$ thrum sim ARGS… &` in such a block starts
/// that simulator itself, as the reader does, and its output is what the simulator prints first
/// (`pty: PORT`, then its description); a second such step serves beside the first, under the
/// port its own `pty:` line names (`thrum play --port A --port B`). A sim block with no ARGS and no such step goes on with
/// the simulator of the file's previous sim block on the same PORT (a walkthrough across blocks).
///
/// Paths under `/tmp/` in commands and simulator arguments are in a scratch directory of the doc
/// file (shared by its blocks in order, so one block's output file is the next one's input; the
/// output names them `/tmp/…` again): no run reads another's files or leaves any behind.
///
/// Every shell block (```sh, ```console, or one with `$ ` lines) must run, or be marked
/// `<!-- board-only: WHY -->` (it needs a physical board), or `<!-- not-run: WHY -->` when it only
/// builds, installs or runs the suite itself (the suite runs from such a build): see
/// `DocBlockTests.testEveryShellBlockRunsOrIsMarked`.
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

    /// The simulators serving the blocks of one doc file that name their PORTs.
    final class SimulatorSession {
        let file: String
        let port: String
        /// Each simulator with the port the doc names it by (its `pty:` line in the doc).
        var simulators: [(port: String, process: SimulatorProcess)]
        let configuration: URL
        init(file: String, port: String, simulator: SimulatorProcess) {
            self.file = file
            self.port = port
            simulators = [(port, simulator)]
            configuration = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-doc-\(UUID().uuidString)")
        }
        /// `text` with each doc port replaced by its simulator's pty (longest port first).
        func toPTY(_ text: String) -> String {
            Self.replacingAtOnce(text, simulators.map { ($0.port, $0.process.ptyPath) })
        }
        /// `text` with each simulator's pty replaced by the port the doc names it by.
        func toPort(_ text: String) -> String {
            Self.replacingAtOnce(text, simulators.map { ($0.process.ptyPath, $0.port) })
        }
        /// `text` with every `from` replaced by its `to` at once (longest first): the docs' ports and
        /// the real ptys are names of one kind, and replacing one pair after another turned the doc's
        /// /dev/pts/4 → /dev/pts/5 and then both into /dev/pts/4 when the two simulators got each
        /// other's numbers.
        static func replacingAtOnce(_ text: String, _ pairs: [(from: String, to: String)]) -> String {
            let ordered = pairs.enumerated().sorted { $0.element.from.count > $1.element.from.count }
            let marked = ordered.reduce(text) { $0.replacingOccurrences(of: $1.element.from, with: "\u{1}\($1.offset)\u{1}") }
            return ordered.reduce(marked) { $0.replacingOccurrences(of: "\u{1}\($1.offset)\u{1}", with: $1.element.to) }
        }
        func close() {
            for simulator in simulators { simulator.process.stop() }
            try? FileManager.default.removeItem(at: configuration)
        }
    }

    /// The doc files' blocks run in two lanes side by side, each file's blocks in order in one
    /// lane (a file's blocks share its scratch directory and may go on with its simulators; no
    /// two files share anything), the files with the most steps first. Real time: the samples'
    /// varying figures are `[..]` in the docs, and each lane is one process at a time.
    func testEveryMarkedSampleRunsAsWritten() throws {
        let blocks = try Self.blocks()
        XCTAssertGreaterThanOrEqual(blocks.count, 3, "the marked samples were found")
        let binDir = try TestPaths.thrumBinary.deletingLastPathComponent().path
        var files: [(file: String, blocks: [Block])] = []
        for block in blocks {
            if files.last?.file == block.file { files[files.count - 1].blocks.append(block) } else { files.append((block.file, [block])) }
        }
        files.sort { $0.blocks.reduce(0) { $0 + $1.steps.count } > $1.blocks.reduce(0) { $0 + $1.steps.count } }
        let lanes = DocLanes(files.map(\.blocks))
        // Threads of their own: the lanes block in Process.waitUntilExit, whose reaping needs
        // Dispatch's worker threads (concurrentPerform's would starve it on two cores).
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                while let next = lanes.next() {
                    let began = Date()
                    do { lanes.add(try Self.runFile(next, binDir: binDir)) } catch { lanes.add(["\(next[0].file): \(error)"]) }
                    print(String(format: "doc samples: %@ (%d blocks) in %.1f s", next[0].file, next.count, Date().timeIntervalSince(began)))
                }
                done.leave()
            }
        }
        done.wait()
        for failure in lanes.failures { XCTFail(failure) }
    }

    /// Runs one doc file's blocks in order; returns each mismatch as its message.
    static func runFile(_ blocks: [Block], binDir: String) throws -> [String] {
        var failures: [String] = []
        var session: SimulatorSession?
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-doc-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer {
            session?.close()
            try? FileManager.default.removeItem(at: scratch)
        }
        let tmp = scratch.path + "/"
        let local = { (text: String) in text.replacingOccurrences(of: "/tmp/", with: tmp) }
        let shown = { (text: String) in text.replacingOccurrences(of: tmp, with: "/tmp/") }
        for block in blocks {
            var lastStatus: Int32 = 0
            if let sim = block.simulator {
                let startsItself = block.steps.contains { Self.simulatorStart($0.command) != nil }
                let continues = sim.arguments.isEmpty && !startsItself && session?.port == sim.port
                if !continues {
                    session?.close()
                    session = nil
                    if !startsItself {
                        session = SimulatorSession(
                            file: block.file, port: sim.port, simulator: try SimulatorProcess(arguments: sim.arguments.map(local)))
                    }
                }
            } else {
                session?.close()
                session = nil
            }
            var startedHere = false
            // The register trace of an AVR simulation this block started (`--mcu … --trace FILE`).
            let avrTrace = ([block.simulator?.arguments ?? []] + block.steps.compactMap { Self.simulatorStart($0.command) })
                .compactMap { Self.avrTrace(of: $0) }.first.map(local)
            for step in block.steps {
                var output: String
                if step.command == "echo $?" {
                    output = "\(lastStatus)\n"
                } else if let sim = block.simulator, let arguments = Self.simulatorStart(step.command) {
                    // A second `thrum sim &` in a block serves beside the first, named by its own `pty:` line.
                    let port = step.expected.first.flatMap { $0.hasPrefix("pty: ") ? String($0.dropFirst(5)) : nil } ?? sim.port
                    let simulator = try SimulatorProcess(arguments: arguments.map(local))
                    if let session, startedHere {
                        session.simulators.append((port, simulator))
                    } else {
                        session?.close()
                        session = SimulatorSession(file: block.file, port: sim.port, simulator: simulator)
                        startedHere = true
                    }
                    output = "pty: \(simulator.ptyPath)\n" + Self.read(simulator, lines: step.expected.count - 1)
                    output = shown(session!.toPort(output))
                } else if let session, block.simulator != nil {
                    let result = try Self.run(local(session.toPTY(step.command)), path: binDir, configuration: session.configuration)
                    lastStatus = result.status
                    output = shown(session.toPort(result.output))
                } else {
                    let result = try Self.run(local(step.command), path: binDir)
                    lastStatus = result.status
                    output = shown(result.output)
                }
                var actual = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if actual.last == "" { actual.removeLast() }
                if let mismatch = Self.compare(expected: step.expected, actual: actual) {
                    // simavr runs the AVR's cycles paced to the wall clock; on a loaded machine it
                    // falls behind (seconds at load 8), a device no board is: its clock stalls,
                    // and what the host reports says nothing about Thrum. The harness's own
                    // pacing lag (the trace's `pacing_lag_us`) tells; the sample is then not
                    // judged, and says why. A sample that fails while simavr kept pace fails.
                    if let avrTrace, let lag = Self.maximumPacingLag(avrTrace), lag > Self.avrLagLimit {
                        print(String(
                            format: "doc samples: %@:%d not judged: simavr fell %.0f ms behind the wall clock (the machine's load)",
                            block.file, step.line, lag / 1e3))
                        continue
                    }
                    failures.append(
                        "\(block.file):\(step.line + 1 + mismatch.expectedIndex): `\(step.command)`: expected '\(mismatch.expected)', "
                            + "got '\(mismatch.actual)'\n--- output:\n\(output)")
                }
            }
        }
        return failures
    }

    /// The pacing lag beyond which an AVR simulation's sample is not judged, µs: the host's
    /// default queued lead (60 ms) less a margin.
    static let avrLagLimit = 50_000.0

    /// The `--trace` file of `thrum sim --mcu … --trace FILE` arguments; nil without `--mcu`.
    static func avrTrace(of arguments: [String]) -> String? {
        guard arguments.contains("--mcu"), let k = arguments.firstIndex(of: "--trace"), k + 1 < arguments.count else { return nil }
        return arguments[k + 1]
    }

    /// The largest `pacing_lag_us` (4th column) of an avrsim register trace, µs; nil when unread.
    static func maximumPacingLag(_ path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { row -> Double? in
            let fields = row.split(separator: ",")
            return fields.count >= 4 ? Double(fields[3]) : nil
        }.max()
    }

    /// `thrum sim ARGS… &` (a comment after it allowed) → ARGS; nil for any other command.
    static func simulatorStart(_ command: String) -> [String]? {
        var text = command
        if let hash = text.range(of: " #") { text = String(text[..<hash.lowerBound]) }
        text = text.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("thrum sim"), text.hasSuffix("&") else { return nil }
        return text.dropLast().split(separator: " ").dropFirst(2).map(String.init)
    }

    /// Up to `lines` lines the simulator prints after its `pty:` line (waits up to 10 s for them).
    static func read(_ simulator: SimulatorProcess, lines: Int) -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while text.filter({ $0 == "\n" }).count < lines, Date() < deadline {
            text += simulator.availableOutput()
            usleep(20_000)
        }
        return text
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

/// The doc files whose blocks are still to run, and the mismatches found, shared by the lanes of
/// `testEveryMarkedSampleRunsAsWritten`.
private final class DocLanes: @unchecked Sendable {
    private let lock = NSLock()
    private var files: [[DocSampleTests.Block]]
    private var found: [String] = []

    init(_ files: [[DocSampleTests.Block]]) { self.files = files }

    /// The next file's blocks, nil when none is left.
    func next() -> [DocSampleTests.Block]? { lock.withLock { files.isEmpty ? nil : files.removeFirst() } }

    func add(_ failures: [String]) { lock.withLock { found += failures } }

    var failures: [String] { lock.withLock { found } }
}

/// Every shell block in the docs is run by `DocSampleTests`, or says why it cannot be.
extension DocSampleTests {
    /// What a block that builds, installs or runs the suite may contain (`<!-- not-run: WHY -->`):
    /// the suite runs from that build, so it cannot run them itself.
    /// Besides those, two that cannot run as a cram session: `thrum monitor`, a full-screen view
    /// beside a second terminal (MonitorTests runs it on a pty and reads its screen), and
    /// `thrum bench`, minutes of measurement in a release build (ThrumBenchTests test its parts).
    static let toolingCommands = [
        "swift build", "swift test", "tools/test.sh", "tools/install.sh", "tools/ensure-deps.sh", "tools/play.sh", "tools/avr-soak.sh",
        "make ", ".build/debug/thrum bench", "thrum bench", "thrum monitor",
    ]

    /// Fenced blocks of README.md and docs/*.md: file, 1-based line of the opening fence, its
    /// language, the line before it and the lines inside.
    static func fencedBlocks() throws -> [(file: String, line: Int, language: String, before: String, body: [String])] {
        let root = TestPaths.packageRoot
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
        var found: [(file: String, line: Int, language: String, before: String, body: [String])] = []
        for file in ["README.md"] + docs.filter({ $0.hasSuffix(".md") }).sorted().map({ "docs/" + $0 }) {
            let lines = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var i = 0
            while i < lines.count {
                if lines[i].hasPrefix("```") {
                    var j = i + 1
                    while j < lines.count, !lines[j].hasPrefix("```") { j += 1 }
                    let before = i > 0 ? lines[i - 1].trimmingCharacters(in: .whitespaces) : ""
                    found.append((file, i + 1, String(lines[i].dropFirst(3)).trimmingCharacters(in: .whitespaces), before, Array(lines[(i + 1)..<min(j, lines.count)])))
                    i = j
                }
                i += 1
            }
        }
        return found
    }
}

/// Every shell block in the docs runs or says why not, and every Swift block type-checks: no
/// simulator and no clock (the parallel pass; `DocSampleTests` runs the samples in real time).
final class DocBlockTests: XCTestCase {
    /// An AVR block's trace is found from its `thrum sim --mcu … --trace FILE &`, and its largest
    /// pacing lag read from the harness's rows (comments and the header skipped).
    func testTheAVRPacingLagIsReadFromTheBlocksTrace() throws {
        XCTAssertEqual(
            DocSampleTests.avrTrace(of: DocSampleTests.simulatorStart("thrum sim --mcu atmega328p --trace /tmp/w.csv &") ?? []),
            "/tmp/w.csv")
        XCTAssertNil(DocSampleTests.avrTrace(of: ["--trace", "/tmp/w.csv"]), "a virtual device's trace has no pacing lag")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-lag-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("# avrsim register trace\ntime_us,register,value,pacing_lag_us\n10,1,0,12\n20,2,0,73000\n30,2,0,5\n".utf8).write(to: file)
        XCTAssertEqual(DocSampleTests.maximumPacingLag(file.path), 73_000)
        XCTAssertGreaterThan(73_000, DocSampleTests.avrLagLimit)
    }

    func testEveryShellBlockRunsOrIsMarked() throws {
        var unrun: [String] = []
        for block in try DocSampleTests.fencedBlocks() {
            let shell = ["sh", "console", "shell", "bash"].contains(block.language) || block.body.contains { $0.hasPrefix("$ ") }
            guard shell else { continue }
            let place = "\(block.file):\(block.line)"
            if DocSampleTests.marker(block.before) != nil {
                XCTAssertTrue(block.body.contains { $0.hasPrefix("$ ") }, "\(place): a doctest block with no `$ ` command runs nothing")
            } else if block.before.hasPrefix("<!-- board-only: "), block.before.hasSuffix(" -->") {
                unrun.append("\(place) (board-only)")
            } else if block.before.hasPrefix("<!-- not-run: "), block.before.hasSuffix(" -->") {
                let session = block.body.contains { $0.hasPrefix("$ ") }
                for line in block.body where !session || line.hasPrefix("$ ") {
                    let command = line.hasPrefix("$ ") ? String(line.dropFirst(2)) : line
                    guard !command.trimmingCharacters(in: .whitespaces).isEmpty, !command.hasPrefix("#") else { continue }
                    XCTAssertTrue(
                        DocSampleTests.toolingCommands.contains { command.hasPrefix($0) }
                            || (command.hasPrefix("thrum play") && block.body.contains { $0.hasPrefix("$ thrum monitor") }),
                        "\(place): `\(command)` in a not-run block: only building, installing or running the suite may be left unrun")
                }
                unrun.append("\(place) (not-run)")
            } else {
                XCTFail(
                    "\(place): a shell block that no test runs: mark it <!-- doctest --> (or <!-- doctest: sim PORT ARGS -->), "
                        + "or <!-- board-only: WHY --> when it needs a physical board")
            }
        }
        print("doc shell blocks not run: \(unrun.joined(separator: ", "))")
    }

    /// Every ```swift block type-checks against the package's modules, at its doc's line: a block
    /// after `<!-- swift-context: CODE -->` has CODE before it (the names it takes as given); one
    /// after `<!-- swift-fragment: WHY -->` is not checked (a side-by-side table, a sketch).
    func testEverySwiftBlockTypeChecks() throws {
        let build = try TestPaths.thrumBinary.deletingLastPathComponent()
        let root = TestPaths.packageRoot
        var imports: Set<String> = ["Foundation", "XCTest", "Thrum", "ThrumEngine", "ThrumHarness", "ThrumLibrary", "ThrumSim", "ThrumLink", "ThrumAudio"]
        var functions: [String] = []
        var checked = 0
        for (index, block) in try DocSampleTests.fencedBlocks().enumerated() where block.language == "swift" {
            if block.before.hasPrefix("<!-- swift-fragment") { continue }
            var body: [String] = []
            if block.before.hasPrefix("<!-- swift-context: "), block.before.hasSuffix(" -->") {
                body.append("#sourceLocation(file: \"\(block.file)\", line: \(block.line - 1))")
                body.append(String(block.before.dropFirst("<!-- swift-context: ".count).dropLast(4)))
            }
            body.append("#sourceLocation(file: \"\(block.file)\", line: \(block.line + 1))")
            for line in block.body {
                if line.hasPrefix("import ") {
                    imports.insert(String(line.dropFirst(7).prefix { !$0.isWhitespace }))
                    body.append("")
                } else {
                    body.append(line)
                }
            }
            body.append("#sourceLocation()")
            functions.append("func docBlock\(index)() throws {\n\(body.joined(separator: "\n"))\n}")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 5, "the docs' Swift blocks were found")
        let source = imports.sorted().map { "import \($0)" }.joined(separator: "\n") + "\n" + functions.joined(separator: "\n")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-doc-swift-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("main.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        // The C modules the Swift ones import: the system libraries' maps and the firmware's.
        var maps = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
            .map { root.appendingPathComponent("Sources/\($0)/module.modulemap").path }
        maps += try FileManager.default.contentsOfDirectory(atPath: build.path).map { build.appendingPathComponent("\($0)/module.modulemap").path }
        let result = try ChildProcess.run(
            "/usr/bin/env",
            ["swiftc", "-typecheck", "-I", build.appendingPathComponent("Modules").path]
                + maps.filter { FileManager.default.fileExists(atPath: $0) }.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] } + [file.path],
            directory: root)
        XCTAssertEqual(result.status, 0, "the docs' Swift blocks do not type-check:\n\(result.output)")
    }
}
