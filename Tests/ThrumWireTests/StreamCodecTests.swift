import CThrumFirmware
import ThrumTime
import ThrumWire
import XCTest

/// The compact stream's messages (PROTOCOL.md §3.4) in the Swift codec, and against the C codec:
/// random SHAPE, PLAY_SHAPE, NEXT_SHAPE and FOLLOW messages round-trip, and for payloads made of
/// them with random bytes changed, the Swift parser accepts exactly what the firmware's does.
final class StreamCodecTests: XCTestCase {
    private func randomRamps(_ rng: inout SplitMix64) -> [StreamRamp] {
        var ramps: [StreamRamp] = []
        var bytes = 1
        var previousTo: UInt8 = 0
        for _ in 0..<(1 + Int(rng.next() % 10)) {
            let ramp = StreamRamp(
                gap: rng.next() % 3 == 0 ? UInt32(rng.next() % 100_000) : 0, duration: 1 + UInt32(rng.next() % 1_000_000),
                from: rng.next() % 2 == 0 ? previousTo : UInt8(truncatingIfNeeded: rng.next()), to: UInt8(truncatingIfNeeded: rng.next()))
            let more = StreamShape.encodedLength(ramp, previousTo: previousTo)
            if bytes + more > ProtocolConstants.streamShapeBytes { break }
            ramps.append(ramp)
            bytes += more
            previousTo = ramp.to
        }
        return ramps
    }

    private func randomMessage(_ rng: inout SplitMix64) -> HostMessage {
        switch rng.next() % 4 {
        case 0:
            let ramps = randomRamps(&rng)
            let data = StreamShape.encode(ramps)
            XCTAssertEqual(try StreamShape.decode(data), ramps)
            XCTAssertEqual(data.count, 1 + zip(ramps, [UInt8(0)] + ramps.map(\.to)).reduce(0) { $0 + StreamShape.encodedLength($1.0, previousTo: $1.1) })
            return .stream(.shape(id: UInt8(rng.next() % 64), data: data))
        case 1:
            return .stream(.play(after: UInt32(truncatingIfNeeded: rng.next()), shape: UInt8(rng.next() % 64), event: UInt32(rng.next() % 3)))
        case 2:
            return .stream(.next(after: UInt32(truncatingIfNeeded: rng.next() >> UInt64(rng.next() % 32)), shape: UInt8(rng.next() % 64)))
        default:
            let event = UInt32(rng.next() % 2)
            let pairs = (0..<(1 + Int(rng.next() % 8))).map { k in
                (duration: 1 + UInt32(rng.next() % 1_000_000), to: UInt8(truncatingIfNeeded: rng.next()),
                 marked: (k > 0 || event == 0) && rng.next() % 3 == 0)
            }
            let data = StreamShape.encodeFollow(pairs)
            let back = try? StreamShape.decodeFollow(data)
            XCTAssertEqual(back?.map(\.duration), pairs.map(\.duration))
            XCTAssertEqual(back?.map(\.marked), pairs.map(\.marked))
            return .stream(.follow(gap: UInt32(rng.next() % 70_000), event: event, data: data))
        }
    }

    /// The C codec's verdict on a host payload.
    private func cAccepts(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBufferPointer { thrum_payload_valid(UInt8(THRUM_DIR_H2D), $0.baseAddress, $0.count) != 0 }
    }

    func testRandomStreamMessagesRoundTripAndAgreeWithTheFirmware() throws {
        var rng = SplitMix64(seed: 0x5742)
        var rejected = 0
        for _ in 0..<3_000 {
            var payload: [UInt8] = []
            var messages: [HostMessage] = []
            while messages.count < 3 {
                let m = randomMessage(&rng)
                if payload.count + m.encodedLength > ProtocolConstants.maxPayload { break }
                m.encode(into: &payload)
                messages.append(m)
            }
            XCTAssertEqual(try HostMessage.parsePayload(payload), messages)
            XCTAssertTrue(cAccepts(payload), "C refuses \(messages)")
            // change one to three bytes: both codecs agree on whether it still parses
            var bad = payload
            for _ in 0..<(1 + Int(rng.next() % 3)) where !bad.isEmpty {
                bad[Int(rng.next() % UInt64(bad.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            if rng.next() % 4 == 0, !bad.isEmpty { bad.removeLast(1 + Int(rng.next() % UInt64(min(bad.count, 4)))) }
            let swift = (try? HostMessage.parsePayload(bad)) != nil
            XCTAssertEqual(swift, cAccepts(bad), "payload \(bad.map { String($0, radix: 16) })")
            if !swift { rejected += 1 }
        }
        XCTAssertGreaterThan(rejected, 500, "the mutations reach the rules")
    }
}
