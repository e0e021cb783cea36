import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import XCTest

/// A stalled link is not a device that reset (issue 27: every fault reported, and only real
/// ones), against the simulated device's own reset count. The case is ser2net under a starved
/// machine: the bytes the host wrote wait in the bridge for hundreds of ms while the host itself
/// does not run; when both wake, the held frames' ACKs are read first (their clock sample: a
/// device time far after the send, and a round trip as long), then a fresh frame crosses at
/// once. Between those two samples the device clock seems to fall back by the stall, which a
/// reset check that allowed for the new sample's round trip only, and not the old one's, took
/// for a reboot.
final class StalledLinkResetTests: XCTestCase {
    /// A rig whose host → device leg can be stalled (``StallWindow``), on a serial line's byte time.
    private func stallableRig() -> (VirtualRig, StallWindow) {
        let window = StallWindow()
        return (VirtualRig(link: LegStallLink(base: FixedLatencyLink(latency: 1_000, byteTime: 87), direction: .hostToDevice, window: window)), window)
    }

    /// 0.3 s into the run the outbound leg holds what is written for `stall` µs; 25 ms later the
    /// host stops running until just after it lets go.
    private func stallLinkAndHost(_ rig: VirtualRig, _ window: StallWindow, stall: UInt64, engine: HapticEngine, start: Double) {
        engine.run(until: start + 0.3)
        window.from = rig.pump.trueTime
        window.length = stall
        engine.run(until: engine.currentTime + 0.025)
        rig.pump.stallHost(for: stall + 10_000)
    }

    private func resets(in report: PlaybackReport) -> [RunFault] {
        report.faults.filter { if case .deviceReset = $0.kind { true } else { false } }
    }

    func testAnOutboundStallWhileTheHostStarvesIsNotAReset() throws {
        for stall in [UInt64(250_000), 600_000] {
            let (rig, window) = stallableRig()
            let engine = try rig.engine()
            let contradictions = rig.session.link.clock.contradictions
            let pattern = HapticPattern(
                events: [TestPatterns.continuous(at: 0, duration: 1.5, intensity: 0.8)], parameters: [], parameterCurves: [])
            let report = try rig.playAsThrumPlayDoes(pattern) { _, start in stallLinkAndHost(rig, window, stall: stall, engine: engine, start: start) }
            XCTAssertGreaterThan(rig.session.link.clock.samples.map(\.roundTrip).max() ?? .zero, .microseconds(Int64(stall)), "a held frame gave a sample")
            XCTAssertEqual(rig.device.resetCount, 0, "the device did not reset")
            XCTAssertEqual(resets(in: report), [], "stall \(stall) µs: \(report.faults)")
            // What it is instead: the host fell silent longer than the queued drive, so the device ran
            // dry (a drive gap, which the chip's trace shows); the held frames' samples fit the
            // clock (no contradiction, so no bound is suspect).
            XCTAssertEqual(report.faults.map(\.name), ["drive_gap"], "stall \(stall) µs: \(report.faults.map(\.message))")
            XCTAssertEqual(rig.session.link.clock.contradictions, contradictions, "stall \(stall) µs")
        }
    }

    func testAResetAfterAStalledLinkIsStillAReset() throws {
        let (rig, window) = stallableRig()
        let engine = try rig.engine()
        let pattern = HapticPattern(
            events: [TestPatterns.continuous(at: 0, duration: 2, intensity: 0.8)], parameters: [], parameterCurves: [])
        let report = try rig.playAsThrumPlayDoes(pattern) { _, start in
            rig.pump.deviceFaults = [.reset(at: UInt64((start + 1.2) * 1e6))]
            stallLinkAndHost(rig, window, stall: 400_000, engine: engine, start: start)
        }
        XCTAssertEqual(rig.device.resetCount, 1)
        XCTAssertEqual(resets(in: report).count, 1, "\(report.faults)")
        guard case .deviceReset(let after, let before)? = resets(in: report).first?.kind else { return }
        // Seconds from the run's start, as the report gives them: the window holds the true reset.
        XCTAssertLessThanOrEqual(after, 1.2 + 1e-6)
        XCTAssertGreaterThanOrEqual(before, 1.2 - 1e-6)
    }
}

/// When a ``LegStallLink`` stalls (µs of true time): set while the run is under way.
final class StallWindow {
    var from = UInt64.max
    var length: UInt64 = 0
}

/// A link whose `direction` leg holds every chunk that would arrive within the stall window
/// until the window ends, then delivers them together, in order: a bridge that did not run.
struct LegStallLink<Base: LinkModel>: LinkModel {
    var base: Base
    var direction: LinkDirection
    let window: StallWindow

    mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        guard let arrival = base.deliver(&bytes, writtenAt: time, direction: direction) else { return nil }
        let end = window.from &+ window.length
        guard direction == self.direction, arrival >= window.from, arrival < end else { return arrival }
        return end
    }
}
