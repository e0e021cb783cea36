import ThrumTime
import ThrumWire
import XCTest

final class FrameDecoderTests: XCTestCase {
    private let segment = HostMessage.segment(SegmentCommand(start: 1000, duration: 5000, from: 0, to: 200, event: 3))

    func testFrameRoundTripEveryLengthAndFlag() {
        for length in 0...ProtocolConstants.maxPayload {
            for flags: FrameFlags in [[], .unseq, .resync] {
                let frame = Frame(
                    direction: .hostToDevice, flags: flags, seq: UInt8(length * 3 % 256),
                    payload: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) })
                let bytes = frame.encode()
                XCTAssertEqual(bytes.count, length + ProtocolConstants.frameOverhead)
                var decoder = FrameDecoder(direction: .hostToDevice)
                XCTAssertEqual(decoder.push(bytes), [frame])
                XCTAssertEqual(decoder.bufferedCount, 0)
                XCTAssertEqual(decoder.discardedBytes, 0)
            }
        }
    }

    func testOneByteAtATimeMatchesBulk() {
        var stream: [UInt8] = [0x00, 0x7E, 0x11]
        var frames: [Frame] = []
        for seq in 0..<20 {
            let f = Frame(direction: .deviceToHost, seq: UInt8(seq), payload: DeviceMessage.encodePayload([
                .ack(Acknowledgement(nextSeq: UInt8(seq), rxCtrl: 0xA0, rxSeq: UInt8(seq), rxTime: UInt32(seq) * 1000,
                                     credits: 8)),
            ]))
            frames.append(f)
            stream += f.encode()
            if seq % 3 == 0 { stream += [0x7E, 0x7E, 0x42] }
        }
        var decoder = FrameDecoder(direction: .deviceToHost)
        var found: [Frame] = []
        for byte in stream { found += decoder.push(CollectionOfOne(byte)) }
        XCTAssertEqual(found, frames)
        XCTAssertGreaterThan(decoder.discardedBytes, 0)
    }

    func testCorruptedFrameCountsAsBadAndNextIsFound() {
        var bad = Frame(direction: .hostToDevice, seq: 1, payload: segment.encode()).encode()
        bad[7] ^= 0x20
        let good = Frame(direction: .hostToDevice, flags: .unseq, seq: 9, payload: [0x02])
        var decoder = FrameDecoder(direction: .hostToDevice)
        XCTAssertEqual(decoder.push(bad + good.encode()), [good])
        XCTAssertEqual(decoder.badFrames, 1)
        XCTAssertEqual(decoder.discardedBytes, bad.count)
    }

    func testDeviceDecoderIgnoresEchoedHostFrames() {
        let echo = Frame(direction: .hostToDevice, seq: 0, payload: segment.encode()).encode()
        var decoder = FrameDecoder(direction: .deviceToHost)
        XCTAssertEqual(decoder.push(echo), [])
        XCTAssertEqual(decoder.badFrames, 0)
    }

    func testRandomGarbageNeverYieldsAFrameWithABadCRC() {
        var rng = SplitMix64(seed: 2024)
        var decoder = FrameDecoder(direction: .hostToDevice)
        var found = 0
        for _ in 0..<200_000 {
            // Bias toward sync and marker bytes so that plenty of candidate frames are examined.
            let r = rng.next() % 8
            let byte: UInt8 = r == 0 ? 0x7E : r == 1 ? 0xA0 : r == 2 ? UInt8(rng.next() % 8) : rng.u8()
            for frame in decoder.push([byte]) {
                found += 1
                XCTAssertTrue(frame.payload.count <= ProtocolConstants.maxPayload)
                XCTAssertEqual(frame.ctrl & 0xF0, 0xA0)
                XCTAssertEqual(frame.ctrl & 0x0C, 0)
                let bytes = frame.encode()
                XCTAssertEqual(CRC16.checksum(bytes[1...]), 0, "CRC residue of a valid MCRF4XX frame is 0")
            }
            XCTAssertLessThanOrEqual(decoder.bufferedCount, ProtocolConstants.maxFrame)
        }
        XCTAssertGreaterThan(decoder.badFrames, 100)
        XCTAssertLessThan(found, 20)
        // garbage implies arbitrary CRC starts, which almost never repeat
        XCTAssertLessThanOrEqual(decoder.foreignFrames, 2)
    }

    /// Frames of a session whose key the decoder does not hold (an earlier host's answers) fail
    /// its CRC check, yet each implies the same start: all but the first count as foreign.
    func testFramesOfAnotherSessionCountAsForeignNotAsGarbage() {
        let key = CRC16.sessionKey(0xA11CE)
        var decoder = FrameDecoder(direction: .deviceToHost)
        let acks = (0..<5).map { seq in
            Frame(direction: .deviceToHost, seq: UInt8(seq), payload: [UInt8](repeating: UInt8(seq), count: 9))
        }
        for frame in acks {
            let bytes = frame.encode(key: key)
            XCTAssertEqual(CRC16.impliedStart(of: UInt16(bytes[bytes.count - 2]) | UInt16(bytes[bytes.count - 1]) << 8, over: bytes[1..<(bytes.count - 2)]), key)
            XCTAssertEqual(decoder.push(bytes), [])
        }
        XCTAssertEqual(decoder.foreignFrames, 4)
        // a plain frame is still taken, and counts as nothing foreign
        XCTAssertEqual(decoder.push(acks[0].encode()).count, 1)
        XCTAssertEqual(decoder.foreignFrames, 4)
    }

    func testEveryTruncationOfAFrameThenAGoodFrame() {
        let first = Frame(direction: .hostToDevice, seq: 3, payload: HostMessage.encodePayload([segment, segment])).encode()
        let good = Frame(direction: .hostToDevice, flags: .unseq, seq: 4, payload: HostMessage.encodePayload([.ping]))
        // A truncated prefix followed by a good frame (and enough filler to settle any false start).
        for cut in 1..<first.count {
            var decoder = FrameDecoder(direction: .hostToDevice)
            var found = decoder.push(Array(first[..<cut]) + good.encode())
            found += decoder.push(Array(repeating: 0x00, count: ProtocolConstants.maxFrame))
            XCTAssertEqual(found, [good], "cut at \(cut)")
        }
    }
}
