import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTime
import XCTest

/// Two virtual devices with crystals 100 ppm off in opposite directions, each behind its own
/// realistic USB link (one host controller: one frame grid), played against one host timeline;
/// the skew between their onsets against the two chips' truth.
final class EngineGroupTests: XCTestCase {
    func transients(count: Int, spacing: Double) -> HapticPattern {
        HapticPattern(
            events: (0..<count).map { k in
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: k % 2 == 0 ? 1 : 0.6)],
                    relativeTime: Double(k) * spacing)
            }, parameters: [], parameterCurves: [])
    }

    func testTwoDevicesOnOneTimelineLandTogetherAndTheReportedSkewHoldsTheTruth() throws {
        let left = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 1)  // −100 ppm
        let right = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 2)  // +100 ppm
        let group = HapticEngineGroup([left.makeEngine(), right.makeEngine()])
        try group.start()
        let players = try group.makePlayers(with: [transients(count: 40, spacing: 0.12)])
        let start = group.currentTime + group.leadTime.seconds + 0.02
        try group.start(players, atTime: start)
        XCTAssertTrue(group.runUntilPlayersFinished(players, timeout: 10))

        let skews = group.skews(of: players)
        XCTAssertEqual(skews.count, 40, "every event reported by both devices")
        var truths: [Double] = []
        for s in skews {
            guard let a = left.trueOnset(of: s.reference), let b = right.trueOnset(of: s.record) else {
                XCTFail("no true onset for event \(s.patternIndex)")
                continue
            }
            let truth = b - a
            truths.append(truth)
            XCTAssertLessThanOrEqual(abs(s.skew - truth), s.bound + 1e-6, "event \(s.patternIndex): the bound misses the true skew")
        }
        // Both devices count the USB frame grid they share: the group schedules them on it and
        // measures the skew there, to a few µs, where each device's own alignment is hundreds.
        XCTAssertTrue(skews.allSatisfy(\.measuredOnFrameGrid))
        XCTAssertTrue(group.timebase.isComplete)
        XCTAssertLessThan(truths.map(abs).max()!, 20e-6, "the largest true skew")
        XCTAssertLessThan(skews.map(\.bound).max()!, 20e-6, "the largest reported bound")
    }

    func testADeviceBehindASerialBridgeLeavesEachDeviceOnItsOwnClockModel() throws {
        // The bridge's microcontroller sees no USB frames: no frame times, no shared grid.
        let left = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 1)
        let right = VirtualRig(link: try XCTUnwrap(LinkCatalogue.profile(named: "ftdi-1m-1ms")), seed: 2)
        let group = HapticEngineGroup([left.makeEngine(), right.makeEngine()])
        try group.start()
        let players = try group.makePlayers(with: [transients(count: 20, spacing: 0.12)])
        try group.start(players, atTime: group.currentTime + group.leadTime.seconds + 0.02)
        XCTAssertTrue(group.runUntilPlayersFinished(players, timeout: 10))
        let skews = group.skews(of: players)
        XCTAssertEqual(skews.count, 20)
        XCTAssertFalse(group.timebase.isComplete)
        for s in skews {
            XCTAssertFalse(s.measuredOnFrameGrid)
            let truth = try XCTUnwrap(right.trueOnset(of: s.record)) - XCTUnwrap(left.trueOnset(of: s.reference))
            XCTAssertLessThanOrEqual(abs(s.skew - truth), s.bound + 1e-6, "event \(s.patternIndex): the bound misses the true skew")
            // Each device lands within its own link's unseen asymmetry (up to ≈ 0.6 ms on these
            // models, different for each link); the skew is their difference, inside the bound.
            XCTAssertLessThan(abs(truth), 2e-3)
        }
    }

    func testAGroupKeepsItsLinksProbingAndItsSettingSurvivesAReconnect() throws {
        let left = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 3)
        let right = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 4)
        let group = HapticEngineGroup([left.makeEngine(), right.makeEngine()])
        XCTAssertEqual(group.probeInterval, HapticEngineGroup.defaultProbeInterval)
        try group.start()
        group.run(for: 3)
        // Long after the startup probing, each link still samples its clock: a ping 10 ms after the
        // last frame, sent when the host's timer wakes (0.5–8 ms late on this link).
        let before = [left, right].map(\.session.link.statistics.roundTripSamples)
        group.run(for: 1)
        for (rig, count) in zip([left, right], before) {
            XCTAssertGreaterThan(rig.session.link.statistics.roundTripSamples - count, 50, "clock samples in one idle second")
        }
        // The setting outlives the link a reboot replaces, and nil gives the links their own pings back.
        // The group's estimates leave out the reader's wake-up floor, which the links still learn.
        XCTAssertGreaterThan(left.session.link.wakeLatency.floor, .zero)
        XCTAssertEqual(left.session.link.clock.readerWakeFloor, .zero)
        _ = try left.session.reconnect()
        XCTAssertEqual(left.session.link.steadyPingInterval, HapticEngineGroup.defaultProbeInterval)
        XCTAssertFalse(left.session.link.appliesReaderWakeFloor)
        group.probeInterval = nil
        XCTAssertNil(left.session.link.steadyPingInterval)
        XCTAssertNil(right.session.link.steadyPingInterval)
        group.run(for: 3)
        let idle = right.session.link.statistics.roundTripSamples
        group.run(for: 1)
        XCTAssertLessThan(right.session.link.statistics.roundTripSamples - idle, 12, "one ping per 150 ms without the group's probing")
    }

    /// A program that holds its devices and groups them anew for each play (`thrum studio`):
    /// `release()` gives each engine its own link settings back (no group probing, its reader's
    /// wake-up floor), an engine then plays alone with every onset inside its bound of the chip's
    /// truth, and a new group of the same engines plays together again, its skews holding the truth.
    func testAReleasedGroupGivesEachEngineItsOwnLinkBackAndTheEnginesGroupAgain() throws {
        let left = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 5)
        let right = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 6)
        let engines = [left.makeEngine(), right.makeEngine()]
        func playTogether() throws {
            let group = HapticEngineGroup(engines)
            defer { group.release() }
            try group.start()
            let players = try group.makePlayers(with: [transients(count: 4, spacing: 0.12)])
            try group.start(players, atTime: group.currentTime + group.leadTime.seconds + 0.02)
            XCTAssertTrue(group.runUntilPlayersFinished(players, timeout: 10))
            let skews = group.skews(of: players)
            XCTAssertEqual(skews.count, 4, "every event reported by both devices")
            for s in skews {
                let truth = try XCTUnwrap(right.trueOnset(of: s.record)) - XCTUnwrap(left.trueOnset(of: s.reference))
                XCTAssertLessThanOrEqual(abs(s.skew - truth), s.bound + 1e-6, "event \(s.patternIndex): the bound misses the true skew")
            }
        }
        try playTogether()
        for rig in [left, right] {
            XCTAssertNil(rig.session.link.steadyPingInterval)
            XCTAssertTrue(rig.session.link.appliesReaderWakeFloor)
        }
        // Alone (its link's own pings: `testAGroupKeepsItsLinksProbing…` counts them), a play
        // inside its bounds.
        let engine = engines[0]
        let player = try engine.makeAdvancedPlayer(with: transients(count: 4, spacing: 0.12))
        try player.start(atTime: engine.currentTime + engine.leadTime.seconds + 0.02)
        XCTAssertTrue(engine.runUntilPlayersFinished(timeout: 10))
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.count, 4)
        for record in onsets {
            let reported = try XCTUnwrap(record.onsetTime), bound = try XCTUnwrap(record.onsetBound)
            let truth = try XCTUnwrap(left.trueOnset(of: record))
            XCTAssertLessThanOrEqual(abs(reported - truth), bound + 1e-6, "event \(record.patternIndex) alone")
        }
        try playTogether()
    }

    func testTwoDevicesStartedLongAfterConnectingLandTogether() throws {
        // Started 6 s after connecting. On the frame grid the skew stays within µs. With the frames
        // hidden, each stream starts at its model's drift (the window is long), not at the
        // nominal rate, and the group's probing keeps both offsets fresh.
        for hidden in [false, true] {
            let profile = hidden ? LinkCatalogue.usbFullSpeed.withoutStartOfFrames : LinkCatalogue.usbFullSpeed
            let left = VirtualRig(link: profile, seed: 5)  // −100 ppm
            let right = VirtualRig(link: profile, seed: 6)  // +100 ppm
            let group = HapticEngineGroup([left.makeEngine(), right.makeEngine()])
            try group.start()
            group.run(for: 6)
            let players = try group.makePlayers(with: [transients(count: 30, spacing: 0.12)])
            try group.start(players, atTime: group.currentTime + group.leadTime.seconds + 0.02)
            XCTAssertTrue(group.runUntilPlayersFinished(players, timeout: 10))
            let skews = group.skews(of: players)
            XCTAssertEqual(skews.count, 30)
            var truths: [Double] = []
            for s in skews {
                XCTAssertEqual(s.measuredOnFrameGrid, !hidden)
                let truth = try XCTUnwrap(right.trueOnset(of: s.record)) - XCTUnwrap(left.trueOnset(of: s.reference))
                truths.append(truth)
                XCTAssertLessThanOrEqual(abs(s.skew - truth), s.bound + 1e-6, "event \(s.patternIndex): the bound misses the true skew")
            }
            // The crystals drift apart by 200 µs/s; schedules at the nominal rate would let the skew
            // walk by ≈ 200 µs over this pattern's 3.5 s, the learnt drift keeps it within tens of
            // µs, the shared grid within a few.
            XCTAssertLessThan(truths.max()! - truths.min()!, hidden ? 100e-6 : 10e-6, "how far the skew wandered (frames hidden: \(hidden))")
        }
    }

    func testAMemberThatRebootsRejoinsTheGridOnceItCountsAgain() throws {
        let left = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 7)
        let right = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 8)
        let group = HapticEngineGroup([left.makeEngine(), right.makeEngine()])
        try group.start()
        group.run(for: 1)
        XCTAssertTrue(group.timebase.isComplete)
        // The left microcontroller resets: its clock starts again from 0, its link is replaced and
        // its count starts afresh; the group schedules on the grid again once it is fitted.
        left.pump.deviceFaults = [.reset(at: left.pump.trueTime + 1_000)]
        group.run(for: 2)
        XCTAssertEqual(left.device.resetCount, 1)
        XCTAssertTrue(group.timebase.isComplete)
        let players = try group.makePlayers(with: [transients(count: 20, spacing: 0.12)])
        try group.start(players, atTime: group.currentTime + group.leadTime.seconds + 0.02)
        XCTAssertTrue(group.runUntilPlayersFinished(players, timeout: 10))
        let skews = group.skews(of: players)
        XCTAssertEqual(skews.count, 20)
        for s in skews {
            XCTAssertTrue(s.measuredOnFrameGrid)
            let truth = try XCTUnwrap(right.trueOnset(of: s.record)) - XCTUnwrap(left.trueOnset(of: s.reference))
            XCTAssertLessThanOrEqual(abs(s.skew - truth), s.bound + 1e-6, "event \(s.patternIndex): the bound misses the true skew")
            XCTAssertLessThan(abs(truth), 20e-6, "event \(s.patternIndex)")
        }
    }
}
