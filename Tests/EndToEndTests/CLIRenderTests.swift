import Foundation
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `thrum render`, run as a user would: CSV columns and rows, drive and acceleration behaviour,
/// a well-formed SVG, presets and errors.
final class CLIRenderTests: XCTestCase {
    /// A 200 ms sharp hum starting at 100 ms.
    static let hum = """
        {
          "Version": 1.0,
          "Pattern": [
            { "Event": { "Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.2,
              "EventParameters": [
                { "ParameterID": "HapticIntensity", "ParameterValue": 1.0 },
                { "ParameterID": "HapticSharpness", "ParameterValue": 1.0 } ] } }
          ]
        }
        """

    struct Table {
        var header: [String]
        var rows: [[Double]]
        func column(_ name: String) -> [Double] {
            let i = header.firstIndex(of: name)!
            return rows.map { $0[i] }
        }
        /// Largest value of `name` for rows with `from ≤ time_s < to`.
        func peak(_ name: String, from: Double, to: Double) -> Double {
            zip(column("time_s"), column(name)).filter { $0.0 >= from && $0.0 < to }.map(\.1).max() ?? -1
        }
    }

    func renderCSV(_ source: String, _ extra: [String] = []) throws -> (table: Table, summary: [String: Any]) {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let csv = dir.appendingPathComponent("out.csv").path
        let result = try ThrumProcess.run(["render", source, "--csv", csv, "--json"] + extra)
        XCTAssertEqual(result.status, 0, result.standardError)
        let summary = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        let rows = lines.dropFirst().map { $0.split(separator: ",").map { Double($0)! } }
        return (Table(header: header, rows: rows), summary)
    }

    func testCSVHasTheColumnsAndOneRowPerSample() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let file = try CLITestSupport.write(Self.hum, named: "hum.ahap", in: dir)
        let (table, summary) = try renderCSV(file, ["--rate", "1000"])
        XCTAssertEqual(table.header, ["time_s", "intensity", "sharpness", "drive", "acceleration"])
        XCTAssertTrue(table.rows.allSatisfy { $0.count == 5 })
        XCTAssertEqual(table.rows.count, summary["rows"] as? Int)
        let times = table.column("time_s")
        let start = try XCTUnwrap(times.first), end = try XCTUnwrap(times.last)
        XCTAssertLessThanOrEqual(start, 0)
        XCTAssertGreaterThanOrEqual(end, 0.3, "the render stops before the pattern ends")
        XCTAssertLessThan(end, 0.5, "the render runs far past the ring-down")
        XCTAssertEqual(table.rows.count, Int(((end - start) * 1000).rounded()) + 1)
        for (a, b) in zip(times, times.dropFirst()) { XCTAssertEqual(b - a, 0.001, accuracy: 1e-6) }

        let (fine, _) = try renderCSV(file, ["--rate", "4000"])
        let fineTimes = fine.column("time_s")
        XCTAssertEqual(fineTimes[1] - fineTimes[0], 0.00025, accuracy: 1e-7)
        XCTAssertEqual(Double(fine.rows.count), Double(table.rows.count) * 4, accuracy: 12)
    }

    func testDriveIsZeroBeforeTheEventAndOnDuringIt() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let file = try CLITestSupport.write(Self.hum, named: "hum.ahap", in: dir)
        let (table, summary) = try renderCSV(file)
        for (t, d) in zip(table.column("time_s"), table.column("drive")) {
            if t < 0.08 { XCTAssertEqual(d, 0, "drive at \(t) s, before the event") }
            if t >= 0.11 && t < 0.27 { XCTAssertGreaterThan(d, 0.9, "no drive at \(t) s, during the event") }
            if t > 0.32 { XCTAssertEqual(d, 0, "drive at \(t) s, after the event") }
        }
        XCTAssertEqual(table.peak("intensity", from: 0.11, to: 0.27), 1, accuracy: 1e-6)
        XCTAssertEqual(table.peak("sharpness", from: 0.11, to: 0.27), 1, accuracy: 1e-6)
        XCTAssertEqual(table.peak("intensity", from: -1, to: 0.09), 0)
        XCTAssertEqual(summary["acceleration_source"] as? String, "simulator")
    }

    func testAccelerationRisesAfterAnEvent() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let file = try CLITestSupport.write(Self.hum, named: "hum.ahap", in: dir)
        let (table, _) = try renderCSV(file)
        let before = table.peak("acceleration", from: -1, to: 0.08)
        let during = table.peak("acceleration", from: 0.1, to: 0.3)
        XCTAssertGreaterThan(during, 0.05, "the simulated actuator barely moved (peak \(during) G)")
        XCTAssertLessThan(before, during * 0.05, "the actuator moved before the event")
        let early = table.peak("acceleration", from: 0.1, to: 0.103)
        let built = table.peak("acceleration", from: 0.103, to: 0.13)
        XCTAssertGreaterThan(built, early, "the acceleration does not build up after the onset")
        XCTAssertLessThan(table.peak("acceleration", from: 0.4, to: 1), during * 0.1, "still ringing 100 ms after the end")
    }

    func testSVGIsWellFormedWithFourSeriesAndEventMarkers() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let svg = dir.appendingPathComponent("plot.svg")
        let result = try ThrumProcess.run(["render", TestPaths.example("metronome.ahap").path, "--svg", svg.path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("wrote \(svg.path)"), result.standardOutput)

        let data = try Data(contentsOf: svg)
        let document = try XMLDocument(data: data)
        let root = try XCTUnwrap(document.rootElement())
        XCTAssertEqual(root.name, "svg")
        for id in ["series-intensity", "series-sharpness", "series-drive", "series-acceleration"] {
            let nodes = try root.nodes(forXPath: "//*[@id='\(id)']/*[local-name()='polyline']")
            let polyline = try XCTUnwrap(nodes.first as? XMLElement, "no polyline for \(id)")
            // attribute(forName:) misses attributes in a default namespace on Linux; search the list.
            let points = polyline.attributes?.first { $0.name == "points" }?.stringValue ?? ""
            XCTAssertGreaterThan(points.split(separator: " ").count, 100, id)
        }
        let markers = try root.nodes(forXPath: "//*[@id='events']/*[local-name()='line']")
        XCTAssertEqual(markers.count, 8, "one marker per metronome beat")
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("virtual device simulation"), "the legend does not say where the acceleration comes from")
        XCTAssertFalse(text.contains("<script"))
        XCTAssertFalse(text.contains("@import") || text.contains("url("), "the SVG refers to external resources")
    }

    func testPresetsRenderAndROMEffectsSayTheyAreApproximate() throws {
        let (table, summary) = try renderCSV("preset:impact.heavy")
        XCTAssertEqual(summary["source"] as? String, "preset:impact.heavy")
        XCTAssertGreaterThan(table.column("drive").max() ?? 0, 0.9)

        let (half, _) = try renderCSV("preset:impact.heavy", ["--intensity", "0.5"])
        XCTAssertEqual(half.column("drive").max() ?? 0, 0.5, accuracy: 0.01)

        let (rom, romSummary) = try renderCSV("preset:rom.10")
        XCTAssertTrue((romSummary["rom_approximation"] as? String ?? "").contains("approximate"), "\(romSummary)")
        // Double Click: two pulses 60 ms apart.
        XCTAssertGreaterThan(rom.peak("drive", from: 0, to: 0.015), 0.9)
        XCTAssertEqual(rom.peak("drive", from: 0.03, to: 0.045), 0)
        XCTAssertGreaterThan(rom.peak("drive", from: 0.06, to: 0.075), 0.9)

        let text = try ThrumProcess.run(["render", "preset:rom.strong-click-100"])
        XCTAssertEqual(text.status, 0, text.standardError)
        XCTAssertTrue(text.standardOutput.contains("approximate envelope"), text.standardOutput)
        XCTAssertTrue(text.standardOutput.contains("acceleration, virtual device simulation"), text.standardOutput)
    }

    func testErrorsAreOneLineWithTheRightExitCode() throws {
        let unknown = try ThrumProcess.run(["render", "preset:impact.hevy"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.standardError.contains("did you mean 'impact.heavy'?"), unknown.standardError)

        let missing = try ThrumProcess.run(["render", "/nonexistent/x.ahap"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.standardError.contains("error[-4851]"), missing.standardError)

        let profile = try ThrumProcess.run(["render", "preset:selection", "--profile", "nope"])
        XCTAssertEqual(profile.status, 1)
        XCTAssertTrue(profile.standardError.contains("no actuator profile named 'nope'"), profile.standardError)

        let intensity = try ThrumProcess.run(["render", "preset:selection", "--intensity", "0.5"])
        XCTAssertEqual(intensity.status, 1)
        XCTAssertTrue(intensity.standardError.contains("takes no intensity"), intensity.standardError)

        let rate = try ThrumProcess.run(["render", "preset:selection", "--rate", "abc"])
        XCTAssertEqual(rate.status, 2)
        for result in [unknown, missing, profile, intensity, rate] {
            XCTAssertFalse(result.standardError.contains("Fatal error"), result.standardError)
        }
    }
    /// A render longer than one chunk of rows (65 536) and than the simulated 60 s: the CSV is
    /// written as the rows come and the summary is folded from them, so the file on disk and the
    /// summary must agree row for row (issue 27).
    func testAMultiChunkRenderWritesEveryRowAndSummarisesThem() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        var elements: [String] = []
        for i in 0..<160 {
            let intensity = 0.3 + 0.05 * Double(i % 10)
            elements.append(
                "{ \"Event\": { \"Time\": \(Double(i) * 0.5), \"EventType\": \"HapticTransient\", \"EventParameters\": "
                    + "[ { \"ParameterID\": \"HapticIntensity\", \"ParameterValue\": \(intensity) } ] } }")
        }
        let file = try CLITestSupport.write(
            "{ \"Version\": 1.0, \"Pattern\": [\n" + elements.joined(separator: ",\n") + "\n] }", named: "long.ahap", in: dir)
        let (table, summary) = try renderCSV(file)
        XCTAssertEqual(summary["acceleration_source"] as? String, "predictor")
        XCTAssertGreaterThan(table.rows.count, 65_536 + 10_000, "more than one chunk")
        XCTAssertEqual(table.rows.count, summary["rows"] as? Int)
        let times = table.column("time_s")
        for (a, b) in zip(times, times.dropFirst()) { XCTAssertEqual(b - a, 0.001, accuracy: 1e-7) }
        XCTAssertEqual(times.first ?? .nan, try XCTUnwrap(summary["start_s"] as? Double), accuracy: 1e-6)
        XCTAssertEqual(times.last ?? .nan, try XCTUnwrap(summary["end_s"] as? Double), accuracy: 1e-6)
        let acceleration = table.column("acceleration"), drive = table.column("drive")
        let peak = try XCTUnwrap(summary["peak_acceleration"] as? Double)
        XCTAssertEqual(acceleration.max() ?? .nan, peak, accuracy: 1e-6)
        XCTAssertEqual(drive.max() ?? .nan, try XCTUnwrap(summary["peak_drive"] as? Double), accuracy: 1e-6)
        let at = try XCTUnwrap(acceleration.firstIndex { abs($0 - peak) <= 1e-6 })
        XCTAssertEqual(times[at], try XCTUnwrap(summary["peak_acceleration_time_s"] as? Double), accuracy: 0.0015)
        // The text summary counts the same rows.
        let text = try ThrumProcess.run(["render", file])
        XCTAssertEqual(text.status, 0, text.standardError)
        XCTAssertTrue(text.standardOutput.contains("(\(table.rows.count) rows)"), text.standardOutput)
    }

    /// `render --json` writes its top level and `event_times_s` itself (no boxing of 10⁶ times):
    /// the bytes must be those JSONSerialization writes for the same document (the writer the
    /// rest of `--json` output uses), here with event times whose text is awkward (`1e-07`,
    /// `0.30000000000000004`, a whole `2`), a warning whose key holds a control character and a
    /// slash, and an empty `warnings` array.
    func testJSONSummaryIsByteForByteWhatJSONSerializationWrites() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let odd = try CLITestSupport.write(
            #"{"Version":1,"Pattern":[{"Event":{"Time":1e-7,"EventType":"HapticTransient","Odd\u0001Key/x":1}},"#
                + #"{"Event":{"Time":0.30000000000000004,"EventType":"HapticTransient"}},"#
                + #"{"Event":{"Time":2.0,"EventType":"HapticTransient"}}]}"#, named: "odd.ahap", in: dir)
        let plain = try CLITestSupport.write(Self.hum, named: "hum.ahap", in: dir)
        for (file, times) in [(odd, [1e-7, 0.30000000000000004, 2]), (plain, [0.1])] {
            let result = try ThrumProcess.run(["render", file, "--json"])
            XCTAssertEqual(result.status, 0, result.standardError)
            let object = try XCTUnwrap(try CLITestSupport.json(result) as? [String: Any])
            // Read back through Foundation's NSNumber, 0.30000000000000004 comes out 0.3000000000000001.
            let read = try XCTUnwrap(object["event_times_s"] as? [Double])
            XCTAssertEqual(read.count, times.count)
            for (a, b) in zip(read, times) { XCTAssertEqual(a, b, accuracy: 1e-15) }
            XCTAssertEqual((object["warnings"] as? [Any])?.count, file == odd ? 1 : 0)
            let again = try JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            XCTAssertEqual(result.standardOutput, String(decoding: again, as: UTF8.self) + "\n")
            XCTAssertTrue(result.standardOutput.contains(file == odd ? "\n    0.30000000000000004,\n" : "\n    0.1\n"), result.standardOutput)
        }
    }
}
