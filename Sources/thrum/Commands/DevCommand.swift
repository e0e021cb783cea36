import Foundation
import ThrumBench
import ThrumCompiler

/// `thrum dev`: tools for working on Thrum itself (not listed by `thrum help`): the generated
/// tables of the docs, the raw felt-onset grid, a compile loop for profilers, the shell
/// completions and the man page.
enum DevCommand: Subcommand {
    static let name = "dev"
    static let summary = "tools for working on Thrum: the docs' tables, the felt-onset grid, a compile loop, completions, the man page"
    static let usage = """
        Usage: thrum dev table NAME [--into FILE]
               thrum dev grid [--no-preshift] [--uncalibrated] [--lead S]
               thrum dev compile EVENTS [--runs K]
               thrum dev completions bash|zsh|fish
               thrum dev man

        table NAME   prints one generated table of the docs as markdown. NAME is one of:
                     \(DocTable.allCases.map(\.rawValue).joined(separator: ", ")).
                     tools/docs-tables.sh writes them into the docs; the tests fail when the
                     docs and the code disagree.
          --into FILE      replace the table's block in FILE (between its
                           <!-- generated: thrum dev table NAME --> and <!-- end generated -->
                           lines) instead of printing it
        grid         prints every felt-onset grid point (docs/semantics.md §7) of every built-in
                     profile, with and without the pre-shift: pre-shift, felt delay after the
                     drive onset and error against the requested time, ms.
          --no-preshift    only the points without the pre-shift
          --uncalibrated   skip the driver's auto-calibration
          --lead S         override the response model's update lead (seconds)
        compile      compiles the compile bench's pattern of EVENTS events K times (default 1)
                     and prints its segment count: a fixed workload for a profiler (the
                     instructions per event of docs/timing.md are callgrind's count at K = 3
                     minus K = 1, over 2 × EVENTS)
          --runs K         compiles
        completions  prints the completion script for bash, zsh or fish, made from the usage
                     texts `thrum CMD --help` prints (tools/install.sh installs them)
        man          prints the man page thrum(1) in roff, made from the same texts
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let noPreShift = arguments.flag("no-preshift")
        let uncalibrated = arguments.flag("uncalibrated")
        let lead = try arguments.option("lead", as: Double.init, expected: "a number of seconds")
        let into = try arguments.option("into")
        let runs = try arguments.option("runs", as: { Int($0) }, expected: "a whole number of compiles")
        let words = try arguments.positionals()
        try arguments.finish()
        switch words.first {
        case "table":
            guard words.count == 2 else { throw UsageError(message: "thrum dev table takes one NAME") }
            guard let table = DocTable(rawValue: words[1]) else {
                throw UsageError(
                    message:
                        "unknown table '\(words[1])': expected one of \(DocTable.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            let lines = try table.lines()
            guard let into else {
                print(lines.joined(separator: "\n"))
                return 0
            }
            try write(lines, of: table, into: into)
        case "grid":
            guard words.count == 1 else { throw UsageError(message: "unexpected argument '\(words[1])'") }
            for compensate in noPreShift ? [false] : [false, true] {
                for profile in ActuatorProfile.builtIn {
                    var response = ActuatorResponse(profile: profile)
                    if let lead { response.updateLead = lead }
                    let options = CompileOptions(feltOnsetCompensation: compensate, response: response)
                    for p in try FeltOnsetGrid.run(profile: profile, options: options, calibrate: !uncalibrated) {
                        print(
                            String(
                                format: "GRID %d %@ %@ s=%.2f i=%.1f shift=%6.2f delay=%6.2f error=%6.2f",
                                compensate ? 1 : 0, p.profile, p.continuous ? "C" : "T", p.sharpness, p.intensity,
                                p.preShift,
                                p.delay, p.error))
                    }
                }
            }
        case "compile":
            guard words.count == 2, let events = Int(words[1]), (0...10_000_000).contains(events) else {
                throw UsageError(message: "thrum dev compile takes one EVENTS count (a whole number from 0 to 10000000)")
            }
            guard (runs ?? 1) >= 1 else { throw UsageError(message: "--runs: expected at least 1 compile") }
            let segments = CompileThroughputBench.compileLoop(events: events, runs: runs ?? 1)
            print("\(events) events, \(runs ?? 1) compiles, \(segments) segments")
        case "completions":
            guard words.count == 2, let shell = ShellCompletions.Shell(rawValue: words[1]) else {
                throw UsageError(message: "thrum dev completions takes one shell: bash, zsh or fish")
            }
            try ProcessStreams.write(ShellCompletions.script(for: shell))
        case "man":
            guard words.count == 1 else { throw UsageError(message: "unexpected argument '\(words[1])'") }
            try ProcessStreams.write(ManPage.page())
        case nil:
            throw UsageError(message: "thrum dev needs a tool: table, grid, compile, completions or man")
        case let word?:
            throw UsageError(message: "unknown dev tool '\(word)': expected table, grid, compile, completions or man")
        }
        return 0
    }

    /// Replaces `table`'s block in the file at `path`.
    static func write(_ lines: [String], of table: DocTable, into path: String) throws {
        guard table.isBlock else {
            throw CommandFailure(
                message: "\(table.rawValue) is a set of row prefixes, not a block: print it and edit \(table.docsFile)")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CommandFailure(message: "\(path): cannot read: \(error.localizedDescription)")
        }
        guard let updated = table.replacingBlock(in: text, with: lines) else {
            throw CommandFailure(message: "\(path): no block marked '\(table.startMarker)' … '\(DocTable.endMarker)'")
        }
        do {
            try updated.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure(message: "\(path): cannot write: \(error.localizedDescription)")
        }
    }
}
