import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumTestSupport
import ThrumTime
import XCTest

/// Dynamic parameters, handlers, muting, transport failure and prepare.
final class EngineBehaviourTests: XCTestCase {
    let long = HapticPattern(events: [continuous(0, duration: 1)], parameters: [], parameterCurves: [])

    func testSendParametersHalvesTheDriveWithinOneLeadTime() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: long)
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        rig.engine.run(until: t0 + 0.3)
        let call = rig.now
        try player.sendParameters(
            [HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)], atTime: HapticTimeImmediate)
        rig.engine.run(until: t0 + 0.8)
        let lead = rig.engine.leadTime.seconds + rig.engine.configuration.chunk.seconds
        XCTAssertEqual(rig.peakRTP(from: t0 + 0.1, to: call), 255)
        let change = try XCTUnwrap(rig.rtpWrites(from: call, to: call + 1).first { $0.1 == 128 })
        XCTAssertLessThanOrEqual(change.0 - call, lead + 0.001, "the change took \(change.0 - call) s")
        XCTAssertEqual(Set(rig.rtpWrites(from: change.0, to: t0 + 0.8).map(\.1)), [128])
    }

    func testSendParametersAtAFutureTimeIsExact() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: long)
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        try player.sendParameters(
            [HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0.1)], atTime: t0 + 0.4)
        rig.engine.run(until: t0 + 0.8)
        let change = try XCTUnwrap(rig.rtpWrites(from: t0, to: t0 + 1).first { $0.1 == 128 })
        XCTAssertEqual(change.0, t0 + 0.5, accuracy: 0.0006)
    }

    func testScheduleParameterCurveRampsTheDrive() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: long)
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        let curve = HapticParameterCurve(
            parameterID: .hapticIntensityControl,
            controlPoints: [.init(relativeTime: 0, value: 1), .init(relativeTime: 0.4, value: 0)], relativeTime: 99)
        try player.scheduleParameterCurve(curve, atTime: t0 + 0.2)  // the curve's own time is replaced
        rig.engine.run(until: t0 + 1.1)
        func rtp(at t: Double) -> Double {
            Double(rig.rtpWrites(from: t0, to: t + 1e-6).last?.1 ?? 0)
        }
        XCTAssertEqual(rtp(at: t0 + 0.19), 255)
        XCTAssertEqual(rtp(at: t0 + 0.3), 255 * 0.75, accuracy: 4)
        XCTAssertEqual(rtp(at: t0 + 0.4), 255 * 0.5, accuracy: 4)
        XCTAssertEqual(rtp(at: t0 + 0.5), 255 * 0.25, accuracy: 4)
        XCTAssertEqual(rig.peakRTP(from: t0 + 0.61, to: t0 + 1.1), 0)
    }

    func testCompletionHandlerAndNotifyWhenPlayersFinished() throws {
        let rig = EngineRig()
        try rig.engine.start()
        var reasons: [HapticEngine.StoppedReason] = []
        rig.engine.stoppedHandler = { reasons.append($0) }
        let a = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 2, interval: 0.1))
        let b = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 4, interval: 0.1))
        var log: [String] = []
        a.completionHandler = { error in log.append("a \(error == nil)") }
        b.completionHandler = { error in log.append("b \(error == nil)") }
        try a.start(atTime: 0)
        try b.start(atTime: 0)
        rig.engine.notifyWhenPlayersFinished { error in
            log.append("all \(error == nil)")
            return .stopEngine
        }
        rig.engine.run(for: 1)
        XCTAssertEqual(log, ["a true", "b true", "all true"])
        XCTAssertEqual(reasons, [.notifyWhenPlayersFinished])
        XCTAssertFalse(rig.engine.isRunning)
        // With no player, the handler runs at once; leaving the engine running.
        try rig.engine.start()
        var called = 0
        rig.engine.notifyWhenPlayersFinished { _ in
            called += 1
            return .leaveEngineRunning
        }
        rig.engine.run(for: 0.01)
        XCTAssertEqual(called, 1)
        XCTAssertTrue(rig.engine.isRunning)
    }

    func testStoppedHandlerOnTransportFailure() throws {
        let rig = EngineRig()
        try rig.engine.start()
        var reasons: [HapticEngine.StoppedReason] = []
        rig.engine.stoppedHandler = { reasons.append($0) }
        let player = try rig.engine.makeAdvancedPlayer(with: HapticPattern(events: [continuous(0, duration: 20)], parameters: [], parameterCurves: []))
        var completionError: Error?
        player.completionHandler = { completionError = $0 }
        try player.start(atTime: 0)
        rig.engine.run(for: 0.2)
        rig.link.cutAt = rig.pump.trueTime  // unplugged
        rig.engine.run(for: 15)
        XCTAssertEqual(reasons, [.deviceDisconnected])
        XCTAssertFalse(rig.engine.isRunning)
        XCTAssertEqual((completionError as? HapticError)?.code, .serverInterrupted)
        XCTAssertThrowsError(try player.start(atTime: 0)) { XCTAssertEqual(($0 as? HapticError)?.code, .engineNotRunning) }
    }

    func testMutedPlayerAndMutedEngineDriveNothingButStillComplete() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 3, interval: 0.1))
        var done = false
        player.completionHandler = { _ in done = true }
        player.isMuted = true
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        XCTAssertTrue(done)
        XCTAssertEqual(rig.peakRTP(from: t0 - 0.05, to: rig.now), 0)

        player.isMuted = false
        rig.engine.isMutedForHaptics = true
        let t1 = rig.now + 0.1
        try player.start(atTime: t1)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        XCTAssertEqual(rig.peakRTP(from: t1 - 0.05, to: rig.now), 0)

        rig.engine.isMutedForHaptics = false
        let t2 = rig.now + 0.1
        try player.start(atTime: t2)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        XCTAssertGreaterThan(rig.peakRTP(from: t2 - 0.05, to: rig.now), 200)
    }

    func testPrepareConnectsAndLapsesAfterTheIdleTimeout() throws {
        var configuration = HapticEngine.Configuration()
        configuration.preparedTimeout = .seconds(2)
        let rig = EngineRig(configuration: configuration)
        XCTAssertFalse(rig.engine.isPrepared)
        try rig.engine.prepare()
        XCTAssertTrue(rig.engine.isRunning)
        XCTAssertTrue(rig.engine.isPrepared)
        XCTAssertNotNil(rig.session.identity)
        XCTAssertGreaterThanOrEqual(rig.session.link.clock.sampleCount, 8)
        XCTAssertEqual(rig.engine.capabilities?.preload, true, "the device sent CAPABILITIES: PRELOAD + GO")
        rig.engine.run(for: 1.5)
        XCTAssertTrue(rig.engine.isPrepared)
        // Playing keeps it prepared; the timeout counts from the end of playback.
        let player = try rig.engine.makePlayer(with: long)
        try player.start(atTime: 0)
        rig.engine.run(for: 0.9)
        XCTAssertTrue(rig.engine.isPrepared)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 1, ringDown: 0))
        let end = rig.now
        rig.engine.run(until: end + 1.9)
        XCTAssertTrue(rig.engine.isPrepared)
        rig.engine.run(until: end + 2.1)
        XCTAssertFalse(rig.engine.isPrepared)
        XCTAssertTrue(rig.engine.isRunning, "a lapse only leaves the ready state")
    }
}

extension EngineBehaviourTests {
    /// Drive bursts (start, length) from the RTP writes in [from, to).
    func bursts(_ rig: EngineRig, from: Double, to: Double) -> [(start: Double, length: Double)] {
        var out: [(Double, Double)] = []
        var start: Double?
        for (t, v) in rig.rtpWrites(from: from, to: to) {
            if v > 0, start == nil { start = t }
            if v == 0, let s = start {
                out.append((s, t - s))
                start = nil
            }
        }
        return out
    }

    func testSharpnessControlLengthensTransientsFromItsTime() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: metronome(beats: 3, interval: 0.3))
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        try player.sendParameters(
            [HapticDynamicParameter(parameterID: .hapticSharpnessControl, value: -0.8, relativeTime: 0)], atTime: t0 + 0.2)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        let b = bursts(rig, from: t0 - 0.05, to: rig.now)
        XCTAssertEqual(b.count, 3)
        // Sharpness 0.8 → 2.8 cycles at 175 Hz (16 ms); 0.8 − 0.8 = 0 → 6 cycles (34 ms): the
        // bursts the compiler drives for those (each held longer by its pre-shift less the fall's
        // felt delay, docs/semantics.md §7).
        func compiledBurst(sharpness: Float) -> Double {
            let program = PatternCompiler(profile: rig.profile).compile(TestPatterns.metronome(beats: 1, interval: 1, sharpness: sharpness))
            let on = program.segments.filter { $0.from != 0 || $0.to != 0 }
            return Double(on.last!.end - on.first!.start) * 1e-6
        }
        XCTAssertGreaterThan(compiledBurst(sharpness: 0), compiledBurst(sharpness: 0.8) + 0.015)
        XCTAssertEqual(b[0].length, compiledBurst(sharpness: 0.8), accuracy: 0.002)
        XCTAssertEqual(b[1].length, compiledBurst(sharpness: 0), accuracy: 0.002)
        XCTAssertEqual(b[2].length, compiledBurst(sharpness: 0), accuracy: 0.002)
        let onsets = rig.engine.onsets(for: player)
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 1, 2])
        for (k, o) in onsets.enumerated() {
            XCTAssertEqual(try XCTUnwrap(rig.trueOnset(o)), t0 + 0.3 * Double(k), accuracy: 200e-6)
        }
    }
}
