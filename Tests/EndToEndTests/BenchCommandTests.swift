import Foundation
import XCTest

/// `thrum bench --smoke --json` runs the whole bench in virtual time and prints every figure.
final class BenchCommandTests: XCTestCase {
    func testSmokeJSONHasEveryKey() throws {
        // Debug builds are several times slower than release: --smoke runs every figure of
        // --quick, under the same keys, from the fewest runs and events that give it (about 60 %
        // of --quick's CPU: each part's connect and calibration stay); the figures themselves are
        // tested in process (ThrumBenchTests). The headline figures come from the usb-fs row of
        // the link matrix, and `--link usb-fs` runs that row alone (BenchTimingTests runs every
        // link of the matrix in process).
        let result = try ThrumProcess.run(["bench", "--smoke", "--json", "--link", "usb-fs"], timeout: 600)
        XCTAssertEqual(result.status, 0, result.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let keys = [
            "onset_error_p50_us", "onset_error_p99_us", "onset_error_max_us", "naive_onset_error_p99_us",
            "clock_offset_error_p99_us", "clock_drift_error_ppm", "prepared_start_latency_p50_ms",
            "prepared_start_latency_p99_ms", "unprepared_start_latency_p50_ms", "loss_retransmissions",
            "loss_lost_events", "wire_bytes_per_second", "felt_onset_error_max_ms", "compile_events_per_second_1000",
            "validate_1e4_events_s", "render_1e3_events_s", "render_1e4_events_s", "audio_haptic_skew_p99_us", "audio_underrun_frames",
            "audio_decode_23s_ms", "first_play_completion_s",
        ]
        for key in keys { XCTAssertNotNil(object[key], "missing \(key)") }
        for key in keys where key != "wire_bytes_per_second" { XCTAssertTrue(object[key] is NSNumber, "\(key) is not a number") }
        XCTAssertEqual(object["loss_lost_events"] as? Double, 0)
        XCTAssertLessThan(try XCTUnwrap(object["onset_error_p99_us"] as? Double), try XCTUnwrap(object["naive_onset_error_p99_us"] as? Double))
        XCTAssertEqual(object["audio_underrun_frames"] as? Double, 0)
        XCTAssertLessThan(
            try XCTUnwrap(object["audio_haptic_skew_p99_us"] as? Double), try XCTUnwrap(object["audio_haptic_skew_p99_us_baseline"] as? Double))
        XCTAssertNotNil(object["notes"] as? [String])
    }

    func testTableNamesFiguresBaselinesAndTargets() throws {
        let result = try ThrumProcess.run(["bench", "--help"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.standardOutput.contains("--quick"))
        XCTAssertTrue(result.standardOutput.contains("--smoke"))
        let avr = try ThrumProcess.run(["bench", "--device", "avr", "--smoke"])
        XCTAssertEqual(avr.status, 2, avr.standardError)
        XCTAssertTrue(avr.standardError.contains("--smoke is for the virtual device's bench"), avr.standardError)
    }
}
