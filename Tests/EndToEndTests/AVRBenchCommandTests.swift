import Foundation
import XCTest

/// `thrum bench --device avr`: the link matrix's timing figures taken on the AVR binary in simavr
/// beside the virtual device's. The firmware figures are simulated time, so they are asserted
/// (inter-onset median ≤ 10 µs and worst ≤ 50 µs, every prepared start a GO that drove); the host
/// figures depend on the simulation keeping pace with the wall clock and are only checked to be
/// consistent (a measured onset counts in the bound figure).
final class AVRBenchCommandTests: XCTestCase {
    func testQuickJSONTakesTheFiguresOnTheBinaryBesideTheVirtualDevice() throws {
        let elf = try AVRToolchain.prepare()
        let result = try ThrumProcess.run(["bench", "--device", "avr", "--elf", elf.path, "--quick", "--json"], timeout: 300)
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["device"] as? String, "avr")
        let runs = try XCTUnwrap(object["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 1)
        let run = try XCTUnwrap(runs.first)
        let inter = try XCTUnwrap(run["inter_onset_abs_us"] as? [String: Any])
        XCTAssertEqual(inter["count"] as? Int, 15, "16 transients: 15 intervals, every onset drove")
        // 15 intervals: the worst is bounded by the jitter sources (AVRSoakTests), the median tight
        XCTAssertLessThanOrEqual(try XCTUnwrap(inter["max"] as? Double), 50)
        XCTAssertLessThanOrEqual(try XCTUnwrap(inter["p50"] as? Double), 10)
        let latency = try XCTUnwrap(run["write_latency_us"] as? [String: Any])
        // due → the onset write's data byte: one register write on the 400 kHz bus and its set-up
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(latency["p50"] as? Double), 70)
        XCTAssertLessThanOrEqual(try XCTUnwrap(latency["p99"] as? Double), 200)
        // Bunching is filtered, and counted: every interval is either paced or left out.
        let paced = try XCTUnwrap(run["paced_inter_onset_abs_us"] as? [String: Any])
        XCTAssertEqual((paced["count"] as? Int ?? -1) + (run["bunched_pairs"] as? Int ?? -1), 15)
        // Each prepared start's device part, in simulated time: its GO arrived before its drive,
        // which took at least one I²C write (73 µs).
        let go = try XCTUnwrap(run["go_to_drive_ms"] as? [String: Any])
        // Measured where the trace shows both the GO's arrival and the drive (a start the loaded
        // simulation bunched with the next frame can leave one out; CI saw 3 of 4 once).
        XCTAssertTrue((1...4).contains(go["count"] as? Int ?? 0), "\(go)")
        XCTAssertGreaterThan(try XCTUnwrap(go["p50"] as? Double), 0.07)
        XCTAssertEqual(run["prepared_go_starts"] as? Int, 4)
        XCTAssertEqual((run["prepared_ms"] as? [String: Any])?["count"] as? Int, 4)
        let onsets = try XCTUnwrap(run["onsets"] as? Int), unmeasurable = try XCTUnwrap(run["unmeasurable"] as? Int)
        let bounded = try XCTUnwrap(run["bounded"] as? Int), contained = try XCTUnwrap(run["contained"] as? Int)
        XCTAssertEqual(onsets, 16)
        XCTAssertLessThanOrEqual(bounded, onsets - unmeasurable)
        XCTAssertLessThanOrEqual(contained, bounded)
        let virtual = try XCTUnwrap(object["virtual"] as? [String: Any])
        XCTAssertEqual(virtual["link"] as? String, "usb-fs")
        XCTAssertEqual(virtual["bounded"] as? Int, virtual["contained"] as? Int)
    }

    func testDeviceOptionsAreUsageErrors() throws {
        let unknown = try ThrumProcess.run(["bench", "--device", "stm32"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.standardError.contains("--device stm32"), unknown.standardError)
        let link = try ThrumProcess.run(["bench", "--device", "avr", "--link", "usb-fs"])
        XCTAssertEqual(link.status, 2)
        XCTAssertTrue(link.standardError.contains("--link"), link.standardError)
        let elf = try ThrumProcess.run(["bench", "--elf", "x.elf"])
        XCTAssertEqual(elf.status, 2)
        XCTAssertTrue(elf.standardError.contains("--device avr"), elf.standardError)
    }
}
