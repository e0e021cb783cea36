import ThrumEngine
import ThrumTime
import ThrumPattern
import XCTest

/// Start, stop and cancel against the virtual device's onset reports and chip trace.
final class PlayerStartStopTests: XCTestCase {
    func testStartAtATimeLandsEveryOnsetOnTime() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: metronome(beats: 4, interval: 0.1))
        let t0 = rig.now + 0.2
        try player.start(atTime: t0)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        let onsets = rig.engine.onsets(for: player)
        XCTAssertEqual(onsets.map(\.patternIndex), [0, 1, 2, 3])
        for (k, onset) in onsets.enumerated() {
            XCTAssertEqual(onset.requestedTime, t0 + 0.1 * Double(k), accuracy: 1e-6)
            XCTAssertEqual(onset.status, .onTime)
            XCTAssertEqual(try XCTUnwrap(rig.trueOnset(onset)), onset.requestedTime, accuracy: 200e-6)
        }
        // The actuator moves at each beat and not before the first.
        XCTAssertLessThan(rig.peakG(from: t0 - 0.1, to: t0 - 0.015), 0.01)
        for k in 0..<4 { XCTAssertGreaterThan(rig.peakG(from: t0 + 0.1 * Double(k), to: t0 + 0.1 * Double(k) + 0.03), 0.1) }
        XCTAssertEqual(rig.device.firmwareStatistics.bad_frames, 0)
    }
}

extension PlayerStartStopTests {
    func testStopAtATimeCutsTheDriveAndCompletes() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: HapticPattern(events: [continuous(0, duration: 1)], parameters: [], parameterCurves: []))
        var completions: [Double] = []
        player.completionHandler = { error in
            XCTAssertNil(error)
            completions.append(rig.now)
        }
        let t0 = rig.now + 0.1
        try player.start(atTime: t0)
        try player.stop(atTime: t0 + 0.3)
        rig.engine.run(until: t0 + 0.6)
        XCTAssertEqual(rig.peakRTP(from: t0 + 0.05, to: t0 + 0.28), 255)
        XCTAssertEqual(rig.peakRTP(from: t0 + 0.302, to: t0 + 0.6), 0)
        XCTAssertEqual(completions.count, 1)
        XCTAssertEqual(completions[0], t0 + 0.3, accuracy: 0.002)
    }

    func testImmediateStopSilencesAtOnceOverTheAnyLane() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: HapticPattern(events: [continuous(0, duration: 1)], parameters: [], parameterCurves: []))
        try player.start(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.3)
        XCTAssertEqual(rig.peakRTP(from: rig.now - 0.05, to: rig.now), 255)
        let stopCall = rig.now
        try player.stop(atTime: HapticTimeImmediate)
        rig.engine.run(for: 0.3)
        let zero = try XCTUnwrap(rig.rtpWrites(from: stopCall, to: stopCall + 1).first { $0.1 == 0 })
        XCTAssertLessThan(zero.0 - stopCall, 0.003, "STOP took \(zero.0 - stopCall) s")
        XCTAssertEqual(rig.peakRTP(from: stopCall + 0.003, to: rig.now), 0)
    }

    func testCancelStopsOnePlayerAndTheOtherResumes() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let a = try rig.engine.makePlayer(with: HapticPattern(events: [continuous(0, duration: 1, intensity: 0.5)], parameters: [], parameterCurves: []))
        let b = try rig.engine.makePlayer(with: HapticPattern(events: [continuous(0, duration: 1, intensity: 0.5)], parameters: [], parameterCurves: []))
        let t0 = rig.now + 0.1
        try a.start(atTime: t0)
        try b.start(atTime: t0)
        rig.engine.run(until: t0 + 0.3)
        // Soft sum across players: 1 − (1 − ½)(1 − ½) = ¾ → 191 (192: the mix of two quantised 128s).
        XCTAssertEqual(Double(rig.peakRTP(from: t0 + 0.1, to: t0 + 0.3)), 191, accuracy: 1)
        let cancelCall = rig.now
        try a.cancel()
        rig.engine.run(for: 0.2)
        XCTAssertEqual(try XCTUnwrap(rig.rtpWrites(from: cancelCall, to: cancelCall + 0.1).first).1, 0, "STOP first")
        let writes = rig.rtpWrites(from: cancelCall + 0.02, to: cancelCall + 0.2).map(\.1)
        XCTAssertEqual(Set(writes), [128], "player b alone after the cancel")
        XCTAssertEqual(rig.peakRTP(from: cancelCall + 0.02, to: cancelCall + 0.2), 128)
    }

    func testErrorsUseCoreHapticsCodes() throws {
        let rig = EngineRig()
        let player = try rig.engine.makePlayer(with: metronome())
        XCTAssertThrowsError(try player.start(atTime: 0)) { error in
            XCTAssertEqual((error as? HapticError)?.code, .engineNotRunning)
        }
        try rig.engine.start()
        XCTAssertThrowsError(try player.start(atTime: -1)) { error in
            XCTAssertEqual((error as? HapticError)?.code, .invalidTime)
        }
        XCTAssertThrowsError(
            try player.sendParameters([HapticDynamicParameter(parameterID: .init(rawValue: "Bogus"), value: 1, relativeTime: 0)], atTime: 0)
        ) { error in
            XCTAssertEqual((error as? HapticError)?.code, .invalidParameterType)
        }
    }

    func testAutoShutdownRestartsOnStart() throws {
        var configuration = HapticEngine.Configuration()
        configuration.autoShutdownTimeout = .seconds(2)
        let rig = EngineRig(configuration: configuration)
        rig.engine.isAutoShutdownEnabled = true
        var reasons: [HapticEngine.StoppedReason] = []
        rig.engine.stoppedHandler = { reasons.append($0) }
        let player = try rig.engine.makePlayer(with: metronome(beats: 1))
        try player.start(atTime: 0)  // starts the engine by itself
        XCTAssertTrue(rig.engine.isRunning)
        rig.engine.run(for: 1.5)
        XCTAssertEqual(reasons, [])
        rig.engine.run(for: 1)
        XCTAssertEqual(reasons, [.idleTimeout])
        XCTAssertFalse(rig.engine.isRunning)
        try player.start(atTime: 0)
        XCTAssertTrue(rig.engine.isRunning)
    }
}

extension PlayerStartStopTests {
    func testAStartInsideDriveAlreadySentRewindsAndKeepsTheOtherPlayerOnTime() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let a = try rig.engine.makePlayer(with: metronome(beats: 6, interval: 0.05))
        let t0 = rig.now + 0.1
        try a.start(atTime: t0)
        rig.engine.run(until: t0 + 0.06)
        // 30 ms from now is inside the 60 ms already sent: STOP, then both re-rendered.
        let b = try rig.engine.makePlayer(with: HapticPattern(events: [transient(0, intensity: 0.5)], parameters: [], parameterCurves: []))
        let tb = rig.now + 0.03
        try b.start(atTime: tb)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        let onsetsA = rig.engine.onsets(for: a)
        XCTAssertEqual(onsetsA.map(\.patternIndex), [0, 1, 2, 3, 4, 5])
        for (k, o) in onsetsA.enumerated() {
            XCTAssertEqual(o.status, .onTime, "beat \(k)")
            XCTAssertEqual(try XCTUnwrap(rig.trueOnset(o)), t0 + 0.05 * Double(k), accuracy: 200e-6)
        }
        let onsetB = try XCTUnwrap(rig.engine.onsets(for: b).first.flatMap { rig.trueOnset($0) })
        XCTAssertEqual(onsetB, tb, accuracy: 200e-6)
    }
}
