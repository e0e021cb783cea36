import ThrumCompiler
@testable import ThrumEngine
import ThrumHarness
@testable import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// The engine's public surface for tools (HapticEngine+Observation.swift, OnsetStream.swift,
/// EngineHealth.swift), in virtual time, judged against the virtual device: the chip's trace for
/// the onsets, the simulated crystal and firmware for the link's figures.
final class EngineSurfaceTests: XCTestCase {
    /// A rig whose device crystal runs 150 ppm fast and whose 32-bit clock wraps 0.3 s in.
    private func makeRig() -> VirtualRig {
        VirtualRig(profile: .default, crystalErrorPPM: 150, clockStart: UInt32.max - 300_000, link: FixedLatencyLink(latency: 1_000))
    }

    /// Engines that skip the start's calibration (a buzz and a settle of 0.6 s or more of
    /// simulation), but for the test of the calibration state.
    private var quick: HapticEngine.Configuration {
        var configuration = HapticEngine.Configuration()
        configuration.calibrateOnStart = false
        return configuration
    }

    private let beats = TestPatterns.metronome(beats: 6, interval: 0.08)

    /// Plays `pattern` once on `engine` (virtual time) and waits for its reports.
    private func play(_ pattern: HapticPattern, on engine: HapticEngine) throws -> any HapticPatternPlayer {
        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: engine.currentTime + 0.1)
        engine.run(for: 0.1 + pattern.duration + 0.1)
        engine.waitForOnsetReports(of: player)
        return player
    }

    func testOnsetsArriveOnceInOrderAndMatchTheFinalRecordAndTheChip() throws {
        let rig = makeRig()
        let engine = rig.makeEngine(configuration: quick)
        try engine.start()
        var updates: [OnsetUpdate] = []
        let subscription = engine.observeOnsets { updates.append($0) }
        let player = try play(beats, on: engine)
        subscription.cancel()

        let final = engine.onsets(for: player)
        XCTAssertEqual(final.count, 6)
        XCTAssertEqual(updates.count, 6, "each reported onset arrives once")
        XCTAssertTrue(updates.allSatisfy { $0.kind == .reported })
        XCTAssertEqual(Set(updates.map(\.id)).count, updates.count)
        // As they arrive: in the order the device started them, which is the pattern's.
        XCTAssertEqual(updates.map(\.eventIndex), Array(0..<6))
        let onsets = updates.compactMap(\.onsetTime)
        XCTAssertEqual(onsets, onsets.sorted())
        // Each is what the final record says.
        XCTAssertEqual(updates.map(\.record), final)
        for update in updates {
            XCTAssertEqual(update.status, .onTime)
            XCTAssertEqual(update.playerID, player.playerID)
            let bound = try XCTUnwrap(update.onsetBound)
            let reported = try XCTUnwrap(update.onsetTime)
            // The chip's own first drive write for the event lies within the reported bound.
            let truth = try XCTUnwrap(rig.trueOnset(of: update.record), "the chip drove event \(update.eventIndex)")
            XCTAssertLessThanOrEqual(abs(truth - reported), bound + 1e-6, "event \(update.eventIndex)")
            XCTAssertEqual(update.requestedTime, final[update.eventIndex].requestedTime)
        }
    }

    /// A clock sample that contradicts the window makes the bounds already reported suspect: those
    /// onsets arrive again, as `.boundSuspect`, and the last update of each is its final record.
    func testAContradictingClockSampleSendsTheSuspectOnsetsAgain() throws {
        let rig = makeRig()
        let engine = rig.makeEngine(configuration: quick)
        try engine.start()
        var updates: [OnsetUpdate] = []
        let subscription = engine.observeOnsets { updates.append($0) }
        defer { subscription.cancel() }
        let player = try play(beats, on: engine)
        XCTAssertEqual(updates.count, 6)
        XCTAssertFalse(updates.contains { $0.boundSuspect })
        // A device stamp 1 ms later than the bracket allows (a stamp taken after its ACK left):
        // within the jump threshold, so a contradiction, not a restart.
        let now = HostTime(seconds: engine.currentTime)
        let sent = now - .milliseconds(2)
        let late = rig.session.link.clock.bounds(at: now).upperBound + .milliseconds(1)
        rig.session.link.clock.addSample(ClockSample(hostSend: sent, hostReceive: now, deviceReceive: late))
        XCTAssertEqual(rig.session.link.clock.contradictions, 1)
        engine.run(for: 0.002)

        let final = engine.onsets(for: player)
        let suspect = updates.filter { $0.kind == .boundSuspect }
        XCTAssertEqual(Set(suspect.map(\.id)).count, suspect.count, "each suspect onset once more")
        XCTAssertEqual(suspect.count, final.filter(\.boundSuspect).count)
        XCTAssertGreaterThan(suspect.count, 0, "the window's onsets became suspect")
        for update in suspect {
            XCTAssertTrue(update.boundSuspect)
            let first = try XCTUnwrap(updates.firstIndex { $0.id == update.id })
            XCTAssertEqual(updates[first].kind, .reported, "reported before it became suspect")
        }
        var last: [UInt32: OnsetRecord] = [:]
        for update in updates { last[update.id] = update.record }
        XCTAssertEqual(Set(last.values.map(\.patternIndex)), Set(final.map(\.patternIndex)))
        for record in final { XCTAssertEqual(last.values.first { $0.patternIndex == record.patternIndex }, record) }
    }

    func testASubscriptionLastsAcrossPlaysAndCancelStopsIt() throws {
        let rig = makeRig()
        let engine = rig.makeEngine(configuration: quick)
        try engine.start()
        let short = TestPatterns.metronome(beats: 3, interval: 0.05)
        var kept: [OnsetUpdate] = []
        var cancelledInHandler: [OnsetUpdate] = []
        let keep = engine.observeOnsets { kept.append($0) }
        var once: OnsetSubscription?
        once = engine.observeOnsets { update in
            cancelledInHandler.append(update)
            once?.cancel()
        }
        XCTAssertEqual(engine.device.locked { engine.device.onsetObservers.count }, 2)
        _ = try play(short, on: engine)
        XCTAssertEqual(cancelledInHandler.count, 1, "cancelled from its own delivery: that one was the last")
        XCTAssertEqual(engine.device.locked { engine.device.onsetObservers.count }, 1)
        // Stopped and started again, a second play: the kept subscription goes on.
        engine.stop()
        try engine.start()
        _ = try play(short, on: engine)
        XCTAssertEqual(kept.count, 6)
        XCTAssertEqual(kept.map(\.playerID).filter { $0 == kept[0].playerID }.count, 3, "three from each play")
        keep.cancel()
        keep.cancel()  // again: nothing
        _ = try play(short, on: engine)
        XCTAssertEqual(kept.count, 6, "nothing after cancel")
        XCTAssertEqual(engine.device.locked { engine.device.onsetObservers.count }, 0)
    }

    func testEachEngineSeesOnlyItsOwnOnsets() throws {
        let rig = makeRig()
        let a = rig.makeEngine(configuration: quick), b = rig.makeEngine()
        XCTAssertTrue(a.device === b.device)
        try a.start()
        try b.start()
        var seenByA: [OnsetUpdate] = [], seenByB: [OnsetUpdate] = []
        let sa = a.observeOnsets { seenByA.append($0) }
        let sb = b.observeOnsets { seenByB.append($0) }
        defer {
            sa.cancel()
            sb.cancel()
        }
        let pa = try a.makePlayer(with: beats)
        let pb = try b.makePlayer(with: HapticPattern(events: [TestPatterns.transient(at: 0.04)], parameters: []))
        let start = a.currentTime + 0.1
        try pa.start(atTime: start)
        try pb.start(atTime: start)
        a.run(for: 0.7)
        a.waitForOnsetReports(of: pa)
        b.waitForOnsetReports(of: pb)
        XCTAssertEqual(seenByA.map(\.record), a.onsets)
        XCTAssertEqual(seenByB.map(\.record), b.onsets)
        XCTAssertEqual(seenByA.count, 6)
        XCTAssertEqual(seenByB.count, 1)
        XCTAssertTrue(seenByA.allSatisfy { $0.playerID == pa.playerID })
    }

    func testAROMEffectArrivesWithTheIdPlayROMEffectReturned() throws {
        let rig = makeRig()
        let engine = rig.makeEngine(configuration: quick)
        try engine.start()
        var updates: [OnsetUpdate] = []
        let subscription = engine.observeOnsets { updates.append($0) }
        defer { subscription.cancel() }
        let mark = try engine.playROMEffect(1, atTime: engine.currentTime + 0.1)
        engine.run(for: 0.5)
        XCTAssertEqual(updates.map(\.id), [mark])
        XCTAssertEqual(updates.first?.record, engine.onset(ofROMEffect: mark))
        XCTAssertEqual(updates.first?.record.romEffect, 1)
    }

    func testTheAsyncSequenceDeliversAndEndsWhenItsTaskIsCancelled() async throws {
        let rig = makeRig()
        let engine = rig.makeEngine(configuration: quick)
        try engine.start()
        let updates = engine.onsetUpdates()
        XCTAssertEqual(engine.device.locked { engine.device.onsetObservers.count }, 1)
        let player = try play(beats, on: engine)
        // Buffered while nobody iterated: the first six are the play's.
        var received: [OnsetUpdate] = []
        for await update in updates {
            received.append(update)
            if received.count == 6 { break }
        }
        XCTAssertEqual(received.map(\.record), engine.onsets(for: player))
        // A consumer task that is cancelled ends the sequence and the subscription with it.
        let more = engine.onsetUpdates()
        let consumer = Task { () -> Int in
            var n = 0
            for await _ in more { n += 1 }
            return n
        }
        consumer.cancel()
        let counted = await consumer.value
        XCTAssertEqual(counted, 0)
        let remaining = engine.device.locked { engine.device.onsetObservers.count }
        XCTAssertEqual(remaining, 1, "the cancelled consumer's subscription is gone; the first one stays")
        withExtendedLifetime(updates) {}
    }

    func testLinkHealthAgreesWithTheVirtualDevice() throws {
        let rig = makeRig()
        let engine = rig.makeEngine(configuration: quick)
        try engine.start()
        let player = try engine.makePlayer(with: TestPatterns.metronome(beats: 20, interval: 0.05))
        try player.start(atTime: engine.currentTime + 0.05)
        engine.run(for: 0.5)
        let health = engine.linkHealth
        let truth = rig.device

        XCTAssertTrue(health.isConnected)
        XCTAssertEqual(health.hostTime.seconds, engine.currentTime, accuracy: 1e-9)
        // The link takes 1 ms each way: the round trip is at least 2 ms, plus the device's handling.
        XCTAssertGreaterThanOrEqual(health.roundTrip, .milliseconds(2))
        XCTAssertLessThan(health.roundTrip, .milliseconds(5))
        // The clock model's device time against the device's own clock, across its 32-bit wrap.
        let trueClock = truth.deviceClock(atTrueTime: UInt64(health.hostTime.nanoseconds / 1_000))
        let error = Int64(Int32(bitPattern: health.deviceTime.wire.rawValue &- trueClock))
        XCTAssertLessThanOrEqual(abs(error), max(health.clockBound.nanoseconds / 1_000, 0) + 2, "device time error \(error) µs")
        XCTAssertGreaterThan(health.deviceTime.microseconds, Int64(UInt32.max), "extended past the wrap")
        // The simulated crystal runs 150 ppm fast; the drift bounds hold it.
        let bounds = try XCTUnwrap(health.driftBoundsPPM)
        XCTAssertTrue(bounds.contains(150), "drift bounds \(bounds)")
        XCTAssertEqual(health.driftPPM, 150, accuracy: 20)
        XCTAssertTrue(health.clockConverged)
        XCTAssertGreaterThan(health.clockSamples, 8)
        // The queue as the host knows it: never emptier than the firmware's own (the host counts
        // what is on the way too), never more than the device holds.
        let slots = Int(try XCTUnwrap(engine.deviceStatus.identity).queueSlots)
        XCTAssertEqual(health.queueSlots, slots)
        let depth = try XCTUnwrap(health.queueDepth)
        XCTAssertLessThanOrEqual(depth, slots)
        XCTAssertGreaterThanOrEqual(depth, slots - truth.freeSlots)
        XCTAssertGreaterThan(depth, 0, "drive is queued while the metronome plays")
        let ahead = try XCTUnwrap(health.queuedAhead)
        XCTAssertGreaterThanOrEqual(ahead, engine.leadTime - .milliseconds(1))
        XCTAssertEqual(health.leadTime, engine.leadTime)
        // Every frame the host counted was sent; none was bad on a clean link.
        XCTAssertGreaterThan(health.statistics.framesSent, 0)
        XCTAssertEqual(health.statistics.badFrames, 0)
        XCTAssertEqual(health.faults, [])
        XCTAssertEqual(health.clockOffset, .microseconds(health.deviceTime.microseconds) - (health.hostTime - .zero))
    }

    func testDeviceStatusIsWhatTheDeviceIs() throws {
        let rig = makeRig()
        let engine = rig.makeEngine()
        XCTAssertNil(engine.deviceStatus.identity, "not connected yet")
        try engine.start()
        let status = engine.deviceStatus
        let identity = try XCTUnwrap(status.identity)
        XCTAssertEqual(identity.deviceId, rig.device.configuration.board.deviceID)
        XCTAssertEqual(status.capabilities, engine.capabilities)
        XCTAssertEqual(status.calibrationResult, engine.calibrationResult)
        // A fresh device said at connect (CAPABILITIES) that its driver held no calibration; the
        // engine then calibrated in start(), and the words of that passed result are kept.
        XCTAssertTrue(status.driverCalibration == .some(.none), "\(String(describing: status.driverCalibration))")
        XCTAssertFalse(status.calibratedSinceReset)
        XCTAssertEqual(status.calibrationResult?.passed, true)
        XCTAssertEqual(status.keptCalibration, status.calibrationResult?.words)
        XCTAssertEqual(status.powerState, .ready, "STATE ready after the calibration")
        XCTAssertEqual(status.faults, [])
        XCTAssertEqual(status, rig.session.status, "the engine's is its session's")
    }

    func testExchangeMovesTheLinkWithoutDrive() throws {
        let rig = makeRig()
        let engine = rig.makeEngine(configuration: quick)
        try engine.start()
        let player = try engine.makePlayer(with: beats)
        try player.start(atTime: engine.currentTime + 0.05)
        engine.run(for: 0.1)
        engine.stop()
        let before = engine.linkHealth.statistics
        let segments = engine.segmentsSent
        let t0 = engine.currentTime
        engine.exchange(for: .milliseconds(30))
        XCTAssertEqual(engine.currentTime - t0, 0.03, accuracy: 1e-6)
        XCTAssertEqual(engine.segmentsSent, segments, "no drive rendered or sent")
        let after = engine.linkHealth.statistics
        XCTAssertGreaterThanOrEqual(after.framesReceived, before.framesReceived)
        // Nothing drove the chip after the STOP's instant plus the link's delay.
        XCTAssertEqual(
            rig.device.chip.trace.samples(from: UInt64((t0 + 0.005) * 1e6), to: UInt64(engine.currentTime * 1e6)).map(\.rtpInput).max() ?? 0, 0)
    }
}
