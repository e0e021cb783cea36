import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

/// The compact stream's encoder against a model of the device written from PROTOCOL.md §3.4 (the
/// cursor, the shape table, the expansion of PLAY_SHAPE and FOLLOW): whatever the segments, the
/// device queues exactly them, with the same events, and transients repeat as PLAY_SHAPE alone.
final class CompactStreamEncoderTests: XCTestCase {
    /// The device side of §3.4, independently of the encoder.
    struct DeviceModel {
        var start: UInt32 = 0, end: UInt32 = 0, to: UInt8 = 0, event: UInt32 = 0
        var shapes: [UInt8: [StreamRamp]] = [:]
        var queued: [SegmentCommand] = []

        mutating func queue(_ s: SegmentCommand) {
            queued.append(s)
            start = s.start
            end = s.start &+ s.duration
            to = s.to
            if s.event != 0 { event = s.event }
        }

        mutating func run(_ payload: [UInt8]) throws {
            for message in try HostMessage.parsePayload(payload) {
                switch message {
                case .segment(let s): queue(s)
                case .cut(let at): (start, end, to) = (at, at, 0)
                case .stream(.shape(let id, let data)): shapes[id] = try StreamShape.decode(data)
                case .stream(.next(let after, let id)):
                    try run(HostMessage.stream(.play(after: after, shape: id, event: 1)).encode())
                case .stream(.play(let after, let id, let delta)):
                    let ramps = try XCTUnwrap(shapes[id], "PLAY_SHAPE of undefined shape \(id)")
                    var t = start &+ after
                    let event = delta == 0 ? 0 : event &+ delta
                    for (k, r) in ramps.enumerated() {
                        t = t &+ r.gap
                        queue(SegmentCommand(start: t, duration: r.duration, from: r.from, to: r.to, event: k == 0 ? event : 0))
                        t = t &+ r.duration
                    }
                case .stream(.follow(let gap, let delta, let data)):
                    var t = end &+ gap
                    var from = gap == 0 ? to : 0
                    let first = delta == 0 ? 0 : event &+ delta
                    for (k, p) in try StreamShape.decodeFollow(data).enumerated() {
                        let marks = k == 0 ? first : p.marked ? event &+ 1 : 0
                        queue(SegmentCommand(start: t, duration: p.duration, from: from, to: p.to, event: marks))
                        t = t &+ p.duration
                        from = p.to
                    }
                default:
                    XCTFail("unexpected \(message)")
                }
            }
        }
    }

    /// A transient: a marked ramp up from 0 and two down to 0.
    func transient(at t: UInt32, event: UInt32, peak: UInt8 = 255) -> [SegmentCommand] {
        [
            SegmentCommand(start: t, duration: 1_430, from: 0, to: peak, event: event),
            SegmentCommand(start: t + 1_430, duration: 4_000, from: peak, to: peak / 2, event: 0),
            SegmentCommand(start: t + 5_430, duration: 5_500, from: peak / 2, to: 0, event: 0),
        ]
    }

    func testTransientsAreDefinedOnceThenPlayedInSixBytes() throws {
        var encoder = CompactStreamEncoder()
        var device = DeviceModel()
        // the first entry of a connection is absolute (the cursor is unknown until it)
        // (and a relative event needs a marked entry of this connection before it)
        var segments = [SegmentCommand(start: 900_000, duration: 1_000, from: 0, to: 0, event: 100)]
        for k in 0..<20 { segments += transient(at: 1_000_000 + UInt32(k) * 150_000, event: UInt32(k + 101), peak: k % 2 == 0 ? 255 : 120) }
        let payloads = encoder.pack(segments)
        for p in payloads { try device.run(p) }
        XCTAssertEqual(device.queued, segments)
        XCTAssertEqual(encoder.shapesDefined, 2)
        XCTAssertEqual(encoder.segmentsAsSegment, 1, "only the first entry after connecting is absolute")
        XCTAssertEqual(encoder.segmentsAsShapes, 60)
        let messages = try payloads.flatMap { try HostMessage.parsePayload($0) }
        let plays = messages.filter { if case .stream(.next) = $0 { true } else { false } }
        XCTAssertEqual(plays.count, 20, "each transient one NEXT_SHAPE")
        XCTAssertTrue(plays.allSatisfy { $0.encodedLength <= 5 }, "\(plays)")
        let bytes = payloads.reduce(0) { $0 + $1.count + ProtocolConstants.frameOverhead }
        XCTAssertLessThanOrEqual(Double(bytes) / 20, 8, "bytes per transient, framing and shapes included")
    }

    func testContinuousRampsFollowOnInAboutThreeBytes() throws {
        var encoder = CompactStreamEncoder()
        var device = DeviceModel()
        var segments = [SegmentCommand(start: 500_000, duration: 2_000, from: 0, to: 0, event: 7)]
        var t: UInt32 = 600_000
        var level: UInt8 = 0
        for k in 0..<200 {
            let to = UInt8(20 + (k * 37) % 200)
            segments.append(SegmentCommand(start: t, duration: 2_000 + UInt32(k % 5) * 500, from: level, to: to, event: k == 0 ? 8 : 0))
            t += segments.last!.duration
            level = to
        }
        let payloads = encoder.pack(segments)
        for p in payloads { try device.run(p) }
        XCTAssertEqual(device.queued, segments)
        XCTAssertEqual(encoder.segmentsAsFollow, 200)
        let bytes = payloads.reduce(0) { $0 + $1.count + ProtocolConstants.frameOverhead }
        XCTAssertLessThanOrEqual(Double(bytes) / 200, 4)
    }

    /// Random drive: overlaps, gaps, marked ramps not from 0, repeated and out-of-order event ids,
    /// CUTs and ROM effects framed in between, shape-table eviction; the device queues exactly it.
    func testRandomDriveExpandsToTheSameSegments() throws {
        var rng = SplitMix64(seed: 9)
        for round in 0..<40 {
            var encoder = CompactStreamEncoder()
            var device = DeviceModel()
            var expected: [SegmentCommand] = []
            var t = UInt32.max - 3_000_000 + UInt32(round) * 1_000  // crosses the 32-bit wrap
            var event: UInt32 = 0
            for _ in 0..<60 {
                var batch: [SegmentCommand] = []
                for _ in 0..<Int(rng.next() % 12) {
                    switch rng.next() % 6 {
                    case 0:
                        t &+= UInt32(rng.next() % 200_000)
                        event = rng.next() % 7 == 0 ? event : event &+ UInt32(1 + rng.next() % 3)
                        batch += transient(at: t, event: event, peak: UInt8(rng.next() % 4) * 60 + 15)
                        t &+= 10_930
                    case 1:
                        let d = UInt32(1 + rng.next() % 30_000)
                        let previous = batch.last ?? expected.last
                        let from = rng.next() % 2 == 0 ? previous?.to ?? 0 : UInt8(rng.next() % 256)
                        batch.append(SegmentCommand(start: t, duration: d, from: from, to: UInt8(rng.next() % 256), event: 0))
                        t &+= rng.next() % 3 == 0 ? d / 2 : d  // sometimes taken over halfway
                    case 2:
                        event &+= 1
                        batch.append(SegmentCommand(start: t, duration: UInt32(1 + rng.next() % 5_000), from: UInt8(rng.next() % 256), to: 0, event: event))
                    case 3:
                        t &+= UInt32(rng.next() % 3_000_000)
                    default:
                        let d = UInt32(1 + rng.next() % 3_000)
                        batch.append(SegmentCommand(start: t, duration: d, from: UInt8(rng.next() % 256), to: UInt8(rng.next() % 256), event: 0))
                        t &+= d
                    }
                }
                expected += batch
                for p in encoder.pack(batch) { try device.run(p) }
                // now and then something framed as it is: a CUT at the last start, or a ROM effect
                if rng.next() % 5 == 0 {
                    let at = expected.last?.start ?? t
                    encoder.note(.cut(at: at))
                    try device.run(HostMessage.cut(at: at).encode())
                }
            }
            XCTAssertEqual(device.queued.count, expected.count, "round \(round)")
            for (a, b) in zip(device.queued, expected) where a != b {
                XCTFail("round \(round): device queued \(a), the host meant \(b)")
                break
            }
        }
    }

    /// After a reconnect nothing of the old connection is assumed: not the cursor, not the event,
    /// not the shapes (the device may or may not have reset).
    func testResetForgetsTheDeviceState() throws {
        var encoder = CompactStreamEncoder()
        var segments = [SegmentCommand(start: 90_000, duration: 1_000, from: 0, to: 0, event: 10)]
        segments += transient(at: 100_000, event: 11)
        _ = encoder.pack(segments)
        XCTAssertEqual(encoder.shapesDefined, 1)
        encoder.reset()
        // a CUT gives the cursor back, not the event: the marked head goes out absolute
        encoder.note(.cut(at: 200_000))
        let payloads = encoder.pack(transient(at: 300_000, event: 12) + transient(at: 400_000, event: 13))
        let messages = try payloads.flatMap { try HostMessage.parsePayload($0) }
        guard case .segment(let first) = messages.first else { return XCTFail("\(messages)") }
        XCTAssertEqual(first.event, 12)
        XCTAssertEqual(encoder.shapesDefined, 2, "the shape is defined again on the new connection")
        var device = DeviceModel()
        device.event = 99  // whatever the device kept from before
        device.shapes[0] = [StreamRamp(gap: 0, duration: 5, from: 1, to: 2)]
        try device.run(HostMessage.cut(at: 200_000).encode())
        for p in payloads { try device.run(p) }
        XCTAssertEqual(device.queued, transient(at: 300_000, event: 12) + transient(at: 400_000, event: 13))
    }

    func testManyShapesEvictTheLeastRecentlyPlayed() throws {
        var encoder = CompactStreamEncoder()
        var device = DeviceModel()
        var segments = [SegmentCommand(start: 90_000, duration: 1_000, from: 0, to: 0, event: 1000)]
        // 70 different transients, then the first again: it was evicted and is defined anew
        for k in 0..<70 { segments += transient(at: 100_000 + UInt32(k) * 20_000, event: UInt32(k + 1001), peak: UInt8(k + 100)) }
        segments += transient(at: 100_000 + 70 * 20_000, event: 1071, peak: 100)
        for p in encoder.pack(segments) { try device.run(p) }
        XCTAssertEqual(device.queued, segments)
        XCTAssertEqual(encoder.shapesDefined, 71)
        XCTAssertLessThanOrEqual(device.shapes.count, Int(ProtocolConstants.streamShapes))
    }
}
