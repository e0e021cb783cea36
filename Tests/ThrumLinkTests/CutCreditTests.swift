import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

/// A CUT frees the slots of the queued SEGMENTs it removes (PROTOCOL.md §2.4); the host counts
/// them back at once, so the replacement drive goes out behind the CUT without waiting for the
/// CUT's ACK (which a serial bridge's latency timer can hold for 16 ms).
final class CutCreditTests: XCTestCase {
    private func segments(in frame: Frame) -> [SegmentCommand] {
        ((try? HostMessage.parsePayload(frame.payload)) ?? []).compactMap { if case .segment(let s) = $0 { s } else { nil } }
    }

    func testReplacementAfterACutGoesOutBeforeTheCutsAck() throws {
        let device = FakeDevice(queueSlots: 4)
        let harness = LinkHarness(device: device)
        harness.connect()
        guard case .connected = harness.session.state else { return XCTFail("not connected") }
        harness.deviceToHostDelay = .milliseconds(16)  // the bridge holds every ACK back
        let base = harness.session.clock.deviceTime32(at: harness.now + .milliseconds(200)).rawValue
        for i in 0..<4 {
            harness.session.send(.segment(SegmentCommand(start: base + UInt32(i) * 10_000, duration: 10_000, from: 200, to: 200)))
        }
        harness.run(for: .milliseconds(2))
        let framed = device.receivedFrames.flatMap(segments(in:))
        XCTAssertEqual(framed.count, 4, "the four credits are spent")

        // Replace drive from the third segment on: two segments removed, two new ones sent.
        let cutAt = base + 20_000
        harness.session.send(.cut(at: cutAt))
        harness.session.send(.segment(SegmentCommand(start: cutAt, duration: 10_000, from: 100, to: 100)))
        harness.session.send(.segment(SegmentCommand(start: cutAt + 10_000, duration: 10_000, from: 100, to: 100)))
        let sent = harness.now
        harness.run(for: .milliseconds(3))
        let cutIndex = try XCTUnwrap(
            device.receivedFrames.firstIndex { frame in
                ((try? HostMessage.parsePayload(frame.payload)) ?? []).contains { if case .cut = $0 { true } else { false } }
            })
        XCTAssertLessThan(device.receivedTimes[cutIndex] - sent, .milliseconds(3))
        let replacement = device.receivedFrames[cutIndex...].flatMap(segments(in:))
        XCTAssertEqual(replacement.map(\.from), [100, 100], "both replacements arrived within 3 ms, long before any ACK")
        XCTAssertEqual(device.flowControlRejections, 0, "the slots the CUT freed were really free")
        XCTAssertEqual(device.cuts, 1)
    }

    func testACutThatRemovesNothingFreesNothing() {
        let device = FakeDevice(queueSlots: 2)
        let harness = LinkHarness(device: device)
        harness.connect()
        harness.deviceToHostDelay = .milliseconds(16)
        let base = harness.session.clock.deviceTime32(at: harness.now + .milliseconds(200)).rawValue
        for i in 0..<2 {
            harness.session.send(.segment(SegmentCommand(start: base + UInt32(i) * 10_000, duration: 10_000, from: 200, to: 200)))
        }
        harness.run(for: .milliseconds(2))
        // A CUT after every queued entry removes none: the next SEGMENT must wait for credits.
        harness.session.send(.cut(at: base + 50_000))
        harness.session.send(.segment(SegmentCommand(start: base + 50_000, duration: 10_000, from: 100, to: 100)))
        harness.run(for: .milliseconds(3))
        XCTAssertEqual(device.receivedFrames.flatMap(segments(in:)).count, 2, "no credit, no segment")
        XCTAssertEqual(device.cuts, 1, "the CUT itself needs no credit")
        harness.run(for: .milliseconds(40))
        XCTAssertEqual(device.flowControlRejections, 0)
    }

    func testAStopForgetsWhatACutCouldFree() {
        let device = FakeDevice(queueSlots: 2)
        let harness = LinkHarness(device: device)
        harness.connect()
        harness.deviceToHostDelay = .milliseconds(16)
        let base = harness.session.clock.deviceTime32(at: harness.now + .milliseconds(200)).rawValue
        for i in 0..<2 {
            harness.session.send(.segment(SegmentCommand(start: base + UInt32(i) * 10_000, duration: 10_000, from: 200, to: 200)))
        }
        harness.run(for: .milliseconds(2))
        harness.session.discardQueuedSegments()
        harness.session.sendImmediately(.stop)
        harness.run(for: .milliseconds(1))
        // The STOP emptied the device queue; its ACK is on the way. A CUT now removes nothing and
        // must not be counted as freeing the two segments the STOP already removed.
        harness.session.send(.cut(at: base))
        for i in 0..<3 {
            harness.session.send(.segment(SegmentCommand(start: base + UInt32(i) * 10_000, duration: 10_000, from: 90, to: 90)))
        }
        harness.run(for: .milliseconds(100))
        XCTAssertEqual(device.flowControlRejections, 0)
        XCTAssertEqual(device.receivedFrames.flatMap(segments(in:)).filter { $0.from == 90 }.count, 2, "two slots, two segments")
    }
}
