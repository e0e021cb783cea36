import ThrumWire
import XCTest

/// Runs every golden vector of `firmware-protocol/vectors/wire-vectors.txt` (PROTOCOL.md §5).
final class WireVectorTests: XCTestCase {
    private func direction(_ column: String) -> Direction {
        switch column {
        case "h2d": return .hostToDevice
        case "d2h": return .deviceToHost
        default: fatalError("bad dir \(column)")
        }
    }

    private func parses(_ dir: Direction, _ payload: [UInt8]) -> Bool {
        switch dir {
        case .hostToDevice: return (try? HostMessage.parsePayload(payload)) != nil
        case .deviceToHost: return (try? DeviceMessage.parsePayload(payload)) != nil
        }
    }

    func testEveryVector() throws {
        let vectors = try VectorFile.load()
        XCTAssertGreaterThan(vectors.count, 100)
        var seenKinds: [String: Int] = [:]
        for v in vectors {
            seenKinds[v.kind, default: 0] += 1
            let c = v.columns
            let where_ = "line \(v.line) \(v.kind) \(v.name)"
            switch v.kind {
            case "crc":
                XCTAssertEqual(String(format4: CRC16.checksum(VectorFile.bytes(c[0]))), c[1], where_)
            case "uvarint":
                let value = UInt32(c[0])!
                XCTAssertEqual(VectorFile.hex(UVarint.encoded(value)), c[1], where_)
                XCTAssertEqual(try UVarint.decode(VectorFile.bytes(c[1])), value, where_)
                XCTAssertEqual(UVarint.encodedLength(value), VectorFile.bytes(c[1]).count, where_)
            case "badvarint":
                XCTAssertThrowsError(try UVarint.decode(VectorFile.bytes(c[0])), where_)
            case "message":
                let bytes = VectorFile.bytes(c[2])
                switch direction(c[0]) {
                case .hostToDevice:
                    let message = MessageText.hostMessage(c[1])
                    XCTAssertEqual(message.encode(), bytes, where_)
                    XCTAssertEqual(message.encodedLength, bytes.count, where_)
                    XCTAssertEqual(message.description, c[1], where_)
                    XCTAssertEqual(try HostMessage.parsePayload(bytes), [message], where_)
                case .deviceToHost:
                    let message = MessageText.deviceMessage(c[1])
                    XCTAssertEqual(message.encode(), bytes, where_)
                    XCTAssertEqual(message.description, c[1], where_)
                    XCTAssertEqual(try DeviceMessage.parsePayload(bytes), [message], where_)
                }
            case "badpayload":
                XCTAssertFalse(parses(direction(c[0]), VectorFile.bytes(c[1])), where_)
            case "frame":
                let dir = direction(c[0])
                let ctrl = UInt8(c[1], radix: 16)!
                let flags = FrameFlags(rawValue: ctrl & 0x0F)
                let frame = Frame(direction: dir, flags: flags, seq: UInt8(c[2])!, payload: VectorFile.bytes(c[3]))
                XCTAssertEqual(frame.ctrl, ctrl, where_)
                XCTAssertEqual(VectorFile.hex(frame.encode()), c[4], where_)
                var decoder = FrameDecoder(direction: dir)
                XCTAssertEqual(decoder.push(VectorFile.bytes(c[4])), [frame], where_)
                XCTAssertTrue(parses(dir, frame.payload), where_)
            case "stream":
                let dir = direction(c[0])
                let stream = VectorFile.bytes(c[1])
                let expected = c[2] == "-" ? [] : c[2].split(separator: ",").map { VectorFile.bytes(String($0)) }
                var whole = FrameDecoder(direction: dir)
                XCTAssertEqual(whole.push(stream).map(\.payload), expected, where_)
                var bytewise = FrameDecoder(direction: dir)
                let found = stream.flatMap { bytewise.push([$0]) }
                XCTAssertEqual(found.map(\.payload), expected, where_)
                XCTAssertEqual(whole.discardedBytes, bytewise.discardedBytes, where_)
                XCTAssertEqual(whole.badFrames, bytewise.badFrames, where_)
            case "sessionkey":
                XCTAssertEqual(String(format4: CRC16.sessionKey(UInt32(c[0])!)), c[1], where_)
            case "keyedframe":
                let dir = direction(c[0])
                let key = CRC16.sessionKey(UInt32(c[1])!)
                let ctrl = UInt8(c[2], radix: 16)!
                let frame = Frame(
                    direction: dir, flags: FrameFlags(rawValue: ctrl & 0x0F), seq: UInt8(c[3])!, payload: VectorFile.bytes(c[4]))
                XCTAssertEqual(VectorFile.hex(frame.encode(key: key)), c[5], where_)
                var plain = FrameDecoder(direction: dir)
                XCTAssertEqual(plain.push(VectorFile.bytes(c[5])), [], where_)
                var keyed = FrameDecoder(direction: dir)
                keyed.keys = [key]
                XCTAssertEqual(keyed.push(VectorFile.bytes(c[5])), [frame], where_)
                XCTAssertEqual(keyed.lastKeys, [key], where_)
                XCTAssertTrue(parses(dir, frame.payload), where_)
            default:
                XCTFail("unknown vector kind in \(where_)")
            }
        }
        for kind in ["crc", "uvarint", "badvarint", "message", "badpayload", "frame", "stream", "sessionkey", "keyedframe"] {
            XCTAssertGreaterThan(seenKinds[kind] ?? 0, 0, "no \(kind) vectors")
        }
    }
}

extension String {
    /// Four lowercase hex digits.
    init(format4 value: UInt16) {
        let digits = String(value, radix: 16)
        self = String(repeating: "0", count: 4 - digits.count) + digits
    }
}
