import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import XCTest

/// A transient far into a pattern on the virtual device as `thrum play` builds it
/// (``ThrumSim/DRV2605LModel/coalescesQuietWindows``): the chip's trace keeps one window at each
/// end of the idle stretch, so its size does not grow with the wait, and the onset is still
/// exact against the chip's truth.
final class IdleTraceTests: XCTestCase {
    func testALongIdleStretchKeepsTheTraceSmallAndTheOnsetOnTime() throws {
        var windows: [Int] = []
        for wait in [10.0, 90.0] {
            let rig = VirtualRig(profile: .default, link: LinkCatalogue.usbFullSpeed, seed: 1)
            rig.device.chip.coalescesQuietWindows = true
            try rig.connect()
            let report = try rig.play(HapticPattern(events: [TestPatterns.transient(at: wait)], parameters: [], parameterCurves: []))
            let event = try XCTUnwrap(report.events.first)
            XCTAssertEqual(event.status, .onTime)
            let truth = try XCTUnwrap(event.trueOnsetTime, "no true onset at \(wait) s")
            XCTAssertEqual(truth, wait, accuracy: 1.5e-3, "the chip's onset against the request")
            let samples = rig.device.chip.trace.samples
            windows.append(samples.count)
            // Still in time order, and the burst itself is kept window by window.
            XCTAssertTrue(zip(samples, samples.dropFirst()).allSatisfy { $0.time < $1.time })
            let start = UInt64(rig.trueStartTime(of: report) + wait * 1e6)
            XCTAssertGreaterThan(rig.device.chip.trace.peakAcceleration(from: start - 5_000, to: start + 30_000), 0.1)
        }
        // 80 s more of waiting adds next to nothing (every window kept: 80 000 more).
        XCTAssertLessThan(windows[1], windows[0] + 100, "\(windows)")
        XCTAssertLessThan(windows[1], 5_000, "\(windows)")
    }
}
