import ThrumCompiler
@testable import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// Links with a long round trip (40–60 ms each way: a radio hop, a network bridge, a pty whose
/// smoothed round trip rose under load), in virtual time, judged on the simulated chip's trace.
/// Before, the lead was capped at 120 ms while a start waited two smoothed round trips
/// (`DevicePlacement.restartMargin`): on an 80 ms round trip `thrum play`'s start moved 34 ms
/// later, unreported beyond the requested times themselves, and the 200 ms queue left a host
/// that paused for a little over 90 ms a hole in the drive of its own making (it skipped
/// rendering up to one change lead from now, ≈ 100 ms there) with "the host fell behind its
/// queued lead" (docs/timing.md, "Lead, queue and changes").
final class LongRoundTripTests: XCTestCase {
    static let heartbeat = HapticPattern(
        events: [
            TestPatterns.transient(at: 0, intensity: 1, sharpness: 0.35), TestPatterns.transient(at: 0.16, intensity: 0.6, sharpness: 0.2),
            TestPatterns.transient(at: 0.8, intensity: 1, sharpness: 0.35), TestPatterns.transient(at: 0.96, intensity: 0.6, sharpness: 0.2),
        ], parameters: [], parameterCurves: [])

    /// Every event at its pattern time in the report and on the chip, inside its bound, on time,
    /// and no fault.
    private func assertPlayedAsAsked(_ report: PlaybackReport, _ pattern: HapticPattern, _ label: String) {
        XCTAssertEqual(report.faults.map(\.message), [], "\(label): faults")
        let haptic = report.events.filter(\.type.isHaptic)
        XCTAssertEqual(Set(haptic.map(\.patternIndex)), Set(pattern.events.indices), "\(label): every event listed")
        for e in haptic {
            let asked = pattern.events[e.patternIndex].relativeTime
            XCTAssertEqual(e.status, .onTime, "\(label), event \(e.patternIndex)")
            // The report's time is the pattern's: the start was not moved.
            XCTAssertEqual(e.requestedTime, asked, accuracy: 1e-6, "\(label), event \(e.patternIndex): requested at \(e.requestedTime) s")
            // The chip drove it there (its first non-zero write, the planned pre-shift before it).
            guard let truth = e.trueDriveOnsetTime else {
                XCTFail("\(label), event \(e.patternIndex): the chip did not drive it")
                continue
            }
            XCTAssertEqual(truth, asked - e.preShift, accuracy: 300e-6, "\(label), event \(e.patternIndex): drove \(((truth - asked + e.preShift) * 1e3)) ms off its time")
            if let onset = e.onsetTime, let bound = e.onsetBound, let trueOnset = e.trueOnsetTime {
                XCTAssertLessThanOrEqual(abs(onset - trueOnset), bound + 1e-6, "\(label), event \(e.patternIndex): the bound misses the truth")
            } else {
                XCTFail("\(label), event \(e.patternIndex): no reported onset")
            }
        }
    }

    /// An 80 ms round trip (`thrum sim --link out=40-40ms,back=40-40ms`): the heartbeat at its
    /// time, then a metronome through a 130 ms host stall (the queue covers it: nothing lost,
    /// nothing reported lost).
    func testAnEightyMillisecondRoundTripStartsOnTimeAndRidesOutAStall() throws {
        let rig = VirtualRig(link: try LinkSpec.link(parsing: "out=40ms,back=40ms"))
        try rig.connect(calibrate: false)
        let engine = try rig.engine()
        XCTAssertGreaterThanOrEqual(engine.leadTime, .milliseconds(180), "the lead covers two round trips and two chunks")
        assertPlayedAsAsked(try rig.playAsThrumPlayDoes(Self.heartbeat, advanced: true), Self.heartbeat, "heartbeat")
        let metronome = TestPatterns.metronome(beats: 25, interval: 0.02)
        let report = try rig.playAsThrumPlayDoes(metronome, advanced: true) { engine, start in
            engine.run(until: start + 0.15)
            rig.pump.stallHost(for: 130_000)
        }
        assertPlayedAsAsked(report, metronome, "metronome, 130 ms stall")

        // A rescheduled play (a rate change: a CUT and the drive placed again from there)
        // continues where the cut takes effect: the chip's drive of a continuous event has no
        // write of 0 between its first and its last drive.
        let long = HapticPattern(
            events: [TestPatterns.continuous(at: 0, duration: 0.8, intensity: 0.8)], parameters: [], parameterCurves: [])
        let player = try engine.makeAdvancedPlayer(with: long)
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        engine.run(until: start + 0.25)
        // The change takes effect one change lead (≈ 102 ms) from now, at its CUT (ChangeLeadTests).
        let effect = 0.25 + engine.changeLead.seconds
        player.playbackRate = 2
        engine.runUntilPlayersFinished(timeout: 3)
        engine.waitForOnsetReports(of: player)
        XCTAssertEqual(engine.onsets(for: player).map(\.status), [.onTime])
        let writes = rig.device.chip.trace.registerWrites.filter { $0.register == 0x02 && Double($0.time) >= (start - 0.05) * 1e6 }
        let first = try XCTUnwrap(writes.firstIndex { $0.value != 0 }, "the chip drove")
        let last = try XCTUnwrap(writes.lastIndex { $0.value != 0 })
        let zeros = writes[first...last].filter { $0.value == 0 }.map { Double($0.time) / 1e6 - start }
        XCTAssertEqual(zeros, [], "a hole in the drive at these times (s from the start)")
        // At rate 1 up to the change, the rest at rate 2.
        let driven = Double(writes[last].time - writes[first].time) / 1e6
        XCTAssertEqual(driven, effect + (0.8 - effect) / 2, accuracy: 0.02, "the drive lasted \(driven) s")
    }

    /// A 120 ms round trip: the heartbeat at its time. Then a start asked for sooner than the
    /// link allows (now): the play's origin is where it could start, and the report says so —
    /// every requested time is on that origin, the chip drove each event there, the rhythm kept.
    func testAHundredAndTwentyMillisecondRoundTripStartsOnTime() throws {
        let rig = VirtualRig(link: try LinkSpec.link(parsing: "out=60ms,back=60ms"))
        try rig.connect(calibrate: false)
        XCTAssertNil(rig.thrumDevice.roundTripLimit, "32 slots cover a 120 ms round trip in 10 ms chunks")
        assertPlayedAsAsked(try rig.playAsThrumPlayDoes(Self.heartbeat, advanced: true), Self.heartbeat, "heartbeat")

        let engine = try rig.engine()
        let before = engine.counters
        let beat = HapticPattern(events: Array(Self.heartbeat.events.prefix(2)), parameters: [], parameterCurves: [])
        let player = try engine.makeAdvancedPlayer(with: beat)
        let asked = engine.currentTime
        try player.start(atTime: asked)
        engine.runUntilPlayersFinished(timeout: 2)
        engine.waitForOnsetReports(of: player)
        var report = engine.playbackReport(for: player, pattern: beat, startTime: asked, duration: beat.duration, since: before)
        rig.attachTruth(to: &report)
        XCTAssertEqual(report.faults.map(\.message), [])
        let events = report.events.filter(\.type.isHaptic).sorted { $0.patternIndex < $1.patternIndex }
        XCTAssertEqual(events.count, 2)
        let origin = try XCTUnwrap(events.first).requestedTime
        XCTAssertGreaterThan(origin, 0.2, "the start waited two round trips (240 ms) less the pre-shift")
        for e in events {
            XCTAssertEqual(e.status, .onTime, "event \(e.patternIndex)")
            XCTAssertEqual(e.requestedTime - origin, beat.events[e.patternIndex].relativeTime, accuracy: 1e-6, "the whole play moved")
            let truth = try XCTUnwrap(e.trueDriveOnsetTime, "event \(e.patternIndex) not driven")
            XCTAssertEqual(truth, e.requestedTime - e.preShift, accuracy: 300e-6, "event \(e.patternIndex) driven where the report says")
        }
    }
    /// Two devices in one play, one behind a 120 ms round trip and one on a fast link: the group
    /// starts both one (longest) lead from now, and neither start moves. Before, the far
    /// device's start moved 115 ms later than the near one's (`thrum play --port A --port B`:
    /// skew p99 115 228 µs, exit 0). Judged on the two chips' truth.
    func testTwoDevicesOneBehindALongRoundTripPlayTogether() throws {
        let far = VirtualRig(link: try LinkSpec.link(parsing: "out=60ms,back=60ms"))
        let near = VirtualRig(link: FixedLatencyLink(latency: 1_000))
        let group = HapticEngineGroup([far.makeEngine(), near.makeEngine()])
        try group.start()
        let beat = HapticPattern(events: Array(Self.heartbeat.events.prefix(2)), parameters: [], parameterCurves: [])
        let players = try group.makePlayers(with: [beat])
        try group.start(players, atTime: group.currentTime + group.leadTime.seconds + 0.02)
        XCTAssertTrue(group.runUntilPlayersFinished(players, timeout: 5))
        let skews = group.skews(of: players)
        XCTAssertEqual(skews.count, 2, "both events reported by both devices")
        for s in skews {
            let truth = try XCTUnwrap(near.trueOnset(of: s.record)) - XCTUnwrap(far.trueOnset(of: s.reference))
            XCTAssertLessThan(abs(truth), 1e-3, "event \(s.patternIndex): the devices played \(truth * 1e3) ms apart")
            XCTAssertLessThanOrEqual(abs(s.skew - truth), s.bound + 1e-6, "event \(s.patternIndex): the bound misses the true skew")
        }
    }

    /// A plain play on round trips of 200, 260, 400 and 500 ms (`out=A,back=A`): a held
    /// continuous event drives without a hole (the chip's register writes), and the heartbeat's
    /// events drive at their times. Before, every streamed 10 ms chunk of the held level took a
    /// device queue slot, and 32 slots did not cover what the host must keep sent and
    /// unacknowledged: on 260 ms the stream waited for credits and the chip's drive had holes
    /// (at 306, 576 and 836 ms of a 1 s event), on 400 ms it stopped after 296 ms — with no fault
    /// and every onset `on_time`. Now the render chunk grows with the round trip
    /// (``LeadTimePolicy/renderChunk(on:chunk:queueSlots:)``).
    func testVeryLongRoundTripsDriveWithoutHoles() throws {
        let held = HapticPattern(
            events: [TestPatterns.continuous(at: 0, duration: 1.0, intensity: 0.8)], parameters: [], parameterCurves: [])
        for leg in [100, 130, 200, 250] {
            let rig = VirtualRig(link: try LinkSpec.link(parsing: "out=\(leg)ms,back=\(leg)ms"))
            try rig.connect(calibrate: false)
            let label = "\(2 * leg) ms round trip"
            // The limit said at connect names the round trip and the device's queue.
            let limit = try XCTUnwrap(rig.thrumDevice.roundTripLimit, label)
            XCTAssertTrue(limit.hasPrefix("a \(2 * leg) ms round trip to the virtual device: the device's 32 queue slots carry at most "), limit)
            let report = try rig.playAsThrumPlayDoes(held, advanced: true)
            XCTAssertEqual(report.faults.map(\.message), [], label)
            XCTAssertEqual(report.events.map(\.status), [.onTime], label)
            let writes = rig.device.chip.trace.registerWrites.filter { $0.register == DRV2605LRegister.rtpInput.rawValue }
            let first = try XCTUnwrap(writes.firstIndex { $0.value != 0 }, "\(label): the chip drove")
            let last = try XCTUnwrap(writes.lastIndex { $0.value != 0 })
            let zeros = writes[first...last].filter { $0.value == 0 }.map { Double($0.time - writes[first].time) / 1e3 }
            XCTAssertEqual(zeros, [], "\(label): holes in the drive at these times (ms from its first write)")
            let driven = Double(writes[last].time - writes[first].time) / 1e6
            XCTAssertEqual(driven, held.duration, accuracy: 0.03, "\(label): the drive lasted \(driven) s")
            assertPlayedAsAsked(try rig.playAsThrumPlayDoes(Self.heartbeat, advanced: true), Self.heartbeat, "\(label), heartbeat")
            print("\(limit); lead \(try rig.engine().leadTime), render chunk \(rig.session.leadPolicy.renderChunk(on: rig.session.link, queueSlots: rig.session.identity.map { Int($0.queueSlots) })), drive \(driven) s")
        }
    }

    /// When a long round trip is said again (``RoundTripWatch``): the first one always; a longer
    /// one only at half as long again as the last said and a second or more after it; none when
    /// the round trip dips under the limit (no candidate) and crosses it back lower.
    func testALongRoundTripIsSaidAgainOnlyWhenItGrewHalfAgainASecondLater() {
        func candidate(_ ms: Int64, at seconds: Double) -> RoundTripWarning {
            RoundTripWarning(
                hostTime: HostTime(seconds: seconds), roundTrip: .milliseconds(ms), queueSlots: 32, segmentsPerSecond: 0,
                chunk: .milliseconds(11), densestSpacing: .milliseconds(60), atConnect: false, previousRoundTrip: nil,
                endpointName: "the virtual device")
        }
        var watch = RoundTripWatch()
        XCTAssertNil(watch.consider(nil), "no candidate: the slots cover the round trip")
        XCTAssertEqual(watch.consider(candidate(170, at: 1))?.roundTrip, .milliseconds(170), "the first crossing")
        XCTAssertNil(watch.consider(candidate(240, at: 3)), "grown by less than half")
        XCTAssertNil(watch.consider(candidate(300, at: 1.5)), "half again, but within a second")
        XCTAssertNil(watch.consider(nil), "under the limit again")
        XCTAssertNil(watch.consider(candidate(200, at: 4)), "crossed back, not grown by half")
        let again = watch.consider(candidate(260, at: 4))
        XCTAssertEqual(again?.previousRoundTrip, .milliseconds(170))
        XCTAssertEqual(again?.message.hasPrefix("the round trip to the virtual device grew further to 260 ms (170 ms when last said): "), true)
        XCTAssertEqual(watch.warnings.map(\.roundTrip), [.milliseconds(170), .milliseconds(260)])
    }
}
