import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import XCTest

/// The whole stack in one process and in virtual time: compiler, engine, link session, link
/// model, and the real C firmware driving the DRV2605L and LRA models.
final class VirtualTimePlaybackTests: XCTestCase {
    func metronome(beats: Int = 8, interval: Double = 0.25) -> HapticPattern {
        TestPatterns.metronome(beats: beats, interval: interval)
    }

    func testEveryEventIsReportedOnTime() throws {
        let rig = VirtualRig()
        let report = try rig.play(metronome())
        XCTAssertEqual(report.events.count, 8)
        for event in report.events {
            let truth = try XCTUnwrap(event.trueOnsetTime, "the chip never started event \(event.id)")
            XCTAssertEqual(truth, event.requestedTime, accuracy: 200e-6)
            let onset = try XCTUnwrap(event.onsetTime), bound = try XCTUnwrap(event.onsetBound)
            XCTAssertLessThanOrEqual(abs(truth - onset), bound + 1e-6, "the reported bound misses the truth")
            XCTAssertEqual(event.status, .onTime)
        }
        XCTAssertGreaterThan(report.bytesSent, 0)
        XCTAssertEqual(rig.device.firmwareStatistics.bad_frames, 0)
    }

    func testTheActuatorMovesAtEachEventAndRestsBetween() throws {
        let rig = VirtualRig()
        let report = try rig.play(metronome(beats: 4, interval: 0.3))
        let start = rig.trueStartTime(of: report)
        let samples = rig.device.chip.trace.samples
        func peak(from: Double, to: Double) -> Double {
            samples.filter { Double($0.time) >= start + from * 1e6 && Double($0.time) < start + to * 1e6 }
                .map { $0.accelerationEnvelopeG }.max() ?? 0
        }
        let overall = peak(from: -0.05, to: 1.2)
        XCTAssertGreaterThan(overall, 0.05, "the actuator barely moved")
        XCTAssertLessThan(peak(from: -0.05, to: -0.01), overall * 0.05, "the actuator moved before the first event")
        for k in 0..<4 {
            let t = 0.3 * Double(k)
            XCTAssertGreaterThan(peak(from: t, to: t + 0.04), overall * 0.5, "no pulse after the event at \(t) s")
            XCTAssertLessThan(peak(from: t + 0.2, to: t + 0.28), overall * 0.1, "still ringing 200 ms after \(t) s")
        }
    }

    func testCrystalDriftAndClockWrapDoNotMoveOnsets() throws {
        // The device clock starts 0.4 s before its 32-bit wrap and runs 100 ppm fast.
        let rig = VirtualRig(crystalErrorPPM: 100, clockStart: UInt32.max - 400_000)
        let report = try rig.play(metronome())
        for event in report.events {
            let truth = try XCTUnwrap(event.trueOnsetTime, "the chip never started event \(event.id)")
            XCTAssertEqual(truth, event.requestedTime, accuracy: 300e-6)
            let onset = try XCTUnwrap(event.onsetTime), bound = try XCTUnwrap(event.onsetBound)
            XCTAssertLessThanOrEqual(abs(truth - onset), bound + 1e-6, "the reported bound misses the truth")
        }
    }

    func testOverlappingTransientsEachGetAnOnset() throws {
        // Two transients 13 ms apart, as in Apple's Heartbeats sample.
        let pattern = HapticPattern(
            events: [0.0, 0.013, 0.22].map {
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 0.8)], relativeTime: $0)
            }, parameters: [], parameterCurves: [])
        let report = try VirtualRig().play(pattern)
        XCTAssertEqual(report.events.map { $0.onsetTime != nil }, [true, true, true])
        XCTAssertEqual(report.events.map { $0.trueOnsetTime != nil }, [true, true, true], "the chip started each")
    }

    func testLayeredEventsAtTheSameTimeMixAndEachGetsTheOnset() throws {
        // Three identical transients at one Time (valid AHAP, as layering tools write it).
        let pattern = HapticPattern(
            events: (0..<3).map { _ in
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 0.8)], relativeTime: 0.1)
            }, parameters: [], parameterCurves: [])
        let program = PatternCompiler(profile: .default).compile(pattern)
        XCTAssertEqual(program.segments.filter { $0.eventID != 0 }.count, 1, "one drive, one mark")
        XCTAssertEqual(program.events.compactMap(\.sharesOnsetWith), [1, 1])
        // Mixed as Core Haptics mixes: the soft sum of three 0.8s is 0.992 of full drive.
        XCTAssertEqual(Int(program.segments.map(\.to).max()!), Int((255 * (1 - 0.2 * 0.2 * 0.2)).rounded()), accuracy: 1)
        let rig = VirtualRig()
        let report = try rig.play(pattern)
        XCTAssertEqual(report.events.map(\.status), [.onTime, .onTime, .onTime], "nothing dropped or trimmed")
        let truths = try report.events.map { try XCTUnwrap($0.trueOnsetTime) }
        for t in truths { XCTAssertEqual(t, 0.1, accuracy: 200e-6) }
    }
}
