import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

final class LinkSessionDeliveryTests: XCTestCase {
    private func segments(_ count: Int, start: UInt32 = 0, duration: UInt32 = 1000) -> [HostMessage] {
        (0..<count).map { i in
            .segment(SegmentCommand(
                start: start + UInt32(i) * duration, duration: duration, from: UInt8(i % 256), to: 0, event: UInt32(i)))
        }
    }

    private func sequenced(_ device: FakeDevice) -> [HostMessage] {
        device.executed.filter { !$0.isAnyLane }
    }

    func testMessagesArePackedAndDeliveredInOrder() throws {
        let harness = LinkHarness()
        harness.connect()
        let messages = segments(6)
        for m in messages { harness.session.send(m) }
        XCTAssertEqual(harness.session.pendingCount, 6)
        harness.run(for: .milliseconds(20))
        XCTAssertEqual(sequenced(harness.device), messages)
        XCTAssertEqual(harness.session.pendingCount, 0)
        let frames = harness.device.receivedFrames.filter { !$0.flags.contains(.unseq) }
        XCTAssertEqual(frames.count, 2, "six 10-byte segments need two 58-byte frames")
        XCTAssertTrue(frames.allSatisfy { $0.payload.count <= 58 })
        XCTAssertEqual(frames[0].flags, .resync, "the first sequenced frame carries RESYNC")
        XCTAssertEqual(frames[1].flags, [])
        XCTAssertEqual(frames[1].seq, frames[0].seq &+ 1)
        XCTAssertEqual(harness.session.statistics.retransmissions, 0)
    }

    func testDroppedFrameIsRetransmitted() {
        // No probing: the frame dropped must be the SEGMENTs', not a probe that happens to go first.
        var configuration = LinkConfiguration()
        configuration.startupProbing = .zero
        let harness = LinkHarness(configuration: configuration)
        harness.connect()
        let firstSequenced = harness.hostFramesSent
        harness.hostFrameFate = { frame, index in index == firstSequenced ? .drop : .deliver }
        let messages = segments(3)
        for m in messages { harness.session.send(m) }
        harness.run(for: .milliseconds(100))
        XCTAssertEqual(sequenced(harness.device), messages, "delivered exactly once, in order")
        XCTAssertEqual(harness.session.pendingCount, 0)
        XCTAssertGreaterThanOrEqual(harness.session.statistics.retransmissions, 1)
        XCTAssertGreaterThanOrEqual(harness.session.statistics.timeouts, 1)
    }

    func testDroppedAckLeadsToRetransmissionWithoutDoubleExecutionOrRTTSample() {
        var configuration = LinkConfiguration()
        configuration.startupProbing = .zero
        configuration.pingInterval = .milliseconds(250)
        let harness = LinkHarness(configuration: configuration)
        harness.connect()
        let samplesBefore = harness.session.statistics.roundTripSamples
        let firstAck = harness.deviceFramesSent
        harness.deviceFrameFate = { _, index in index == firstAck ? .drop : .deliver }
        let messages = segments(2)
        for m in messages { harness.session.send(m) }
        harness.run(for: .milliseconds(100))
        XCTAssertEqual(sequenced(harness.device), messages)
        XCTAssertEqual(harness.device.duplicatesOrGaps, 1, "the retransmission arrived as a duplicate")
        XCTAssertEqual(harness.session.pendingCount, 0)
        XCTAssertEqual(harness.session.statistics.timeouts, 1)
        // Karn: the retransmitted frame's ACK is no sample; only pings add samples.
        XCTAssertEqual(harness.session.statistics.roundTripSamples, samplesBefore)
        XCTAssertEqual(harness.session.statistics.smoothedRoundTrip, .milliseconds(1))
    }

    func testCorruptionInBothDirectionsIsSurvived() {
        let harness = LinkHarness()
        harness.connect()
        let h = harness.hostFramesSent
        let d = harness.deviceFramesSent
        harness.hostFrameFate = { _, index in index == h || index == h + 3 ? .corrupt : .deliver }
        harness.deviceFrameFate = { _, index in index == d + 1 ? .corrupt : .deliver }
        var messages: [HostMessage] = []
        for round in 0..<5 {
            let batch = segments(3, start: UInt32(round) * 100_000)
            messages += batch
            for m in batch { harness.session.send(m) }
            harness.run(for: .milliseconds(30))
        }
        harness.run(for: .milliseconds(200))
        XCTAssertEqual(sequenced(harness.device), messages)
        XCTAssertEqual(harness.session.pendingCount, 0)
        XCTAssertGreaterThanOrEqual(harness.session.statistics.badFrames, 1)
        XCTAssertGreaterThanOrEqual(harness.device.decoder.badFrames, 2)
        XCTAssertGreaterThan(harness.session.statistics.retransmissions, 0)
    }

    func testCreditsBlockSegmentsUntilTheDeviceFreesSlots() {
        let device = FakeDevice(queueSlots: 4)
        let harness = LinkHarness(device: device)
        harness.connect()
        let now = UInt32(truncatingIfNeeded: device.deviceTime(at: harness.now))
        // Ten 100 ms segments starting now: the device can hold four at a time.
        let messages = segments(10, start: now, duration: 100_000)
        for m in messages { harness.session.send(m) }
        harness.run(for: .milliseconds(50))
        XCTAssertEqual(sequenced(device).count, 4)
        XCTAssertEqual(harness.session.pendingCount, 6)
        harness.run(for: .seconds(2))
        XCTAssertEqual(sequenced(device), messages)
        XCTAssertEqual(device.flowControlRejections, 0, "the host never overran the queue")
        XCTAssertEqual(harness.session.pendingCount, 0)
    }

    func testCreditsCountSegmentsStillInFlight() {
        // The device answers pings before it sees later frames; their segments must still count.
        let device = FakeDevice(queueSlots: 3)
        let harness = LinkHarness(device: device)
        harness.hostToDeviceDelay = .milliseconds(5)
        harness.connect()
        for round in 0..<6 {
            for m in segments(2, start: 50_000_000 + UInt32(round) * 10_000, duration: 1000) { harness.session.send(m) }
            harness.session.sendImmediately(.ping)
            harness.run(for: .milliseconds(1))
        }
        harness.run(for: .milliseconds(100))
        XCTAssertEqual(device.flowControlRejections, 0)
        XCTAssertEqual(sequenced(device).count, 3, "three slots, segments far in the future never free")
    }

    func testWindowLimitsFramesInFlight() {
        let device = FakeDevice(queueSlots: 1000)
        var configuration = LinkConfiguration()
        configuration.maxFramesInFlight = 16
        let harness = LinkHarness(device: device, configuration: configuration)
        harness.hostToDeviceDelay = .milliseconds(20)
        harness.connect()
        for _ in 0..<200 {
            harness.session.send(.configureDriver(DriverConfiguration(ratedVoltage: 1, odClamp: 2, driveTime: 3, olLraPeriod: 4)))
        }
        harness.run(for: .seconds(2))
        XCTAssertEqual(harness.maxSequencedInFlight, 16)
        XCTAssertEqual(device.executed.filter { !$0.isAnyLane }.count, 200)
        XCTAssertEqual(harness.session.statistics.retransmissions, 0)
    }

    func testGapTriggersFastRetransmitBeforeTheTimer() {
        var configuration = LinkConfiguration()
        configuration.minimumRetransmissionTimeout = .milliseconds(300)
        let harness = LinkHarness(configuration: configuration)
        harness.connect()
        let first = harness.hostFramesSent
        harness.hostFrameFate = { _, index in index == first ? .drop : .deliver }
        let messages = segments(12)
        for m in messages { harness.session.send(m) }
        harness.run(for: .milliseconds(20))
        XCTAssertEqual(sequenced(harness.device), messages)
        XCTAssertEqual(harness.session.statistics.timeouts, 0)
        XCTAssertEqual(harness.session.statistics.fastRetransmits, 1)
        XCTAssertEqual(harness.device.flowControlRejections, 0)
        XCTAssertGreaterThanOrEqual(harness.session.statistics.duplicateAcknowledgements, 1)
    }

    /// Behind a slow line (or a device that fell behind, as simavr does on a loaded machine) a
    /// go-back-N resend queues behind the frames already on their way. The timer must not resend
    /// the window again while the device is still answering those earlier frames: each resend
    /// would lengthen the queue and count an attempt the device never saw, until the link gave up
    /// on a frame that was still coming (the AVR soak's one link failure).
    func testTimerWaitsWhileTheDeviceWorksThroughEarlierFrames() {
        var configuration = LinkConfiguration()
        configuration.startupProbing = .zero
        configuration.pingInterval = .seconds(5)
        let device = FakeDevice(queueSlots: 200)
        let harness = LinkHarness(device: device, configuration: configuration)
        harness.connect()
        harness.run(for: .milliseconds(50))
        harness.hostToDeviceFrameTime = .milliseconds(4)  // 16 frames take 64 ms to arrive
        let first = harness.hostFramesSent
        harness.hostFrameFate = { frame, index in index == first ? .drop : .deliver }
        let messages = segments(16 * 5)
        for m in messages { harness.session.send(m) }
        harness.run(for: .milliseconds(400))
        XCTAssertEqual(sequenced(harness.device), messages, "delivered exactly once, in order")
        let stats = harness.session.statistics
        // Each frame queued behind the lost one still answers with a NACK that asks for the window
        // (one per frame in flight at most): judging a resent frame by its first copy brings that
        // to one resend, but left NACKs unanswered in two-device play (LinkSession+Incoming), so
        // it is open. The timer never gives up on a frame that is still coming.
        XCTAssertGreaterThanOrEqual(stats.fastRetransmits, 1, "the gap after the lost frame asks for a resend")
        XCTAssertLessThanOrEqual(stats.fastRetransmits, 16, "at most one resend per frame in flight: \(stats)")
        XCTAssertEqual(stats.timeouts, 0, "no resend on the timer while the device still answers: \(stats)")
        XCTAssertEqual(harness.session.state, .connected(device.identity))
    }

    func testStopOvertakesQueuedTraffic() throws {
        let harness = LinkHarness()
        harness.connect()
        for m in segments(3) { harness.session.send(m) }
        harness.session.sendImmediately(.stop)
        let frames = FrameDecoderOnceHost.frames(harness.session.takeOutgoing())
        XCTAssertEqual(frames.first?.flags, .unseq)
        XCTAssertEqual(try HostMessage.parsePayload(frames[0].payload), [.stop])
        XCTAssertEqual(frames.count, 2)
    }

    func testDeviceThatStopsAnsweringFailsTheLink() {
        var configuration = LinkConfiguration()
        configuration.maxTransmissionsPerFrame = 4
        let harness = LinkHarness(configuration: configuration)
        harness.connect()
        harness.device.silent = true
        harness.session.send(segments(1)[0])
        harness.run(for: .seconds(10))
        guard case .failed(.deliveryFailed(_, let transmissions)) = harness.session.state else {
            return XCTFail("expected delivery failure, got \(harness.session.state)")
        }
        XCTAssertEqual(transmissions, 4)
        XCTAssertEqual(harness.session.pendingCount, 1)
    }

    func testTimeoutsBackOffExponentially() {
        var configuration = LinkConfiguration()
        configuration.maxTransmissionsPerFrame = 6
        let harness = LinkHarness(configuration: configuration)
        harness.connect()
        harness.device.silent = true
        let clock = harness.clock
        var sequencedTimes: [HostTime] = []
        harness.hostFrameFate = { frame, _ in
            if !frame.flags.contains(.unseq) { sequencedTimes.append(clock.now()) }
            return .deliver
        }
        harness.session.send(segments(1)[0])
        harness.run(for: .seconds(1))
        let gaps = zip(sequencedTimes.dropFirst(), sequencedTimes).map { ($0 - $1) }
        // RTO = max(5 ms floor, SRTT + 4·RTTVAR = 3 ms), doubling on every expiry.
        XCTAssertEqual(gaps, [5, 10, 20, 40, 80].map { HostDuration.milliseconds($0) })
        XCTAssertEqual(harness.session.state, .failed(.deliveryFailed(seq: 0, transmissions: 6)))
        XCTAssertEqual(harness.session.statistics.timeouts, 5)
    }

    func testRetransmissionTimeoutFollowsRFC6298() {
        var configuration = LinkConfiguration()
        configuration.startupProbing = .zero
        configuration.pingInterval = .milliseconds(250)
        let harness = LinkHarness(configuration: configuration)
        harness.connect()
        harness.run(for: .seconds(3))
        let stats = harness.session.statistics
        XCTAssertEqual(stats.smoothedRoundTrip, .milliseconds(1))
        XCTAssertEqual(stats.roundTripSamples, 12, "IDENTIFY and eleven pings")
        // RTTVAR starts at RTT/2 and decays by 3/4 with every further equal sample.
        XCTAssertEqual(Double(stats.roundTripVariation.nanoseconds), 500_000 * pow(0.75, 11), accuracy: 20)
        XCTAssertEqual(stats.retransmissionTimeout, .milliseconds(5), "floored at the 5 ms minimum")
    }

    func testOnsetsAndFaultsArriveAsEvents() {
        let harness = LinkHarness()
        harness.connect()
        _ = harness.session.takeDeviceEvents()
        harness.session.send(.segment(SegmentCommand(start: 777, duration: 10, from: 1, to: 2, event: 9)))
        harness.run(for: .milliseconds(10))
        XCTAssertEqual(harness.session.takeDeviceEvents(), [.onset(OnsetReport(event: 9, time: 777, status: 0))])
        XCTAssertEqual(harness.session.statistics.lostDeviceFrames, 0)
    }

    /// The firmware repeats each ONSET in its next three frames without new reports: the host
    /// reports each onset once, and a lost device frame loses none.
    func testRepeatedOnsetsArriveOnceAndSurviveALostFrame() {
        var configuration = LinkConfiguration()
        configuration.startupProbing = .zero
        let device = FakeDevice(queueSlots: 32)
        device.onsetRepeats = 3
        let harness = LinkHarness(device: device, configuration: configuration)
        harness.connect()
        _ = harness.session.takeDeviceEvents()
        // The first frame that carries each onset is lost; its repeats ride on the ACKs of the pings.
        var sent: Set<UInt32> = []
        harness.deviceFrameFate = { frame, _ in
            let messages = (try? DeviceMessage.parsePayload(frame.payload)) ?? []
            let fresh = messages.contains { if case .onset(let o) = $0 { !sent.contains(o.event) } else { false } }
            for case .onset(let o) in messages { sent.insert(o.event) }
            return fresh ? .drop : .deliver
        }
        for event in 1...5 {
            harness.session.send(.segment(SegmentCommand(start: UInt32(event) * 1_000, duration: 10, from: 1, to: 2, event: UInt32(event))))
            harness.run(for: .milliseconds(600))
        }
        let onsets = harness.session.takeDeviceEvents().compactMap { event -> UInt32? in
            if case .onset(let o) = event { return o.event } else { return nil }
        }
        XCTAssertEqual(onsets, [1, 2, 3, 4, 5], "each onset once, from its repeat")
        XCTAssertEqual(harness.session.statistics.repeatedOnsets, 5 * 2, "three repeats each, the first one taken")
        XCTAssertGreaterThanOrEqual(harness.session.statistics.lostDeviceFrames, 5)
    }
}
