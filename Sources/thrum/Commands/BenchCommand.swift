import Foundation
import ThrumBench
import ThrumHarness

/// `thrum bench`: every timing, size and throughput figure of DESIGN.md §6, in virtual time.
enum BenchCommand: Subcommand {
    static let name = "bench"
    static let summary = "measure timing, link and compiler figures in virtual time"
    static let usage = """
        Usage: thrum bench [--json] [--quick] [--corpus DIR]

        Runs the whole stack in virtual time (jittered USB full-speed link, ±100 ppm device crystal,
        the real firmware on the DRV2605L and LRA models) and prints each figure beside its
        baseline and target. Every error and latency is measured in the simulation's true time,
        from the moment the host intended (or the call) to the moment the driver started driving.
        Build in release for meaningful compile throughput: swift build -c release.

        Options:
          --json          print one JSON object instead of the table
          --quick         fewer runs and events (for tests; figures are noisier)
          --corpus DIR    AHAP corpus for the wire-bytes figure (default ../shared/corpus/ahap)
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let json = arguments.flag("json")
        let quick = arguments.flag("quick")
        let corpus = try arguments.option("corpus")
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()

        var options = BenchOptions(quick: quick)
        options.corpusDirectory = corpus ?? ["../shared/corpus/ahap", "/work/shared/corpus/ahap"].first {
            FileManager.default.fileExists(atPath: $0)
        }
        let report: BenchReport
        do {
            report = try Bench.run(options)
        } catch {
            throw CommandFailure(message: "the bench failed: \(error)")
        }
        print(json ? report.json : report.table)
        return 0
    }
}
