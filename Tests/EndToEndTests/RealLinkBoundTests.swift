import Foundation
import XCTest

/// The link bench on real pseudo-terminals: `thrum sim --link SPEC --trace` in one process,
/// `thrum play --port --json` in another, and every reported onset judged against the simulated
/// chip's own register writes. The links here are ones the catalogue's models do not contain
/// (asymmetric legs, bursts with stalls, a return tick, loss and flips, a fast crystal), plus the
/// direct pty and a catalogue model applied in real time.
///
/// Each profile plays `THRUM_LINK_BENCH_EVENTS` transients (default 48, 40 ms apart) and prints a
/// line of figures (docs/timing.md, "Links Thrum never modelled"). The bound must hold for every
/// event; alignment and rhythm are reported, not asserted beyond sanity, since they depend on the link.
final class RealLinkBoundTests: XCTestCase {
    struct Profile {
        var name: String
        var simArguments: [String]
    }

    static let profiles: [Profile] = [
        Profile(name: "direct pty", simArguments: []),
        Profile(name: "proxy, no delay", simArguments: ["--link", "out=0us,back=0us"]),
        Profile(name: "asymmetric 0.3-0.6 / 2-6 ms", simArguments: ["--link", "out=0.3-0.6ms,back=2-6ms"]),
        Profile(name: "bursty 0.2-1 ms, 20-80 ms stalls", simArguments: ["--link", "out=0.2-1ms,back=0.2-1ms,stall=20-80ms@1%"]),
        Profile(name: "return on an 8 ms tick", simArguments: ["--link", "tick=8ms"]),
        Profile(name: "2 % loss + 2 % flips, 0.5-2 ms", simArguments: ["--link", "out=0.5-2ms,back=0.5-2ms", "--fault", "loss=2%,corrupt=2%"]),
        Profile(name: "+150 ppm crystal, asymmetric", simArguments: ["--link", "out=0.3-0.6ms,back=2-6ms", "--drift-ppm", "150"]),
        Profile(name: "ftdi-115200-16ms (model, live)", simArguments: ["--link", "ftdi-115200-16ms"]),
    ]

    static var eventCount: Int {
        ProcessInfo.processInfo.environment["THRUM_LINK_BENCH_EVENTS"].flatMap(Int.init).map { max(4, $0) } ?? 48
    }

    func testTheBoundHoldsTheChipsTruthOnEveryLink() throws {
        let pattern = try Self.writePattern(events: Self.eventCount, spacing: 0.040)
        var lines: [String] = []
        var total = 0
        var violations: [String] = []
        for profile in Self.profiles {
            let figures = try run(profile, pattern: pattern)
            XCTAssertEqual(figures.events, Self.eventCount, "\(profile.name): every event in the report")
            XCTAssertLessThanOrEqual(figures.lostToStarvation, Self.eventCount / 4, "\(profile.name): most events judged")
            total += figures.events
            violations += figures.violations.map { "\(profile.name): \($0)" }
            lines.append(figures.line(profile.name))
        }
        print("link bench (real ptys, \(Self.eventCount) transients per profile):")
        print("| link | events | bound held | alignment p50 / p99 µs | inter-onset p99 µs | mean ± µs |")
        print("|---|---|---|---|---|---|")
        for line in lines { print(line) }
        XCTAssertEqual(violations, [], "bounds that missed the chip's truth")
        XCTAssertEqual(total, Self.eventCount * Self.profiles.count)
    }

    // MARK: One profile

    struct Figures {
        var events = 0
        /// Events the report said were lost to a host stall (`drive_gap`, `not_played`): not judged.
        var lostToStarvation = 0
        var held = 0
        var violations: [String] = []
        var alignment: [Double] = []
        var interOnset: [Double] = []
        var bounds: [Double] = []

        func line(_ name: String) -> String {
            func p(_ values: [Double], _ q: Double) -> Double {
                let s = values.sorted()
                guard !s.isEmpty else { return .nan }
                return s[min(s.count - 1, max(0, Int((q * Double(s.count)).rounded(.up)) - 1))]
            }
            let mean = bounds.isEmpty ? Double.nan : bounds.reduce(0, +) / Double(bounds.count)
            return String(
                format: "| %@ | %d | %d of %d | %.0f / %.0f | %.0f | %.0f |", name, events, held, events - lostToStarvation,
                p(alignment, 0.5) * 1e6, p(alignment, 0.99) * 1e6, p(interOnset, 0.99) * 1e6, mean * 1e6)
                + (lostToStarvation > 0 ? " (\(lostToStarvation) lost to a host stall, reported as drive_gap)" : "")
        }
    }

    func run(_ profile: Profile, pattern: URL) throws -> Figures {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-linkbench-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: trace) }
        let simulator = try SimulatorProcess(arguments: ["--trace", trace.path] + profile.simArguments)
        defer { simulator.stop() }
        let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", pattern.path], timeout: 120)
        simulator.stop()
        // A host starved of the CPU for longer than its queued lead (a loaded 2-core machine) leaves
        // a hole in the drive: that is a fault of the run, said as such (exit 1, `drive_gap`), not a
        // bound. Any other failure is one.
        let starved = result.standardError.contains("the host fell behind its queued lead")
        XCTAssertTrue(result.status == 0 || (result.status == 1 && starved), "\(profile.name): \(result.standardError)")
        if result.status != 0 { print("\(profile.name): exit \(result.status): \(result.standardError)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
            let events = object["events"] as? [[String: Any]],
            let start = (object["start_host_monotonic_ns"] as? NSNumber)?.int64Value
        else {
            XCTFail("\(profile.name): no report in \(result.standardOutput.prefix(400))")
            return Figures()
        }
        let drives = SimulatorTrace.driveStarts(trace)
        var figures = Figures()
        var previous: (truth: Double, intended: Double)?
        for event in events {
            figures.events += 1
            if starved, ["drive_gap", "not_played"].contains(event["status"] as? String) {
                figures.lostToStarvation += 1
                previous = nil
                continue
            }
            guard let requested = event["requested_s"] as? Double, let onset = event["onset_s"] as? Double,
                let drive = event["drive_onset_s"] as? Double, let bound = event["onset_bound_s"] as? Double
            else {
                figures.violations.append("event \(event["index"] ?? "?") not reported: \(event["status"] ?? "?")")
                continue
            }
            let intended = requested - (onset - drive)
            let intendedNs = Double(start) + intended * 1e9
            guard let truthNs = drives.first(where: { Double($0) >= intendedNs - 10e6 }) else {
                figures.violations.append(String(format: "no drive on the chip near %.3f s", requested))
                continue
            }
            let truth = (Double(truthNs) - Double(start)) / 1e9
            if event["bound_suspect"] as? Bool == true {
                figures.violations.append(String(format: "%.3f s: bound suspect on a link whose facts hold", requested))
            }
            if abs(truth - drive) <= bound {
                figures.held += 1
            } else {
                figures.violations.append(
                    String(format: "%.3f s: true %+.0f µs from the reported onset, bound ± %.0f µs", requested, (truth - drive) * 1e6, bound * 1e6))
            }
            figures.alignment.append(abs(truth - intended))
            figures.bounds.append(bound)
            if let p = previous { figures.interOnset.append(abs((truth - p.truth) - (intended - p.intended))) }
            previous = (truth, intended)
        }
        return figures
    }

    /// `events` full-strength transients `spacing` s apart, starting at 0.1 s.
    static func writePattern(events: Int, spacing: Double) throws -> URL {
        var entries: [String] = []
        for i in 0..<events {
            let t = 0.1 + Double(i) * spacing
            let intensity = 0.6 + 0.4 * Double(i % 5) / 4
            entries.append(
                """
                {"Event": {"Time": \(String(format: "%.3f", t)), "EventType": "HapticTransient", "EventParameters": [\
                {"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)}, \
                {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}
                """)
        }
        let text = "{\"Version\": 1.0, \"Pattern\": [\n" + entries.joined(separator: ",\n") + "\n]}\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-linkbench-\(UUID().uuidString).ahap")
        try Data(text.utf8).write(to: url)
        return url
    }
}
