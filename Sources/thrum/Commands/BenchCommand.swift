import Foundation
import ThrumBench
import ThrumHarness
import ThrumSim

/// `thrum bench`: every timing, size and throughput figure of DESIGN.md §6, in virtual time.
enum BenchCommand: Subcommand {
    static let name = "bench"
    static let summary = "measure timing, link and compiler figures in virtual time"
    static let usage = """
        Usage: thrum bench [--json] [--quick | --smoke] [--link NAME | --only GROUP]
               thrum bench --device avr [--elf PATH] [--json] [--quick]

        Runs the whole stack in virtual time (jittered USB full-speed link, ±100 ppm device crystal,
        the real firmware on the DRV2605L and LRA models) and prints each figure beside its
        baseline and target. Every error and latency is measured in the simulation's true time,
        from the moment the host intended (or the call) to the moment the driver started driving.
        Build in release for meaningful compile throughput: swift build -c release.

        Options:
          --json          print one JSON object instead of the table
          --quick         fewer runs and events (for tests; figures are noisier)
          --smoke         the smallest runs that still give every figure of --quick, under the
                          same keys (for testing the output; the figures mean nothing)
          --link NAME     run the link matrix on one link model only: \(LinkCatalogue.all.map(\.name).joined(separator: ", "))
          --only GROUP    run only one group of figures: \(Bench.figureGroups.joined(separator: ", "))
                          (compile throughput; envelope error against the LRA model)
          --device avr    the timing figures (inter-onset error, alignment and its bound, prepared
                          start latency) on the AVR firmware binary in simavr (`thrum sim --mcu`'s
                          harness), the host running on the simulation's clock, beside the virtual
                          device's on a plain 115 200 baud line; truth from the simulated chip
                          (docs/avr-simulation.md)
          --elf PATH      with --device avr: the firmware image (default: the repository's AVR build)
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let json = arguments.flag("json")
        let quick = arguments.flag("quick")
        let smoke = arguments.flag("smoke")
        let link = try arguments.option("link")
        let only = try arguments.option("only")
        let device = try arguments.option("device")
        let elf = try arguments.option("elf")
        if let device {
            guard device == "avr" else { throw UsageError(message: "--device \(device): the devices are avr (and the virtual device without --device)") }
            guard link == nil else { throw UsageError(message: "--link is for the virtual device's link matrix, not --device avr") }
            guard only == nil else { throw UsageError(message: "--only is for the virtual device's figures, not --device avr") }
            guard !smoke else { throw UsageError(message: "--smoke is for the virtual device's bench; --device avr takes --quick") }
            _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
            try arguments.finish()
            let options = AVRBench.Options(
                harness: try AVRSimLauncher.locateHarness(), elf: try AVRSimLauncher.locateFirmware(elf), quick: quick)
            let result: AVRBench.Result
            do {
                result = try AVRBench.run(options)
            } catch {
                throw CommandFailure(message: "the AVR bench failed: \(error)")
            }
            print(json ? result.json : result.table)
            return 0
        }
        if elf != nil { throw UsageError(message: "--elf goes with --device avr") }
        if let only {
            guard Bench.figureGroups.contains(only) else {
                throw UsageError(message: "--only \(only): the groups are \(Bench.figureGroups.joined(separator: ", "))")
            }
            guard link == nil else { throw UsageError(message: "--only runs no link matrix; --link goes without it") }
        }
        if let link, LinkCatalogue.profile(named: link) == nil {
            throw UsageError(message: "no link model named '\(link)' (known: \(LinkCatalogue.all.map(\.name).joined(separator: ", ")))")
        }
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()

        let options = BenchOptions(quick: quick, smoke: smoke, link: link, only: only)
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
