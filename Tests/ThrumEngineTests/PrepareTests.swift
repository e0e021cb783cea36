import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire
import XCTest

final class PrepareTests: XCTestCase {
    func testPreparedStartIsAGoAndLandsOnTime() throws {
        // Probing at the idle rate from the start: the bytes counted below are the GO's, not a
        // probe's (the first second after connecting pings every 2 ms).
        var session = DeviceSession.Configuration()
        session.link.denseProbing = .zero
        let rig = EngineRig(session: session)
        let engine = rig.engine
        let pattern = metronome(beats: 3, interval: 0.05)
        try engine.prepare(pattern)
        XCTAssertTrue(engine.isPrepared)
        XCTAssertTrue(engine.isPreloaded(pattern))
        engine.run(for: 0.1)
        let player = try engine.makePlayer(with: pattern)
        let bytesBefore = engine.counters.bytesSent
        let call = rig.device.now
        try player.start(atTime: HapticTimeImmediate)
        engine.run(for: 0.005)
        XCTAssertLessThan(engine.counters.bytesSent - bytesBefore, 20, "a GO is a few bytes")
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.05)
        XCTAssertEqual(engine.preparedStarts, 1)
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.count, 3)
        XCTAssertTrue(onsets.allSatisfy { $0.status == .onTime }, "\(onsets)")
        let drive = try XCTUnwrap(rig.device.chip.trace.driveOnset(after: call))
        let write = try XCTUnwrap(rig.rtpWrites(from: Double(call) / 1e6, to: 1e9).first).0
        // 1 ms link + 0.25 ms margin + the I²C write; the first non-zero drive comes one 500 µs RTP
        // update later because the transient's first ramp starts at 0.
        XCTAssertLessThan(write - Double(call) / 1e6, 1.5e-3, "call → segment start")
        XCTAssertLessThan(Double(drive - call) / 1e3, 2.1, "call → drive in ms")
        // Onsets land where they were asked for (reported drive onset + pre-shift = requested).
        for o in onsets { XCTAssertEqual(try XCTUnwrap(rig.trueOnset(o)), o.requestedTime, accuracy: 150e-6) }
        XCTAssertEqual(engine.segmentsSent, 0, "nothing streamed")
    }
}

final class PrepareLifecycleTests: XCTestCase {
    func testLapseReportsStandbyAndALaterStartStillPlays() throws {
        var configuration = HapticEngine.Configuration()
        configuration.preparedTimeout = .milliseconds(300)
        let rig = EngineRig(configuration: configuration)
        let engine = rig.engine
        let pattern = metronome(beats: 2, interval: 0.05)
        try engine.prepare(pattern)
        XCTAssertTrue(engine.isPrepared)
        XCTAssertNotEqual(engine.powerState, .standby)
        engine.run(for: 0.5)
        XCTAssertEqual(engine.powerState, .standby, "the device's idle timeout put the driver in standby and said so")
        XCTAssertFalse(engine.isPrepared)
        XCTAssertTrue(rig.device.chip.peek(DRV2605LRegister.mode.rawValue) & 0x40 != 0, "the chip is in standby")

        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.05)
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.count, 2)
        XCTAssertTrue(onsets.allSatisfy { $0.status == .onTime }, "re-woken start: \(onsets)")
        XCTAssertEqual(engine.preparedStarts, 1, "still a GO: WAKE rides in its frame")
        XCTAssertNotEqual(engine.powerState, .standby)
    }

    func testAPatternTooLargeForTheProgramStoreIsStreamed() throws {
        let rig = EngineRig()
        let engine = rig.engine
        // 80 transients compile to far more segments than the 64-segment store holds.
        let big = metronome(beats: 80, interval: 0.03)
        try engine.prepare(big)
        XCTAssertTrue(engine.isPrepared)
        XCTAssertFalse(engine.isPreloaded(big))
        XCTAssertTrue(rig.session.faults.isEmpty, "the host did not even try: \(rig.session.faults)")
        let player = try engine.makePlayer(with: big)
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 5)
        engine.run(for: 0.1)
        XCTAssertEqual(engine.preparedStarts, 0)
        XCTAssertGreaterThan(engine.segmentsSent, 64)
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.count, 80)
        XCTAssertTrue(onsets.allSatisfy { $0.status == .onTime })
    }

    func testAnotherPlayerStartedDuringAGoIsMixedAfterIt() throws {
        let rig = EngineRig()
        let engine = rig.engine
        let pattern = metronome(beats: 2, interval: 0.05)
        try engine.prepare(pattern)
        let a = try engine.makePlayer(with: pattern)
        try a.start(atTime: HapticTimeImmediate)
        let b = try engine.makePlayer(with: metronome(beats: 1))
        try b.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.1)
        XCTAssertEqual(engine.preparedStarts, 1)
        XCTAssertTrue(engine.onsets.allSatisfy { $0.status == .onTime }, "\(engine.onsets)")
        XCTAssertEqual(engine.onsets.count, 3)
        XCTAssertTrue(rig.session.faults.isEmpty, "\(rig.session.faults)")
    }

    func testFeedbackGeneratorsPrepareThenOccurWithAGo() throws {
        let rig = EngineRig()
        let engine = rig.engine
        let impact = ImpactFeedbackGenerator(style: .rigid, player: engine)
        let selection = SelectionFeedbackGenerator(player: engine)
        impact.prepare()
        selection.prepare()
        XCTAssertNil(impact.lastError)
        XCTAssertNil(selection.lastError)
        XCTAssertTrue(engine.isPrepared)
        engine.run(for: 0.05)
        impact.impactOccurred()
        engine.run(for: 0.2)
        selection.selectionChanged()
        engine.run(for: 0.2)
        XCTAssertNil(impact.lastError)
        XCTAssertEqual(engine.preparedStarts, 2, "both presets were preloaded (two slots)")
        XCTAssertFalse(engine.onsets.isEmpty)
        XCTAssertTrue(engine.onsets.allSatisfy { $0.status == .onTime }, "\(engine.onsets)")
        // An intensity other than the prepared one is a different pattern: streamed.
        impact.impactOccurred(intensity: 0.3)
        engine.run(for: 0.2)
        XCTAssertNil(impact.lastError)
        XCTAssertEqual(engine.preparedStarts, 2)
        XCTAssertTrue(engine.onsets.allSatisfy { $0.status == .onTime })
    }

    func testEngineWaitsForTheCalibrationBoardDefaultsTrigger() throws {
        // A board whose defaults differ from the profile's rated voltage: CONFIGURE_DRIVER makes the
        // device calibrate; the engine must not schedule into the calibration.
        let registers = DriverRegisters.derive(from: .default)
        let board = VirtualDevice.BoardDefaults(
            ratedVoltage: registers.ratedVoltage &+ 20, overdriveClamp: registers.overdriveClamp &+ 20,
            driveTime: registers.driveTime, openLoopPeriod: registers.openLoopPeriod)
        var configuration = VirtualDeviceFactory.configuration(for: .default)
        configuration.board = board
        let pump = SimulatedPump(
            device: VirtualDevice(configuration: configuration), clock: ManualClock(), link: FixedLatencyLink(latency: 1_000))
        let engine = HapticEngine(session: DeviceSession(pump: pump, endpointName: "a board with other defaults"), profile: .default)
        try engine.start()
        let result = try XCTUnwrap(engine.calibrationResult, "start() waited for CALIBRATION_RESULT")
        XCTAssertTrue(result.passed)
        XCTAssertEqual(engine.powerState, .ready)
        let player = try engine.makePlayer(with: metronome(beats: 2))
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.05)
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.first?.status, .onTime, "the first event is on time, not dropped: \(onsets)")
        XCTAssertTrue(onsets.allSatisfy { $0.status == .onTime })
    }

    func testExplicitCalibrate() throws {
        let rig = EngineRig()
        let engine = rig.engine
        try engine.start()
        let first = try XCTUnwrap(engine.calibrationResult, "start() calibrates the driver once per connection")
        XCTAssertTrue(first.passed)
        let result = try engine.calibrate()
        XCTAssertTrue(result.passed)
        XCTAssertNotNil(result.resonanceHz)
        XCTAssertEqual(engine.calibrationResult, result)
        // Playback still works after it.
        let player = try engine.makePlayer(with: metronome(beats: 1))
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.05)
        XCTAssertEqual(engine.onsets(for: player).first?.status, .onTime)
    }
}

final class ROMEffectEngineTests: XCTestCase {
    func testROMEffectRunsTheSequencerAndReportsItsOnset() throws {
        let rig = EngineRig()
        let engine = rig.engine
        try engine.start()
        var marks: [UInt32] = []
        var calls: [Double] = []
        for _ in 0..<3 {
            calls.append(engine.currentTime)
            marks.append(try engine.playROMEffect(1))
            engine.run(for: 0.15)
        }
        for (k, mark) in marks.enumerated() {
            let record = try XCTUnwrap(engine.onset(ofROMEffect: mark))
            XCTAssertEqual(record.romEffect, 1)
            XCTAssertEqual(record.status, .onTime, "\(record)")
            let onset = try XCTUnwrap(record.driveOnsetTime)
            XCTAssertGreaterThan(onset, calls[k])
            if k > 0 {
                // After the first report the ≈ 241 µs of register writes is learnt and scheduled early.
                XCTAssertEqual(onset, record.requestedTime, accuracy: 60e-6)
            }
        }
        XCTAssertGreaterThan(rig.session.romLatency.correction, .microseconds(200))
        XCTAssertLessThan(rig.session.romLatency.correction, .microseconds(300))
        let writes = rig.device.chip.trace.registerWrites
        let mode = DRV2605LRegister.mode.rawValue, go = DRV2605LRegister.go.rawValue
        let first = try XCTUnwrap(writes.firstIndex { $0.register == mode && $0.value == 0 }, "MODE = 0 (internal trigger)")
        XCTAssertTrue(writes[first...].contains { $0.register == DRV2605LRegister.waveformSequence1.rawValue && $0.value == 1 })
        let goWrite = try XCTUnwrap(writes[first...].firstIndex { $0.register == go && $0.value == 1 }, "GO")
        XCTAssertTrue(writes[goWrite...].contains { $0.register == mode && $0.value == 5 }, "back to RTP mode")
        XCTAssertGreaterThan(rig.peakG(from: calls[0], to: calls[0] + 0.12), 0.05, "the actuator moved")
        // Streaming still works after a ROM effect.
        let player = try engine.makePlayer(with: metronome(beats: 1))
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.05)
        XCTAssertEqual(engine.onsets(for: player).first?.status, .onTime)
    }

    /// A player started at once while a ROM effect plays starts after the effect (the placement's
    /// floor), not inside it: the chip drives the effect, then the transient. The transient is
    /// reported late by about 0.2 ms: the device leaves the sequencer (GO = 0, RTP mode) when the
    /// next entry is due, and those register writes come before its first drive (a firmware
    /// matter, docs/engine.md "Not yet").
    func testAnImmediateStartDuringAROMEffectStartsAfterIt() throws {
        let rig = EngineRig()
        let engine = rig.engine
        try engine.start()
        engine.run(for: 0.1)
        let mark = try engine.playROMEffect(1)
        let player = try engine.makePlayer(with: metronome(beats: 1))
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.05)
        let effect = try XCTUnwrap(engine.onset(ofROMEffect: mark))
        XCTAssertEqual(effect.status, .onTime, "\(effect)")
        let record = try XCTUnwrap(engine.onsets(for: player).first)
        XCTAssertTrue([.onTime, .lateTrimmed].contains(record.status), "\(record)")
        let truth = try XCTUnwrap(rig.trueOnset(record), "the chip drove the transient")
        XCTAssertLessThanOrEqual(truth - record.requestedTime, 0.5e-3, "late by the sequencer's exit at most")
        let length = try XCTUnwrap(ROMEffect.effect(id: 1)).envelope.duration
        XCTAssertGreaterThanOrEqual(truth, effect.requestedTime + length, "the transient follows the effect's length")
    }

    func testROMPresetThroughTheFeedbackPath() throws {
        let rig = EngineRig()
        try rig.engine.play(HapticRequest(presetName: "rom.47"))
        rig.engine.run(for: 0.2)
        XCTAssertEqual(rig.engine.onsets.last?.romEffect, 47)
        XCTAssertEqual(rig.engine.onsets.last?.status, .onTime)
        XCTAssertThrowsError(try rig.engine.playROMEffect(124)) { error in
            XCTAssertEqual((error as? HapticError)?.code, .invalidParameterType)
        }
    }
}

final class GoRefusedTests: XCTestCase {
    func testARefusedGoFallsBackToStreamingTheWholePattern() throws {
        let rig = EngineRig()
        let engine = rig.engine
        let pattern = metronome(beats: 3, interval: 0.05)
        try engine.prepare(pattern)
        XCTAssertTrue(engine.isPreloaded(pattern))
        // Behind the host's back, make every slot invalid (offsets that decrease): GO will be refused.
        for slot in UInt8(0)..<4 {
            rig.session.link.send(.preloadBegin(slot: slot))
            rig.session.link.send(.preloadSegment(PreloadSegmentCommand(offset: 100, duration: 10, from: 0, to: 0)))
            rig.session.link.send(.preloadSegment(PreloadSegmentCommand(offset: 50, duration: 10, from: 0, to: 0)))
        }
        engine.run(for: 0.02)
        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: HapticTimeImmediate)
        engine.runUntilPlayersFinished(timeout: 1)
        engine.run(for: 0.05)
        XCTAssertEqual(engine.preparedStarts, 1, "a GO was tried")
        XCTAssertTrue(rig.session.faults.contains { $0.code == ProtocolConstants.faultGoRejected })
        XCTAssertFalse(engine.isPreloaded(pattern), "the slot is forgotten")
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.count, 3, "\(onsets)")
        XCTAssertTrue(onsets.allSatisfy { $0.status == .onTime }, "streamed instead: \(onsets)")
        XCTAssertGreaterThan(engine.segmentsSent, 0)
    }
}
