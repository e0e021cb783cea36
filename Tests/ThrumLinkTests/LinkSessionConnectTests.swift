import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

final class LinkSessionConnectTests: XCTestCase {
    func testConnectIdentifiesTheDevice() {
        let harness = LinkHarness()
        harness.connect()
        XCTAssertEqual(harness.session.state, .connected(harness.device.identity))
        XCTAssertEqual(harness.session.takeDeviceEvents(), [.identified(harness.device.identity)])
        let identify = harness.device.receivedFrames[0]
        XCTAssertEqual(identify.flags, .unseq)
        XCTAssertEqual(try HostMessage.parsePayload(identify.payload), [.identify])
        XCTAssertEqual(harness.session.statistics.roundTripSamples, 1)
        XCTAssertEqual(harness.session.statistics.smoothedRoundTrip, .milliseconds(1))
        XCTAssertEqual(harness.session.clock.sampleCount, 1)
    }

    func testSilentDeviceFailsAfterBoundedRetries() {
        let device = FakeDevice()
        device.silent = true
        var configuration = LinkConfiguration()
        configuration.identifyAttempts = 4
        configuration.identifyRetryInterval = .milliseconds(50)
        let harness = LinkHarness(device: device, configuration: configuration)
        let start = harness.now
        harness.session.connect()
        harness.run(for: .milliseconds(199))
        XCTAssertEqual(harness.session.state, .connecting)
        harness.run(for: .milliseconds(2))
        XCTAssertEqual(harness.session.state, .failed(.deviceNotResponding(attempts: 4)))
        XCTAssertEqual(harness.device.receivedFrames.count, 4)
        XCTAssertTrue(harness.device.receivedFrames.allSatisfy { $0.flags == .unseq && $0.payload == [0x01] })
        XCTAssertEqual(Set(harness.device.receivedFrames.map(\.seq)).count, 4, "each retry has its own tag")
        XCTAssertNil(harness.session.nextDeadline)
        harness.run(for: .seconds(1))
        XCTAssertEqual(harness.device.receivedFrames.count, 4, "nothing more after failing")
        XCTAssertLessThan(harness.now - start, .seconds(2))
    }

    func testLostIdentifyFramesAreRetried() {
        let harness = LinkHarness()
        harness.hostFrameFate = { _, index in index < 2 ? .drop : .deliver }
        harness.connect()
        XCTAssertEqual(harness.session.state, .connected(harness.device.identity))
        XCTAssertEqual(harness.device.receivedFrames.count, 1)
        XCTAssertEqual(harness.hostFramesSent, 3)
    }

    func testUnsupportedProtocolVersionFails() {
        let harness = LinkHarness()
        harness.session.connect()
        // A device that speaks a version newer than this host's answers the IDENTIFY by hand.
        let identify = FrameDecoderOnceHost.frames(harness.session.takeOutgoing())[0]
        var identity = harness.device.identity
        identity.protocolVersion = ProtocolConstants.protocolVersion + 1
        let reply = Frame(direction: .deviceToHost, seq: 0, payload: DeviceMessage.encodePayload([
            .ack(Acknowledgement(nextSeq: 0, rxCtrl: identify.ctrl, rxSeq: identify.seq, rxTime: 10, credits: 8)),
            .identifyReply(identity),
        ]))
        harness.session.receive(reply.encode())
        XCTAssertEqual(harness.session.state, .failed(.unsupportedProtocol(version: ProtocolConstants.protocolVersion + 1)))
    }

    func testIdlePingsKeepSamplesFlowing() {
        var configuration = LinkConfiguration()
        configuration.startupProbing = .zero
        configuration.pingInterval = .milliseconds(250)
        let harness = LinkHarness(configuration: configuration)
        harness.connect()
        let before = harness.device.receivedFrames.count
        harness.run(for: .milliseconds(2_100))
        let pings = harness.device.receivedFrames.dropFirst(before)
        XCTAssertEqual(pings.count, 8, "one every 250 ms")
        XCTAssertTrue(pings.allSatisfy { $0.flags == .unseq && $0.payload == [0x02] })
        XCTAssertEqual(harness.session.clock.sampleCount, 9)
    }

    func testTheLinkProbesFastAfterConnectingThenAtTheIdleRate() {
        let harness = LinkHarness()  // defaults: 2 ms for 1 s, 10 ms up to 2 s, then 150 ms
        harness.connect()
        let connected = harness.clock.now()
        harness.run(for: .milliseconds(3_000))
        let times = harness.device.receivedTimes.filter { $0 > connected }.map { ($0 - connected).seconds }
        let dense = times.filter { $0 < 1 }, probing = times.filter { $0 > 1.01 && $0 < 2 }, late = times.filter { $0 > 2.1 }
        XCTAssertEqual(Double(dense.count), 1 / 0.002, accuracy: 3, "every 2 ms for the first second")
        XCTAssertEqual(Double(probing.count), 0.99 / 0.010, accuracy: 2, "every 10 ms for the rest of the probing")
        XCTAssertEqual(Double(late.count), 0.9 / 0.15, accuracy: 1, "every 150 ms afterwards")
        XCTAssertEqual(harness.session.configuration.startupProbing, .seconds(2))
        XCTAssertEqual(harness.session.configuration.denseProbing, .seconds(1))
    }

    func testASteadyPingIntervalKeepsProbingAfterTheStartupUntilCleared() {
        let harness = LinkHarness()
        harness.session.steadyPingInterval = .milliseconds(10)
        harness.connect()
        let connected = harness.clock.now()
        harness.run(for: .milliseconds(3_000))
        func pings(from a: Double, to b: Double) -> Int {
            harness.device.receivedTimes.filter { $0 > connected }.map { ($0 - connected).seconds }.filter { $0 > a && $0 < b }.count
        }
        XCTAssertEqual(Double(pings(from: 2.05, to: 3)), 0.95 / 0.010, accuracy: 2, "every 10 ms after the startup probing")
        harness.session.steadyPingInterval = nil
        harness.run(for: .milliseconds(1_000))
        XCTAssertEqual(Double(pings(from: 3.05, to: 4)), 0.95 / 0.15, accuracy: 1, "back to one per 150 ms")
        // Never slower than the configured idle pings.
        harness.session.steadyPingInterval = .seconds(1)
        harness.run(for: .milliseconds(1_000))
        XCTAssertEqual(Double(pings(from: 4.05, to: 5)), 0.95 / 0.15, accuracy: 1)
    }

    func testInvalidDevicePayloadIsIgnoredWhole() {
        let harness = LinkHarness()
        harness.connect()
        _ = harness.session.takeDeviceEvents()
        // A CRC-valid device frame whose payload lacks the leading ACK, and one with a bad message.
        harness.session.receive(Frame(direction: .deviceToHost, seq: 1, payload: DeviceMessage.encodePayload([
            .fault(FaultReport(code: 5, detail: 0)),
        ])).encode())
        harness.session.receive(Frame(direction: .deviceToHost, seq: 2, payload: DeviceMessage.encodePayload([
            .ack(Acknowledgement(nextSeq: 0, rxCtrl: 0, rxSeq: 0, rxTime: 0, credits: 8)),
            .fault(FaultReport(code: 5, detail: 0)),
        ]) + [0x77]).encode())
        XCTAssertEqual(harness.session.statistics.badPayloads, 2)
        XCTAssertEqual(harness.session.takeDeviceEvents(), [])
    }
}

enum FrameDecoderOnceHost {
    static func frames(_ bytes: [UInt8]) -> [Frame] {
        var decoder = FrameDecoder(direction: .hostToDevice)
        return decoder.push(bytes)
    }
}
