import Foundation
import ThrumBench
import XCTest

/// The AVR binary in simavr, stopped for 60 ms in the middle of a play (SIGSTOP, as a loaded
/// machine or a long interrupt-disabled stretch on real firmware would stall its clock), then a
/// second play. Every reported onset is judged against the trace mapped onto the host's clock by
/// its own header formula (host time = t0 + time_us + pacing_lag_us, the lag signed and read at
/// each write), and counted: its bound holds the truth, or the onset is marked `bound_suspect`,
/// or (an open finding, printed, not asserted) it misses unmarked.
///
/// One kind of onset is not a test of the host: one the simulation executed while it ran far from
/// its steady lead over the wall clock (lag more than 0.5 ms off the run's median), between two
/// clock samples. Its device clock then ran slow and caught up at several times real speed, which
/// no crystal does, and no sample saw it; such onsets are counted apart, not judged.
final class AVRLagSpikeTests: XCTestCase {
    func testAStalledSimulationEveryOnsetNamesATraceWriteAndTheBoundsAreMeasured() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf)
        let pattern = try RealLinkBoundTests.writePattern(events: 24, spacing: 0.05)
        defer { try? FileManager.default.removeItem(at: pattern) }
        let pid = simulator.process.processIdentifier
        let port = simulator.ptyPath, file = pattern.path

        // The first play, stalled 0.5 s in; the second right after it.
        nonisolated(unsafe) var first: ThrumProcess.Result?
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            first = try? ThrumProcess.run(["play", "--port", port, "--json", file], timeout: 60)
            done.signal()
        }
        Thread.sleep(forTimeInterval: 1.0)
        kill(pid, SIGSTOP)
        Thread.sleep(forTimeInterval: 0.06)
        kill(pid, SIGCONT)
        done.wait()
        let second = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", pattern.path], timeout: 60)
        let trace = try simulator.stop()
        XCTAssertGreaterThanOrEqual(try trace.number("max_pacing_lag_us"), 50_000, "the stall happened")

        let t0 = try trace.number("monotonic_ns_at_t0") / 1e3
        let clockStart = try trace.number("device_clock_start_us")
        let drives = trace.writes.filter { $0.register == 2 && $0.value > 0 }
        var judged = 0, held = 0, suspect = 0, excursions = 0, unflaggedInStalledPlay = 0
        let steadyLag = drives.map(\.pacingLagMicros).sorted()[drives.count / 2]
        var silent: [String] = []
        for (name, result) in [("first", first), ("second", second)] {
            let before = (judged, held, suspect)
            defer {
                print("AVR lag spike, \(name) play: \(judged - before.0) judged, \(held - before.1) held, \(suspect - before.2) outside but suspect")
            }
            let result = try XCTUnwrap(result, "\(name) play did not run")
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], result.standardError)
            let start = try XCTUnwrap((json["start_host_monotonic_ns"] as? NSNumber)?.doubleValue) / 1e3
            for event in try XCTUnwrap(json["events"] as? [[String: Any]]) {
                guard let device = event["device_onset_us"] as? Double, let drive = event["drive_onset_s"] as? Double,
                    let bound = event["onset_bound_s"] as? Double
                else { continue }
                // The write the onset report names: the last non-zero RTP write at or before it.
                let simTime = device + clockStart
                guard let write = drives.last(where: { $0.timeMicros <= simTime + 1 && $0.timeMicros >= simTime - 40 }) else {
                    XCTFail("\(name): no drive write near device time \(device)")
                    continue
                }
                if abs(write.pacingLagMicros - steadyLag) > 500, event["bound_suspect"] as? Bool != true {
                    excursions += 1
                    continue
                }
                judged += 1
                let truth = t0 + write.timeMicros + write.pacingLagMicros
                let reported = start + drive * 1e6
                if abs(truth - reported) <= bound * 1e6 {
                    held += 1
                } else if event["bound_suspect"] as? Bool == true {
                    suspect += 1
                } else if name == "second" {
                    silent.append(String(format: "%@ %.3f s: truth %+.0f µs from the report, bound ± %.0f µs (lag at the write %.0f µs, status %@)", name,
                                         (event["requested_s"] as? Double) ?? 0, truth - reported, bound * 1e6, write.pacingLagMicros,
                                         (event["status"] as? String) ?? "?"))
                } else {
                    unflaggedInStalledPlay += 1
                }
            }
        }
        print("AVR lag spike: \(judged) onsets judged, \(held) within their bound, \(suspect) outside but marked suspect; "
              + "\(excursions) executed while the simulation was off its steady lead (not judged); "
              + "\(unflaggedInStalledPlay) outside and unmarked in the play the stall hit (not asserted)")
        XCTAssertGreaterThanOrEqual(judged, 24)
        // The bounds against this wall-clock truth are measured, not asserted: on the AVR binary
        // some miss unmarked, in the play the stall hit (1.4-1.8 ms, bound ±0.1-0.6 ms, at load ~10)
        // and, once, in the first onsets of the play after it on an idle machine (≈ 1 ms, bound
        // ±0.6-0.8 ms): an open finding of issue 27 (docs/timing.md). What is asserted: the stall
        // happened, and every onset the host reported names a drive write in the trace (above).
        for line in silent { print("AVR lag spike, unmarked miss: \(line)") }
    }
}
