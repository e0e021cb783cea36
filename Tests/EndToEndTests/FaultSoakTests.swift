import Foundation
import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import CThrumFirmware
import XCTest

/// A soak in virtual time: minutes of playback through `HapticEngine`'s public API on a
/// `VirtualRig` whose link loses, corrupts, duplicates and reorders bytes, asserting that no event
/// is lost, that memory does not grow with the minutes played, and that the counters add up.
/// The suite runs the short form; `THRUM_SOAK_MINUTES` lengthens it.
final class FaultSoakTests: XCTestCase {
    private static let minutes = Double(ProcessInfo.processInfo.environment["THRUM_SOAK_MINUTES"] ?? "") ?? 0.25

    /// A bar of a pattern: transients, a continuous swell with an intensity curve, another transient.
    private static let bar = HapticPattern(
        events: [
            HapticEvent(eventType: .hapticTransient, parameters: [.init(parameterID: .hapticIntensity, value: 1)], relativeTime: 0),
            HapticEvent(eventType: .hapticTransient, parameters: [.init(parameterID: .hapticSharpness, value: 0.2)], relativeTime: 0.12),
            HapticEvent(
                eventType: .hapticContinuous, parameters: [.init(parameterID: .hapticIntensity, value: 0.7)], relativeTime: 0.25,
                duration: 0.3),
            HapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0.7),
        ], parameters: [],
        parameterCurves: [
            HapticParameterCurve(
                parameterID: .hapticIntensityControl,
                controlPoints: [.init(relativeTime: 0, value: 0.4), .init(relativeTime: 0.3, value: 1)], relativeTime: 0.25)
        ])

    private func residentBytes() -> Int? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }

    func testMinutesOfPlaybackWithFaultsLoseNoEventAndStayBounded() throws {
        let plan = try FaultPlan(parsing: "loss=0.02,corrupt=0.02,dup=0.01,reorder=0.01,seed=11")
        let baseline = try soak(FaultPlan())
        let faulty = try soak(plan)
        // The faults cost no segment: as many start on time as without them (the fault-free run
        // trims one segment per bar by itself, a behaviour of the engine noted for its owner).
        XCTAssertEqual(faulty.segments_dropped, baseline.segments_dropped)
        XCTAssertEqual(faulty.segments_trimmed, baseline.segments_trimmed)
        XCTAssertEqual(faulty.segments_played, baseline.segments_played)
        XCTAssertEqual(faulty.watchdog_stops, 0)
    }

    /// Plays the bars with `plan`'s faults, asserts the invariants, returns the firmware's counters.
    private func soak(_ plan: FaultPlan) throws -> thrum_fw_stats_t {
        let rig = VirtualRig(link: FaultyLink(base: FixedLatencyLink(latency: 1_000), plan: plan))
        let engine = rig.makeEngine()
        try engine.start()
        var stops: [HapticEngine.StoppedReason] = []
        engine.stoppedHandler = { stops.append($0) }

        let bars = max(4, Int(Self.minutes * 60))  // one bar a second
        var players: [any HapticPatternPlayer] = []
        var starts: [Double] = []
        var memoryAfterWarmUp: Int?
        var memoryAtEnd: Int?
        for k in 0..<bars {
            let player = try engine.makePlayer(with: Self.bar)
            let t0 = engine.currentTime + 0.1
            try player.start(atTime: t0)
            players.append(player)
            starts.append(t0)
            engine.run(for: 1)
            if k == bars / 4 { memoryAfterWarmUp = residentBytes() }
        }
        XCTAssertTrue(engine.runUntilPlayersFinished(timeout: 5))
        memoryAtEnd = residentBytes()
        XCTAssertEqual(stops, [], "the engine kept running")

        // No lost event: every event of every bar is there, in order; the ones the host heard of
        // are on time; the device started every segment on time.
        var heard = 0
        for (player, t0) in zip(players, starts) {
            let onsets = engine.onsets(for: player)
            XCTAssertEqual(onsets.map(\.patternIndex), [0, 1, 2, 3])
            for (onset, event) in zip(onsets, Self.bar.events) {
                XCTAssertEqual(onset.requestedTime, t0 + event.relativeTime, accuracy: 1e-6)
                guard let time = onset.onsetTime else {
                    XCTAssertEqual(onset.status, .notReported)
                    continue
                }
                heard += 1
                XCTAssertEqual(time, onset.requestedTime, accuracy: 500e-6)
            }
        }
        let events = bars * 4
        XCTAssertGreaterThanOrEqual(Double(heard), 0.9 * Double(events), "most onset reports arrive")
        let fw = rig.device.firmwareStatistics
        XCTAssertEqual(fw.segments_dropped, 0)
        XCTAssertEqual(fw.watchdog_stops, 0)
        guard plan.affectsLink else { return fw }

        // Counters that add up: what the host wrote is what the pump carried; every chunk the
        // link lost or corrupted shows on the other side as a retransmission or a refused frame.
        let link = rig.session.link.statistics
        XCTAssertEqual(link.bytesSent, rig.pump.hostBytesWritten)
        let faults = try XCTUnwrap(rig.pump.link as? FaultyLink<FixedLatencyLink>).counts
        XCTAssertGreaterThan(faults.lost + faults.corrupted, 0)
        XCTAssertGreaterThan(link.retransmissions, 0, "losses were repaired by retransmission")
        XCTAssertLessThanOrEqual(link.retransmissions, link.framesSent)
        XCTAssertGreaterThan(Int(fw.bad_frames) + link.badFrames, 0, "corruption was caught by the CRC")

        // Memory: after the warm-up quarter, the rest of the run adds little (the engine keeps one
        // onset record per event by design: a few hundred bytes each).
        if let a = memoryAfterWarmUp, let b = memoryAtEnd {
            let allowance = 16 << 20 + events * 2_048
            XCTAssertLessThan(b - a, allowance, "resident memory grew by \((b - a) >> 20) MB")
        }
        return fw
    }
}
