import ThrumEngine
import ThrumPattern
import ThrumLink
import ThrumSim
import ThrumTime
import ThrumWire
import XCTest

/// Sessions (PROTOCOL.md §3.8) in virtual time: two hosts on one virtual device, and the end of a
/// session. Truth is the simulated chip's trace (when the drive really began) and the bytes the
/// device really wrote, never what a host believes of itself.
final class SessionTests: XCTestCase {
    /// Two hosts' links on one virtual device, in virtual time, as two processes on one pty:
    /// every byte the device writes goes to both readers (`split`: alternately to one or the
    /// other, as two readers of one pty share its bytes).
    final class TwoHosts {
        let clock = ManualClock()
        let device = VirtualDevice()
        let a: LinkSession
        let b: LinkSession
        var bJoined = false
        var split = false
        private var turn = 0
        /// Every ONSET each host reported, with the host time it arrived.
        var onsetsA: [OnsetReport] = []
        var onsetsB: [OnsetReport] = []

        init() {
            var configuration = LinkConfiguration()
            configuration.session = 0xA11CE
            a = LinkSession(clock: clock, configuration: configuration)
            configuration.session = 0xB0B
            b = LinkSession(clock: clock, configuration: configuration)
        }

        var trueTime: UInt64 { UInt64(clock.now().nanoseconds / 1_000) }

        /// Runs both hosts and the device until `end`, 100 µs at a time.
        func run(until end: HostTime) {
            while clock.now() < end {
                for host in hosts {
                    host.poll()
                    let out = host.takeOutgoing()
                    if !out.isEmpty { device.receive(out) }
                }
                clock.advance(by: .microseconds(100))
                device.advance(to: trueTime)
                let output = device.takeOutput()
                guard !output.isEmpty else { continue }
                if split && bJoined {
                    turn += 1
                    hosts[turn % 2].receive(output)
                } else {
                    for host in hosts { host.receive(output) }
                }
                for event in a.takeDeviceEvents() { if case .onset(let o) = event { onsetsA.append(o) } }
                for event in b.takeDeviceEvents() { if case .onset(let o) = event { onsetsB.append(o) } }
            }
        }

        private var hosts: [LinkSession] { bJoined ? [a, b] : [a] }

        /// Connects `host` (IDENTIFY, then its CLAIM) within 100 ms.
        func connect(_ host: LinkSession) {
            if host === b { bJoined = true }
            host.connect()
            run(until: clock.now() + .milliseconds(100))
        }

        /// Queues `count` marked 8 ms segments (events 1…count), the first `after` from now and
        /// one every `spacing`; returns their device start times.
        func play(_ host: LinkSession, count: Int, after: HostDuration, spacing: HostDuration) -> [UInt32] {
            let first = host.clock.deviceTime32(at: clock.now() + after).rawValue
            let spacingMicros = UInt32(spacing.microseconds)
            let starts = (0..<count).map { first &+ UInt32($0) * spacingMicros }
            for (k, start) in starts.enumerated() {
                host.send(.segment(SegmentCommand(start: start, duration: 8_000, from: 180, to: 180, event: UInt32(k + 1))))
            }
            return starts
        }

        /// The true time (µs) of the chip's drive onset nearest the device time `start`, if one lies
        /// within 1 ms of it.
        func chipOnset(near start: UInt32) -> UInt64? {
            let expected = device.trueTime(ofDeviceClock: start, near: trueTime)
            return device.chip.trace.driveOnsets.first { abs(Double($0) - expected) < 1_000 }
        }
    }

    func testASecondHostTakesTheDeviceAndTheFirstRunEndsWithTheTakeover() throws {
        let hosts = TwoHosts()
        hosts.connect(hosts.a)
        guard case .connected(let identity) = hosts.a.state else { return XCTFail("host A did not connect: \(hosts.a.state)") }
        XCTAssertEqual(identity.protocolVersion, 5)
        XCTAssertTrue(hosts.a.sessionConfirmed)
        hosts.run(until: hosts.clock.now() + .milliseconds(200))  // clock samples
        // A plays six events 60 ms apart; B claims the device between A's second and third
        let startsA = hosts.play(hosts.a, count: 6, after: .milliseconds(50), spacing: .milliseconds(60))
        hosts.run(until: hosts.clock.now() + .milliseconds(140))
        let claimAt = hosts.trueTime
        hosts.connect(hosts.b)
        guard case .connected = hosts.b.state else { return XCTFail("host B did not connect: \(hosts.b.state)") }
        hosts.run(until: hosts.clock.now() + .milliseconds(100))
        let startsB = hosts.play(hosts.b, count: 4, after: .milliseconds(50), spacing: .milliseconds(45))
        hosts.run(until: hosts.clock.now() + .milliseconds(600))

        // A's run ended with the takeover, at the device time B's CLAIM arrived
        guard case .failed(.takenOver(let session, let deviceTime)) = hosts.a.state else {
            return XCTFail("host A's link should end with the takeover, it is \(hosts.a.state)")
        }
        XCTAssertEqual(session, 0xA11CE)
        let takenTrue = hosts.device.trueTime(ofDeviceClock: deviceTime, near: claimAt)
        XCTAssertGreaterThanOrEqual(takenTrue, Double(claimAt))
        XCTAssertLessThan(takenTrue, Double(claimAt) + 1_000)
        XCTAssertEqual(
            EngineError(.takenOver(session: session, deviceTime: deviceTime)).description.hasPrefix("device taken by another host at"),
            true)

        // A reported exactly its events that drove before the takeover, each at its chip onset
        XCTAssertEqual(hosts.onsetsA.map(\.event), [1, 2])
        for onset in hosts.onsetsA {
            let start = startsA[Int(onset.event) - 1]
            let chip = try XCTUnwrap(hosts.chipOnset(near: start), "no chip onset for A's event \(onset.event)")
            XCTAssertLessThan(Double(chip), takenTrue)
            XCTAssertEqual(hosts.device.trueTime(ofDeviceClock: onset.time, near: chip), Double(chip), accuracy: 100)
        }
        // A's later events never drove: the takeover stopped them, and A's later frames ran nothing
        for start in startsA.dropFirst(2) { XCTAssertNil(hosts.chipOnset(near: start), "A's drive played after the takeover") }

        // B played all of its events on time, reported once each, each at its chip onset
        XCTAssertEqual(hosts.onsetsB.map(\.event), [1, 2, 3, 4])
        for onset in hosts.onsetsB {
            XCTAssertEqual(onset.status, 0)
            let start = startsB[Int(onset.event) - 1]
            let chip = try XCTUnwrap(hosts.chipOnset(near: start), "no chip onset for B's event \(onset.event)")
            XCTAssertEqual(hosts.device.trueTime(ofDeviceClock: onset.time, near: chip), Double(chip), accuracy: 100)
            XCTAssertEqual(hosts.device.trueTime(ofDeviceClock: start, near: chip), Double(chip), accuracy: 300)
        }
        XCTAssertEqual(hosts.device.chip.trace.driveOnsets.count, 6, "A's two and B's four, nothing else")
    }

    /// Two readers of one pty split the device's bytes: a host may miss its takeover notice, yet
    /// never takes another session's report for its own.
    func testWithTheBytesSplitBetweenTwoReadersNoOnsetIsMislabelled() throws {
        let hosts = TwoHosts()
        hosts.split = true
        hosts.connect(hosts.a)
        hosts.run(until: hosts.clock.now() + .milliseconds(200))
        let startsA = hosts.play(hosts.a, count: 6, after: .milliseconds(50), spacing: .milliseconds(60))
        hosts.run(until: hosts.clock.now() + .milliseconds(140))
        let claimAt = Double(hosts.trueTime)
        hosts.connect(hosts.b)
        hosts.run(until: hosts.clock.now() + .milliseconds(300))
        var startsB: [UInt32] = []
        if case .connected = hosts.b.state {
            startsB = hosts.play(hosts.b, count: 4, after: .milliseconds(50), spacing: .milliseconds(45))
        }
        hosts.run(until: hosts.clock.now() + .seconds(2))

        // every onset either host reported is its own event's, at that event's chip onset
        for (onsets, starts, name) in [(hosts.onsetsA, startsA, "A"), (hosts.onsetsB, startsB, "B")] {
            for onset in onsets {
                XCTAssertTrue((1...starts.count).contains(Int(onset.event)), "\(name) reported an event it never sent")
                let start = starts[Int(onset.event) - 1]
                let chip = try XCTUnwrap(hosts.chipOnset(near: start), "\(name)'s event \(onset.event) never drove")
                XCTAssertEqual(hosts.device.trueTime(ofDeviceClock: onset.time, near: chip), Double(chip), accuracy: 100)
            }
        }
        XCTAssertTrue(hosts.onsetsA.allSatisfy { hosts.device.trueTime(ofDeviceClock: $0.time, near: UInt64(claimAt)) < claimAt })
        // A's link ended (it may have missed every notice: then it stopped hearing answers)
        guard case .failed = hosts.a.state else { return XCTFail("host A still thinks it holds the device") }
    }

    func testTheEngineOfATakenHostStopsWithTheTakeoverError() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: metronome(beats: 8, interval: 0.1))
        let t0 = rig.now + 0.2
        try player.start(atTime: t0)
        rig.engine.run(for: t0 + 0.25 - rig.now)
        // another host's CLAIM reaches the device (its frame travels plain)
        let claim = Frame(direction: .hostToDevice, flags: .unseq, seq: 0, payload: HostMessage.claim(session: 0xB0B).encode())
        let claimTrue = rig.pump.trueTime
        rig.device.receive(claim.encode())
        _ = rig.engine.runUntilPlayersFinished(timeout: 2)
        let error = try XCTUnwrap(rig.engine.lastError)
        XCTAssertTrue("\(error)".contains("device taken by another host at device time"), "\(error)")
        XCTAssertFalse(rig.engine.isRunning)
        // nothing drove after the takeover (chip truth), and no onset was reported after it
        XCTAssertLessThan(rig.peakG(from: Double(claimTrue) / 1e6 + 0.02, to: rig.now), 0.01)
        let reported = rig.engine.onsets(for: player).filter { $0.driveOnsetTime != nil }
        XCTAssertTrue(reported.allSatisfy { $0.driveOnsetTime! < Double(claimTrue) / 1e6 }, "\(reported)")
        XCTAssertEqual(reported.map(\.patternIndex), [0, 1, 2])
        for record in reported { XCTAssertEqual(try XCTUnwrap(rig.trueOnset(record)), record.requestedTime, accuracy: 200e-6) }
    }

    func testDeviceSessionThrowsTheTypedTakeoverError() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let claim = Frame(direction: .hostToDevice, flags: .unseq, seq: 0, payload: HostMessage.claim(session: 0xB0B).encode())
        rig.device.receive(claim.encode())
        XCTAssertThrowsError(try pump(rig, for: .milliseconds(200))) { error in
            guard case EngineError.deviceTaken = error else { return XCTFail("\(error)") }
        }
    }

    /// Runs the rig's session for `duration` (one ``DeviceSession/runOnce(until:)`` returns at the
    /// first delivery).
    private func pump(_ rig: EngineRig, for duration: HostDuration) throws {
        let deadline = rig.clock.now() + duration
        while rig.clock.now() < deadline { try rig.session.runOnce(until: deadline) }
    }

    /// The device's own output from now until `seconds` later, with the host gone (nothing
    /// pumped): the FAULTs in it, read with the host's key and plain.
    private func faultsAfterTheHostLeft(_ rig: EngineRig, seconds: Double) -> [FaultReport] {
        var decoder = FrameDecoder(direction: .deviceToHost)
        if let session = rig.session.link.session { decoder.keys = [CRC16.sessionKey(session)] }
        _ = decoder.push(rig.device.takeOutput())
        rig.device.advance(to: max(rig.device.now, rig.pump.trueTime) + UInt64(seconds * 1e6))
        return decoder.push(rig.device.takeOutput()).flatMap { frame in
            ((try? DeviceMessage.parsePayload(frame.payload)) ?? []).compactMap { if case .fault(let f) = $0 { f } else { nil } }
        }
    }

    func testANormalEndLeavesNoWatchdogFault() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(with: metronome(beats: 3, interval: 0.1))
        try player.start(atTime: rig.now + 0.1)
        XCTAssertTrue(rig.engine.runUntilPlayersFinished(timeout: 2))
        rig.engine.run(for: 0.05)
        rig.engine.stop()
        // the STOP and RELEASE reach the device (the link takes a millisecond)
        try pump(rig, for: .milliseconds(20))
        let faults = faultsAfterTheHostLeft(rig, seconds: 3)
        XCTAssertFalse(faults.contains { $0.code == ProtocolConstants.faultWatchdogStop }, "FAULT 5 after a normal end: \(faults)")
    }

    func testAHostThatVanishesMidPlayStillGetsItsWatchdogStop() throws {
        let rig = EngineRig()
        try rig.engine.start()
        // drive queued far ahead: a second's ramp, and another after it
        let link = rig.session.link
        let start = link.clock.deviceTime32(at: rig.clock.now() + .milliseconds(100)).rawValue
        link.send(.segment(SegmentCommand(start: start, duration: 1_000_000, from: 120, to: 120)))
        link.send(.segment(SegmentCommand(start: start &+ 1_000_000, duration: 1_000_000, from: 120, to: 120)))
        try pump(rig, for: .milliseconds(50))
        // the host process dies: nothing more is pumped
        let faults = faultsAfterTheHostLeft(rig, seconds: 3)
        XCTAssertTrue(faults.contains { $0.code == ProtocolConstants.faultWatchdogStop }, "no FAULT 5: \(faults)")
        XCTAssertEqual(rig.device.chip.trace.samples.last?.rtpInput, 0)
    }
}
