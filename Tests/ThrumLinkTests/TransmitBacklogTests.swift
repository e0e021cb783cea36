import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

/// What the host puts in front of its own next frame on a serial line, and the outbound delay
/// bound net of each sample's own bytes.
final class TransmitBacklogTests: XCTestCase {
    private func samples(byteTime: Double, floor: Double, count: Int) -> [ClockSample] {
        // A UART link: each sample's frame leaves after `bytes` × byteTime, plus a fixed floor;
        // the return leg is 2 ms. Device clock = host µs + 1 s.
        (0..<count).map { i in
            let send = 1_000_000.0 + Double(i) * 20_000
            let bytes = [12, 30, 61, 150][i % 4]
            let arrival = send + floor + byteTime * Double(bytes)
            return ClockSample(
                hostSend: HostTime(nanoseconds: Int64(send * 1_000)), hostReceive: HostTime(nanoseconds: Int64((arrival + 2_000) * 1_000)),
                deviceReceive: DeviceTime(microseconds: Int64(arrival) + 1_000_000), outboundBytes: bytes)
        }
    }

    func testOutboundBoundWithoutOwnBytesIsTheFixedPart() throws {
        var model = ClockModel()
        for s in samples(byteTime: 86.8, floor: 500, count: 200) { model.addSample(s) }
        XCTAssertEqual(model.byteTimeMicros, 86.8, accuracy: 3)
        let whole = try XCTUnwrap(model.outboundDelayBound())
        let fixed = try XCTUnwrap(model.outboundDelayBound(excludingOwnBytes: true))
        // The whole bound carries the longest writes' serialisation (150 B ≈ 13 ms); the fixed part
        // does not, and still covers the true floor (it also carries the bracket's width).
        XCTAssertGreaterThan(whole, .milliseconds(12))
        XCTAssertLessThan(fixed, .milliseconds(4))
        XCTAssertGreaterThanOrEqual(fixed, .microseconds(450))
    }

    func testDefaultBoundIsKeptPerSampleAndEqualsAFreshComputation() throws {
        // The default bound is computed when a sample arrives (a sender asks on every wake);
        // asking with a window wider than the 64 samples it covers computes it afresh.
        var model = ClockModel()
        XCTAssertNil(model.outboundDelayBound())
        for (i, s) in samples(byteTime: 86.8, floor: 500, count: 60).enumerated() {
            model.addSample(s)
            for excluding in [false, true] {
                let kept = try XCTUnwrap(model.outboundDelayBound(excludingOwnBytes: excluding), "sample \(i)")
                let fresh = try XCTUnwrap(model.outboundDelayBound(quantile: 0.95, last: 65, excludingOwnBytes: excluding))
                XCTAssertEqual(kept, fresh, "sample \(i), excluding own bytes: \(excluding)")
            }
        }
    }

    func testBacklogDrainsAtTheLearntByteTime() throws {
        let device = FakeDevice(queueSlots: 64)
        let harness = LinkHarness(device: device)
        harness.hostToDeviceByteTime = HostDuration(nanoseconds: 86_800)  // 115 200 baud, 8N1
        harness.deviceToHostDelay = .milliseconds(2)
        harness.connect()
        // Writes of different sizes teach the model the byte time.
        // Segments that end at once, so the device's queue never fills.
        func now32() -> UInt32 { harness.session.clock.deviceTime32(at: harness.now).rawValue }
        for round in 0..<200 {
            for k in 0..<(round % 4) {
                harness.session.send(.segment(SegmentCommand(start: now32() &+ UInt32(k), duration: 5, from: 0, to: 0)))
            }
            harness.run(for: .milliseconds(25))
        }
        XCTAssertEqual(harness.session.clock.byteTimeMicros, 86.8, accuracy: 12)
        XCTAssertEqual(harness.session.transmitBacklog, .zero, "everything written has drained")
        for k in 0..<12 {
            harness.session.send(.segment(SegmentCommand(start: now32() &+ UInt32(k), duration: 5, from: 0, to: 0)))
        }
        let before = harness.session.statistics.bytesSent
        harness.run(for: .microseconds(1))
        let written = harness.session.statistics.bytesSent - before
        XCTAssertGreaterThan(written, 100)
        let expected = harness.session.clock.byteTimeMicros * Double(written)
        XCTAssertEqual(harness.session.transmitBacklog.microseconds, expected, accuracy: 5, "the burst's bytes, less the 1 µs gone")
        harness.run(for: .milliseconds(5))
        XCTAssertEqual(harness.session.transmitBacklog.microseconds, max(0, expected - 5_001), accuracy: 5)
    }
}
