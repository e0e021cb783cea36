import Foundation
import ThrumSim
import XCTest

/// `thrum info` says what a device's USB start-of-frame times tell: the built-in virtual device sits
/// on the native-USB link model and counts its crystal against the frame grid; a device over a
/// pseudo-terminal has no frames to count.
final class InfoFrameTimesTests: XCTestCase {
    func testTheVirtualDeviceOnNativeUsbCountsItsCrystalAgainstTheFrameGrid() throws {
        let info = try ThrumProcess.run(["info", "--json"])
        XCTAssertEqual(info.status, 0, info.standardError)
        let link = try XCTUnwrap((try CLITestSupport.json(info) as? [String: Any])?["link"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(link["frame_reports"] as? Int ?? 0, 2)
        // The built-in device's crystal runs 100 ppm slow; the model's frame grid 25 ppm fast.
        let truth = ((1 - 100e-6) / (1 + LinkCatalogue.usbFrameClockPPM * 1e-6) - 1) * 1e6
        // `info` counts from reports 200 frames apart, each device time in whole µs: good to
        // ±1 µs / 200 ms = ±5 ppm. (It held 0.5 ppm while the reports fell a multiple of 8 frames
        // apart, where the 999.875 µs frame's fraction repeats; the session's CLAIM at connect
        // moved them by two frames.)
        XCTAssertEqual(try XCTUnwrap(link["frame_drift_ppm"] as? Double), truth, accuracy: 5)
        // Its ACKs' departures (protocol 4) come behind later ACKs: the pings of the wait bring some.
        XCTAssertGreaterThan(link["departure_reports"] as? Int ?? 0, 0)
        XCTAssertTrue(link["line_byte_time_us"] is NSNull, "native USB: no byte time")
        let text = try ThrumProcess.run(["info"])
        XCTAssertTrue(text.standardOutput.contains("frames: crystal -12"), text.standardOutput)
        XCTAssertTrue(text.standardOutput.contains("ACK departures"), text.standardOutput)
    }

    func testADeviceOverAPseudoTerminalHasNoFramesToCount() throws {
        let simulator = try SimulatorProcess(arguments: [])
        defer { simulator.stop() }
        let info = try ThrumProcess.run(["info", "--port", simulator.ptyPath, "--json"])
        XCTAssertEqual(info.status, 0, info.standardError)
        let link = try XCTUnwrap((try CLITestSupport.json(info) as? [String: Any])?["link"] as? [String: Any])
        XCTAssertEqual(link["frame_reports"] as? Int, 0)
        XCTAssertEqual(link["departure_reports"] as? Int, 0)
        XCTAssertTrue(link["line_byte_time_us"] is NSNull, "a pseudo-terminal says nothing of the line")
        XCTAssertTrue(link["frame_drift_ppm"] is NSNull)
        let text = try ThrumProcess.run(["info", "--port", simulator.ptyPath])
        XCTAssertTrue(text.standardOutput.contains("frames: no USB start-of-frame times"), text.standardOutput)
    }
}
