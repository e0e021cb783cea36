import Foundation
import ThrumEngine
import ThrumLink
import ThrumSim
import ThrumTime

/// `thrum bench --device avr`: the timing figures of the link matrix taken on the AVR firmware
/// *binary* in simavr (hardware/avrsim, a separate GPL program this starts), beside the same
/// figures on the virtual device (virtual time) on the link model like the pseudo-terminal's,
/// ``ptyLink``.
///
/// Truth is the harness's trace: each DRV2605L register write stamped in simulated time (CPU
/// cycles / 16 MHz) when its I²C data byte completed. Two kinds of figure come out of it:
/// - **firmware** figures (inter-onset error): differences of simulated times against the device
///   times the host commanded (its SEGMENTs, from the harness's host log).
/// - **host** figures (alignment, bound containment, prepared start latency): the host runs on the
///   simulation's clock (``SimulationClock``, the harness's `--clock-file`), offset by
///   ``hostOrigin`` and drifting ``hostDriftPPM`` against the AVR's crystal, so the truth maps onto
///   its timeline exactly. simavr's lag behind the wall clock (it is still paced to it) does not
///   reach these figures: for the host, the simulated time is the time. Every onset is measured.
///
/// simavr's slowness on a loaded machine reaches neither kind: while it is descheduled the host's
/// clock stands still too, so the host's frames reach the AVR (within the harness's 50 µs pump) at
/// the simulated times they were sent. The host's own scheduling still counts, as on hardware: a
/// host descheduled while simavr runs is late in simulated time.
public enum AVRBench {
    /// Host time at simulated t = 0: the host's clock has its own origin (a day and a quarter of a
    /// second after its boot), not the device's.
    public static let hostOrigin = HostTime(nanoseconds: 86_400_250_000_000)
    /// The host's oscillator against the AVR's crystal (simulated time): +80 ppm, within a
    /// desktop's and a ceramic resonator's tolerances, so the clock model has a drift to learn.
    public static let hostDriftPPM = 80.0

    /// The virtual device's link beside the AVR's: the pseudo-terminal delivers each host byte to
    /// the simulated UART at its byte time (simavr: 93.5 µs at 115 200 baud), within the harness's
    /// 50 µs pump, and each device byte as its UART sends it; no USB frames, no bridge timer. So: a
    /// plain 115 200 baud line (``UartLink``), no wake-up jitter, whose rate the host does not
    /// know (a pty says nothing of the UART behind it).
    public static let ptyLink = LinkProfile(name: "uart-115200", summary: "plain 115 200 baud line, no bridge, no wake-up jitter (like the AVR's pty)") { _ in
        UartLink(baud: 115_200, hostSeesUart: false)
    }

    /// What to run.
    public struct Options: Sendable {
        /// The harness executable (hardware/avrsim/build/avrsim).
        public var harness: String
        /// The firmware ELF (hardware/firmware/build/avr/thrum.elf).
        public var elf: String
        /// Separate simulations (each a fresh boot): the spread between them is reported.
        public var runs: Int
        /// Transients per run, 120 ms apart (the link matrix's rhythm).
        public var events: Int
        /// Prepared starts per run.
        public var trials: Int

        /// The full plan (3 runs of 60 transients and 10 prepared starts), or a quick one.
        public init(harness: String, elf: String, quick: Bool) {
            self.harness = harness
            self.elf = elf
            runs = quick ? 1 : 3
            events = quick ? 16 : 60
            trials = quick ? 4 : 10
        }
    }

    /// The figures of one simulation.
    public struct Run: Sendable {
        /// Inter-onset error between consecutive onsets, simulated time, µs.
        public var interOnset: [Double] = []
        /// A prepared start's GO reaching the AVR → its first drive write, simulated time, ms (the
        /// lead the host left it, then one I²C write): the device's part of the start latency,
        /// whatever the machine's load.
        public var goToDrive: [Double] = []
        /// Onset write completion after its commanded device time, simulated time, µs.
        public var writeLatency: [Double] = []
        /// Host intent → truth on the host's clock, µs, every onset.
        public var alignment: [Double] = []
        /// Onsets whose reported bound was checked, and those whose bound held the truth.
        public var bounded = 0
        public var contained = 0
        /// Half-widths of the reported bounds ("±"), µs.
        public var boundHalfWidths: [Double] = []
        /// Onsets the trace shows driving (each has its host figures).
        public var onsets = 0
        /// Truth outside its bound: "event k: truth t µs, bound [lo, hi]" (host µs), for the report.
        public var outsideBound: [String] = []
        /// Prepared start: call → first non-zero drive, ms, on the host's clock.
        public var prepared: [Double] = []
        public var preparedGoStarts = 0
        /// The clock model's drift estimate at the end (ppm, device against host) and the truth.
        public var learntDriftPPM = 0.0
        public var trueDriftPPM = 0.0
        /// The drift the clock model's samples guarantee (ppm): the truth must lie inside.
        public var driftBoundsPPM: ClosedRange<Double>?
        /// The largest pacing lag of the run (simavr behind the wall clock), µs, and the share of
        /// 10 ms windows with > 100 µs: how far the simulation fell behind real time. The host
        /// figures do not depend on it.
        public var maxLag = 0.0
        public var laggingShare = 0.0
    }

    /// Every run, and the virtual device's figures beside them.
    public struct Result: Sendable {
        public var runs: [Run]
        public var virtual: LinkMatrixBench.Row

        func all(_ key: KeyPath<Run, [Double]>) -> [Double] { runs.flatMap { $0[keyPath: key] } }

        /// Onsets whose truth lay inside their reported bound, of those with a bound, all runs.
        public var contained: Int { runs.map(\.contained).reduce(0, +) }
        public var bounded: Int { runs.map(\.bounded).reduce(0, +) }

        /// The comparison table, with the spread between runs and what each figure can be trusted for.
        public var table: String {
            let inter = Percentiles(all(\.interOnset).map(abs)), vInter = Percentiles(virtual.interOnset.map(abs))
            let align = Percentiles(all(\.alignment).map(abs)), vAlign = Percentiles(virtual.alignment.map(abs))
            let prep = Percentiles(all(\.prepared)), vPrep = Percentiles(virtual.prepared)
            let latency = Percentiles(all(\.writeLatency))
            let go = Percentiles(all(\.goToDrive))
            let onsets = runs.map(\.onsets).reduce(0, +)
            func f(_ x: Double?) -> String { x.map(BenchReport.format) ?? "n/a" }
            func mean(_ xs: [Double]) -> String { xs.isEmpty ? "n/a" : BenchReport.format(xs.reduce(0, +) / Double(xs.count)) }
            func spread(_ key: KeyPath<Run, [Double]>) -> String {
                let p99s = runs.compactMap { Percentiles($0[keyPath: key].map(abs)).p99 }
                guard let lo = p99s.min(), let hi = p99s.max() else { return "n/a" }
                return "\(BenchReport.format(lo))…\(BenchReport.format(hi))"
            }
            let rows: [[String]] = [
                ["figure", "AVR binary (simavr)", "per-run p99", "virtual device (\(virtual.link))", "target"],
                ["inter-onset error p50 / p99 / max, µs", "\(f(inter.p50)) / \(f(inter.p99)) / \(f(inter.max))", spread(\.interOnset),
                 "\(f(vInter.p50)) / \(f(vInter.p99)) / \(f(vInter.max))", "p99 ≤ 20 (issue 8); ≤ 10 (DESIGN)"],
                ["onset write after its due time p50 / p99, µs", "\(f(latency.p50)) / \(f(latency.p99))", spread(\.writeLatency), "—",
                 "(one I²C write: 73 µs bus + CPU)"],
                ["alignment error p50 / p99 / max, µs", "\(f(align.p50)) / \(f(align.p99)) / \(f(align.max))", spread(\.alignment),
                 "\(f(vAlign.p50)) / \(f(vAlign.p99)) / \(f(vAlign.max))", "p99 ≤ 250 (USB FS)"],
                ["reported bound holds the truth", "\(contained) of \(bounded)", "—",
                 "\(virtual.contained) of \(virtual.bounded)", "100 %"],
                ["mean bound half-width, µs", mean(all(\.boundHalfWidths)), "—", mean(virtual.boundHalfWidths),
                 "≤ 2× the alignment p99"],
                ["prepared start latency p50 / p99, ms", "\(f(prep.p50)) / \(f(prep.p99))", spread(\.prepared),
                 "\(f(vPrep.p50)) / \(f(vPrep.p99))", "≤ 1.5 / ≤ 3"],
                ["its device part: GO at the AVR → drive p50 / p99, ms (simulated)",
                 "\(f(go.p50)) / \(f(go.p99)) over \(go.count)", spread(\.goToDrive), "—", "—"],
            ]
            var widths = Array(repeating: 0, count: rows[0].count)
            for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
            var lines = rows.enumerated().flatMap { n, row -> [String] in
                let line = row.enumerated().map { i, c in c + String(repeating: " ", count: widths[i] - c.count) }.joined(separator: "  ")
                return n == 0 ? [line, widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] : [line]
            }
            let maxLag = runs.map(\.maxLag).max() ?? 0
            let lagging = runs.map(\.laggingShare).reduce(0, +) / Double(max(runs.count, 1))
            let drifts = runs.map { BenchReport.format($0.learntDriftPPM) }.joined(separator: ", ")
            lines.append("")
            lines.append("\(runs.count) simulations, \(onsets) onsets. All AVR rows are simulated time: the host (engine, link, clock model) "
                + "runs on the simulation's clock, offset and drifting \(BenchReport.format(hostDriftPPM)) ppm against the AVR's crystal "
                + "(learnt: \(drifts) ppm; true \(BenchReport.format(runs.first?.trueDriftPPM ?? 0))). Virtual device: link "
                + "\(virtual.link), virtual time.")
            lines.append("simavr's pacing lag behind the wall clock (up to \(BenchReport.format(maxLag / 1000)) ms, "
                + "\(BenchReport.format(lagging * 100)) % of 10 ms windows behind by > 100 µs) does not enter the host rows.")
            for run in runs { for line in run.outsideBound { lines.append("outside its bound: \(line)") } }
            return lines.joined(separator: "\n")
        }

        /// The same as one JSON object.
        public var json: String {
            func list(_ xs: [Double]) -> String { "[" + xs.map { BenchReport.number($0) }.joined(separator: ",") + "]" }
            func stats(_ xs: [Double]) -> String {
                let p = Percentiles(xs)
                return "{\"count\":\(p.count),\"p50\":\(BenchReport.number(p.p50)),\"p99\":\(BenchReport.number(p.p99)),\"max\":\(BenchReport.number(p.max))}"
            }
            let runsJSON = runs.map { r in
                "{\"inter_onset_abs_us\":\(stats(r.interOnset.map(abs))),\"write_latency_us\":\(stats(r.writeLatency)),"
                    + "\"go_to_drive_ms\":\(stats(r.goToDrive)),"
                    + "\"alignment_abs_us\":\(stats(r.alignment.map(abs))),\"alignment_signed_us\":\(stats(r.alignment)),"
                    + "\"bounded\":\(r.bounded),\"contained\":\(r.contained),"
                    + "\"bound_half_width_us\":\(stats(r.boundHalfWidths)),"
                    + "\"outside_bound\":[\(r.outsideBound.map(BenchReport.quoted).joined(separator: ","))],"
                    + "\"onsets\":\(r.onsets),\"prepared_ms\":\(stats(r.prepared)),"
                    + "\"learnt_drift_ppm\":\(BenchReport.number(r.learntDriftPPM)),\"true_drift_ppm\":\(BenchReport.number(r.trueDriftPPM)),"
                    + "\"drift_bounds_ppm\":\(r.driftBoundsPPM.map { "[\(BenchReport.number($0.lowerBound)),\(BenchReport.number($0.upperBound))]" } ?? "null"),"
                    + "\"prepared_go_starts\":\(r.preparedGoStarts),\"max_pacing_lag_us\":\(BenchReport.number(r.maxLag)),"
                    + "\"lagging_window_share\":\(BenchReport.number(r.laggingShare))}"
            }
            return "{\"device\":\"avr\",\"runs\":[\(runsJSON.joined(separator: ","))],"
                + "\"inter_onset_abs_us\":\(stats(all(\.interOnset).map(abs))),"
                + "\"go_to_drive_ms\":\(stats(all(\.goToDrive))),"
                + "\"alignment_abs_us\":\(stats(all(\.alignment).map(abs))),\"bounded\":\(bounded),\"contained\":\(contained),"
                + "\"bound_half_width_us\":\(stats(all(\.boundHalfWidths))),"
                + "\"prepared_ms\":\(stats(all(\.prepared))),"
                + "\"host_clock\":{\"origin_ns\":\(hostOrigin.nanoseconds),\"drift_ppm\":\(BenchReport.number(hostDriftPPM))},"
                + "\"virtual\":{\"link\":\(BenchReport.quoted(virtual.link)),\"inter_onset_abs_us\":\(stats(virtual.interOnset.map(abs))),"
                + "\"alignment_abs_us\":\(stats(virtual.alignment.map(abs))),\"bounded\":\(virtual.bounded),\"contained\":\(virtual.contained),"
                + "\"bound_half_width_us\":\(stats(virtual.boundHalfWidths)),"
                + "\"prepared_ms\":\(stats(virtual.prepared))},\"inter_onset_us\":\(list(all(\.interOnset)))}"
        }
    }

    /// A harness that would not start or a trace that does not add up.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// Runs the simulations, then the virtual device's rhythm and prepared starts beside them.
    public static func run(_ options: Options) throws -> Result {
        var runs: [Run] = []
        for _ in 0..<max(options.runs, 1) {
            runs.append(try simulate(options))
        }
        var virtual = LinkMatrixBench.Row(link: ptyLink.name)
        try LinkMatrixBench.rhythm(link: ptyLink, seed: 1, count: options.events, into: &virtual)
        try LinkMatrixBench.prepared(link: ptyLink, seed: 31, trials: options.trials, into: &virtual)
        return Result(runs: runs, virtual: virtual)
    }

    /// One boot of the AVR binary: the rhythm, then prepared starts, then the trace read back.
    static func simulate(_ options: Options) throws -> Run {
        let simulation = try Simulation(options)
        defer { simulation.terminate() }
        let clock: SimulationClock
        do {
            clock = try SimulationClock(path: simulation.clockURL.path, origin: hostOrigin, driftPPM: hostDriftPPM)
        } catch {
            throw Failure(message: "the AVR harness's clock file: \(error)")
        }
        let transport = try openTransport(path: simulation.ptyPath, baud: 115_200)
        let engine = HapticEngine(session: DeviceSession(pump: TransportPump(transport: transport, clock: clock),
                                                         endpointName: simulation.ptyPath), runMode: .manual)
        try engine.start()
        engine.run(for: 1)

        // The rhythm: the link matrix's engine path (thrum play's start).
        let player = try engine.makePlayer(with: BenchSetup.transients(count: options.events, spacing: LinkMatrixBench.spacing))
        try player.start(atTime: engine.currentTime + engine.leadTime.seconds + 0.02)
        _ = engine.runUntilPlayersFinished(timeout: Double(options.events) * LinkMatrixBench.spacing + 5)
        engine.waitForOnsetReports(of: player)
        let records = engine.onsets(for: player)

        // Prepared starts: the call on the host clock; its drive is found in the trace.
        let pattern = BenchSetup.transients(count: 1, spacing: 0.1)
        try engine.prepare(pattern)
        engine.run(for: 0.3)
        var calls: [HostTime] = []
        for k in 0..<options.trials {
            engine.run(for: 0.05 + 0.013 * Double(k))
            calls.append(clock.now())
            try engine.makePlayer(with: pattern).start(atTime: HapticTimeImmediate)
            _ = engine.runUntilPlayersFinished(timeout: 1)
            engine.run(for: 0.05)
        }
        var run = Run()
        run.preparedGoStarts = engine.preparedStarts
        let health = engine.linkHealth
        run.learntDriftPPM = health.driftPPM
        run.driftBoundsPPM = health.driftBoundsPPM
        run.trueDriftPPM = (1 / (1 + hostDriftPPM / 1e6) - 1) * 1e6  // device µs per host µs, less one
        engine.stop()
        transport.close()
        simulation.terminate()

        let trace = try AVRTrace(contentsOf: simulation.traceURL)
        let segments = try HostLog(contentsOf: simulation.hostLogURL).onsetSegments()
        let clockStart = try trace.number("device_clock_start_us")
        let hostMicrosOrigin = Double(hostOrigin.nanoseconds) / 1e3
        let simEnd = try trace.number("sim_time_us")
        run.maxLag = trace.lagWindows.map(\.maxLagMicros).max() ?? 0
        run.laggingShare = Double(trace.lagWindows.count) / max(simEnd / 10_000, 1)
        guard segments.count >= records.count else {
            throw Failure(message: "the host log has \(segments.count) onset SEGMENTs for \(records.count) onsets")
        }
        var previous: (truth: Double, due: Double)?
        for (record, segment) in zip(records, segments) {
            let due = clockStart + Double(segment.due)
            guard let write = trace.firstDriveWrite(notBefore: due), write.timeMicros - due < 5_000 else {
                previous = nil
                continue
            }
            run.onsets += 1
            run.writeLatency.append(write.timeMicros - due)
            if let p = previous {
                run.interOnset.append((write.timeMicros - p.truth) - (due - p.due))
            }
            previous = (write.timeMicros, due)
            let truthHost = clock.hostMicros(simulatedMicros: write.timeMicros)  // µs on the host's clock
            run.alignment.append(truthHost - record.intendedDriveTime * 1e6)
            if let range = record.driveOnsetRange, let bound = record.onsetBound {
                run.bounded += 1
                let (lo, hi) = (range.lowerBound * 1e6, range.upperBound * 1e6)
                if lo <= truthHost && truthHost <= hi {
                    run.contained += 1
                } else {
                    run.outsideBound.append(String(format: "event %u: truth %.1f µs, bound %.1f…%.1f (± %.1f)", segment.event,
                                                   truthHost - hostMicrosOrigin, lo - hostMicrosOrigin, hi - hostMicrosOrigin, bound * 1e6))
                }
                run.boundHalfWidths.append(bound * 1e6)
            }
        }
        for segment in try HostLog(contentsOf: simulation.hostLogURL).onsetSegments(includingPrograms: true) where segment.programmed {
            let due = clockStart + Double(segment.due)
            if let write = trace.firstDriveWrite(notBefore: due), write.timeMicros - due < 5_000 {
                run.goToDrive.append((write.timeMicros - segment.receivedMicros) / 1e3)
            }
        }
        for call in calls {
            let callSim = clock.simulatedMicros(host: call)
            if let write = trace.rtpWrites.first(where: { $0.value != 0 && $0.timeMicros >= callSim }) {
                run.prepared.append((clock.hostMicros(simulatedMicros: write.timeMicros) - Double(call.nanoseconds) / 1e3) / 1e3)
            }
        }
        return run
    }

    /// The harness as a child process with its trace and host log in a temporary directory.
    final class Simulation {
        let process = Process()
        let ptyPath: String
        let directory: URL
        var traceURL: URL { directory.appendingPathComponent("trace.csv") }
        var hostLogURL: URL { directory.appendingPathComponent("host.csv") }
        /// The simulated time the harness publishes (`--clock-file`): the host's clock.
        var clockURL: URL { directory.appendingPathComponent("clock") }

        init(_ options: Options) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-avr-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: options.harness)
            process.arguments = ["--elf", options.elf, "--trace", directory.appendingPathComponent("trace.csv").path,
                                 "--host-log", directory.appendingPathComponent("host.csv").path,
                                 "--clock-file", directory.appendingPathComponent("clock").path]
            let output = Pipe()
            process.standardOutput = output
            let errors = directory.appendingPathComponent("stderr.txt")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            var line = Data()
            while let byte = try output.fileHandleForReading.read(upToCount: 1), let b = byte.first, b != UInt8(ascii: "\n") {
                line.append(b)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("pty: ") else {
                process.terminate()
                process.waitUntilExit()
                let said = ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                throw Failure(message: "the AVR harness \(options.harness) printed '\(text)' instead of 'pty: PATH'"
                    + (said.isEmpty ? "" : "; it said: \(said)")
                    + (said.contains("--clock-file") ? " (a build from before --clock-file: make -C hardware/avrsim)" : ""))
            }
            ptyPath = String(text.dropFirst(5))
        }

        /// SIGTERM: the harness writes its trace footer and exits.
        func terminate() {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }

        deinit {
            terminate()
            try? FileManager.default.removeItem(at: directory)
        }
    }
}
