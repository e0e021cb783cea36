import Foundation
import XCTest

/// A `thrum play --json` report held against the simulated chip's own trace (`thrum sim
/// --trace`): each onset against the chip's first drive (RTP_INPUT from zero to non-zero) after
/// its intent (within `tolerance`, 1 ms unless told, and inside the reported bound with
/// PlayOverPseudoTerminalTests' 200 µs margin).
enum OnsetTruth {
    struct Figures {
        /// The largest |true drive − intended drive|, s.
        var maxTrueError: Double
        /// The mean reported bound, s.
        var meanBound: Double
        /// The largest reported bound, s.
        var maxBound: Double
        /// How many events were on time (all of them unless `onlyOnTime`).
        var onTime = 0
    }

    /// Checks every event of `report` (all `on_time`, `events` of them) against `trace`; `label`
    /// names the path in failure messages. `onlyOnTime`: events said not to be on time (late,
    /// dropped, a drive gap, lost in a reset) are not held against the chip, nor required to be
    /// on time, and a run cut short may list fewer than `events`.
    @discardableResult
    static func check(
        _ report: [String: Any], trace: URL, events count: Int, label: String, tolerance: Double = 1e-3,
        onlyOnTime: Bool = false,
        file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Figures {
        let events = try XCTUnwrap(report["events"] as? [[String: Any]], file: file, line: line)
        if onlyOnTime {
            XCTAssertTrue((1...count).contains(events.count), "\(label): \(events.count) events", file: file, line: line)
        } else {
            XCTAssertEqual(events.count, count, label, file: file, line: line)
        }
        let start = try XCTUnwrap((report["start_host_monotonic_ns"] as? NSNumber)?.int64Value, file: file, line: line)
        let drives = risingEdges(trace)
        var figures = Figures(maxTrueError: 0, meanBound: 0, maxBound: 0)
        for event in events {
            if onlyOnTime && event["status"] as? String != "on_time" { continue }
            XCTAssertEqual(event["status"] as? String, "on_time", "\(label): \(event)", file: file, line: line)
            figures.onTime += 1
            let requested = try XCTUnwrap(event["requested_s"] as? Double, file: file, line: line)
            let onset = try XCTUnwrap(event["onset_s"] as? Double, file: file, line: line)
            let drive = try XCTUnwrap(event["drive_onset_s"] as? Double, file: file, line: line)
            let bound = try XCTUnwrap(event["onset_bound_s"] as? Double, file: file, line: line)
            let intended = requested - (onset - drive)
            let intendedNs = Double(start) + intended * 1e9
            let truthNs = try XCTUnwrap(
                drives.first { Double($0) >= intendedNs - 3e6 }, "\(label): no drive near \(requested) s", file: file,
                line: line)
            let truth = (Double(truthNs) - Double(start)) / 1e9
            XCTAssertEqual(
                truth, intended, accuracy: tolerance, "\(label): true drive vs intent at \(requested) s", file: file, line: line)
            XCTAssertLessThanOrEqual(
                abs(truth - drive), bound + 200e-6, "\(label): the bound misses the chip at \(requested) s", file: file,
                line: line)
            figures.maxTrueError = max(figures.maxTrueError, abs(truth - intended))
            figures.meanBound += bound
            figures.maxBound = max(figures.maxBound, bound)
        }
        figures.meanBound /= Double(max(1, figures.onTime))
        return figures
    }

    /// When the chip's drive went from off to on (monotonic ns).
    static func risingEdges(_ trace: URL) -> [Int64] {
        var previous = 0
        var edges: [Int64] = []
        for write in SimulatorTrace.rtpWrites(trace) {
            if previous == 0 && write.value > 0 { edges.append(write.ns) }
            previous = write.value
        }
        return edges
    }
}
