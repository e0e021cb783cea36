import Foundation
import ThrumBench
import XCTest

/// Every onset report of a dense pattern comes back from the AVR firmware binary, with 5 % of
/// the frames corrupted both ways: 18 transients in 170 ms (one every 10 ms, the density of the
/// corpus file that lost reports), played through `thrum play --port` against
/// `thrum sim --mcu atmega328p`. Corrupted host frames draw go-back-N resends, each resent frame
/// an ACK frame, which filled the AVR's 128-byte transmit ring and dropped reports with it; a
/// corrupted device frame lost the reports it carried. Now the core writes only frames that fit
/// the ring (HAL serial_room) and repeats each ONSET in later frames (docs/avr-simulation.md).
///
/// Correctness only, never timing: the simulation is paced to the wall clock, so on a loaded
/// machine it can stall behind it; a play during which it fell further behind than `thrum play`
/// waits for the last reports (or than the link waits for an answer) is printed, not judged.
final class AVRDenseReportsTests: XCTestCase {
    private let transients = 18
    private let spacing = 0.010  // s
    private let plays = 3
    private let loops = 3

    /// The pattern, written for the test: transients only, full intensity, sharpness varied.
    private func densePattern() throws -> URL {
        let events = (0..<transients).map { k in
            """
                {"Event": {"Time": \(String(format: "%.3f", Double(k) * spacing)), "EventType": "HapticTransient", "EventParameters": [
                  {"ParameterID": "HapticIntensity", "ParameterValue": 1.0},
                  {"ParameterID": "HapticSharpness", "ParameterValue": \(String(format: "%.2f", Double(k % 5) / 4))}]}}
            """
        }
        let text = "{\n  \"Version\": 1.0,\n  \"Pattern\": [\n" + events.joined(separator: ",\n") + "\n  ]\n}\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-dense-\(UUID().uuidString).ahap")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func testEveryOnsetReportOfADensePatternArrivesUnderCorruption() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf, extraArguments: ["--fault", "corrupt=5%,seed=11"])
        let pattern = try densePattern()
        defer { try? FileManager.default.removeItem(at: pattern) }

        var results: [(report: PlayReport?, error: String, from: Double, to: Double)] = []
        for _ in 0..<plays {
            let began = AVRSoakTests.monotonicMicros()
            let result = try ThrumProcess.run(
                ["play", "--port", simulator.ptyPath, "--json", "--no-plot", "--no-calibrate", "--lenient", "--loop", "\(loops)", pattern.path],
                timeout: 120)
            // exit 1: an event not on time (the firmware's verdict; timing is not the subject here)
            let report = result.status == 0 || result.status == 1 ? try? PlayReport(json: result.standardOutput) : nil
            results.append((report, String(result.standardError.prefix(300)), began, AVRSoakTests.monotonicMicros()))
        }
        let trace = try simulator.stop()
        let t0 = try trace.number("monotonic_ns_at_t0")
        let clockStart = try trace.number("device_clock_start_us")
        // The simulation's largest lag behind the wall clock during a play (as AVRSoakTests).
        func stall(_ from: Double, _ to: Double) -> Double {
            func host(_ w: AVRTrace.LagWindow) -> Double { t0 / 1e3 + w.endMicros + w.maxLagMicros }
            let inside = trace.lagWindows.filter { host($0) >= from && host($0) <= to }.map(\.maxLagMicros)
            let after = trace.lagWindows.first { host($0) > to }.map { [$0.maxLagMicros] } ?? []
            return (inside + after).max() ?? 0
        }

        XCTAssertEqual(try trace.number("device_bytes_dropped"), 0)
        XCTAssertGreaterThan(try trace.number("host_frames_corrupted"), 0, "the fault was injected")
        let drives = trace.rtpWrites
        var judged = 0, reported = 0, lost = 0
        for (p, play) in results.enumerated() {
            let lag = stall(play.from, play.to)
            guard let report = play.report else {
                if lag >= AVRSoakTests.stallBudget {
                    print(String(format: "AVR dense: play %d not judged: the simulation stalled %.1f s behind the wall clock: %@", p, lag / 1e6, play.error))
                } else {
                    XCTFail("play \(p) failed: \(play.error)")
                }
                continue
            }
            XCTAssertEqual(report.events.count, transients * loops, "play \(p): events")
            if lag >= AVRSoakTests.reportGraceBudget {
                print(String(format: "AVR dense: play %d not judged: the simulation fell %.0f ms behind the wall clock", p, lag / 1e3))
                continue
            }
            judged += 1
            print("AVR dense: play \(p): " + Dictionary(grouping: report.events, by: \.status).mapValues(\.count)
                .sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
            for (k, event) in report.events.enumerated() {
                // Every event the host sent has its report; the host may drop an event itself
                // (too dense for the link and the queue): then there is no report to lose.
                XCTAssertNotEqual(event.status, "not_reported", "play \(p) event \(k): its onset report was lost")
                lost += event.status == "not_reported" ? 1 : 0
                guard let device = event.deviceOnset else { continue }
                reported += 1
                // The report tells the truth: a drive write completed just before the firmware
                // read its clock for the report.
                let at = clockStart + device
                XCTAssertTrue(drives.contains { $0.timeMicros <= at + 1 && $0.timeMicros >= at - 100 },
                              "play \(p) event \(k): reported at device \(device) µs, no RTP write there")
            }
        }
        print(String(format: "AVR dense: %d of %d plays judged, %d onset reports, %d lost; frames corrupted: host %.0f of %.0f, device %.0f of %.0f; transmit ring found full at %.0f checks",
                     judged, plays, reported, lost, try trace.number("host_frames_corrupted"), try trace.number("host_frames"),
                     try trace.number("device_frames_corrupted"), try trace.number("device_frames"), try trace.number("tx_ring_full_checks")))
    }
}
