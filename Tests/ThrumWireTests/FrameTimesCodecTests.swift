import CThrumFirmware
import ThrumWire
import XCTest

/// FRAME_TIMES and FRAME_TIME (PROTOCOL.md §3.6, protocol version 3) in the Swift codec, and against
/// the C codec at every boundary of their ranges: both accept and refuse the same payloads.
final class FrameTimesCodecTests: XCTestCase {
    private func cAccepts(_ payload: [UInt8], direction: UInt8) -> Bool {
        payload.withUnsafeBufferPointer { thrum_payload_valid(direction, $0.baseAddress, $0.count) != 0 }
    }

    func testFrameTimesIsAnyLaneAndTakesNoSlot() {
        let message = HostMessage.frameTimes(intervalMilliseconds: 100)
        XCTAssertEqual(message.id, 0x1D)
        XCTAssertTrue(message.isAnyLane, "FRAME_TIMES travels in UNSEQ frames, like PING")
        XCTAssertEqual(message.queueSlots, 0)
        XCTAssertEqual(message.encode(), [0x1D, 0x64])
        XCTAssertEqual(message.description, "FRAME_TIMES interval_ms=100")
    }

    func testFrameTimesIntervalRangeAgreesWithTheFirmware() throws {
        for interval: UInt32 in [0, 1, 127, 128, 59_999, 60_000, 60_001, 65_535, 1 << 21, .max] {
            let message = HostMessage.frameTimes(intervalMilliseconds: interval)
            let payload = message.encode()
            XCTAssertEqual(payload.count, message.encodedLength)
            let valid = interval <= ProtocolConstants.frameTimesMaxIntervalMilliseconds
            XCTAssertEqual(cAccepts(payload, direction: UInt8(THRUM_DIR_H2D)), valid, "interval \(interval)")
            if valid {
                XCTAssertEqual(try HostMessage.parsePayload(payload), [message])
            } else {
                XCTAssertThrowsError(try HostMessage.parsePayload(payload)) {
                    XCTAssertEqual($0 as? WireError, .fieldOutOfRange(field: "interval_ms", value: interval))
                }
            }
        }
        XCTAssertThrowsError(try HostMessage.parsePayload([0x1D])) { XCTAssertEqual($0 as? WireError, .truncated) }
        XCTAssertThrowsError(try DeviceMessage.parsePayload([0x1D, 0x64])) {
            XCTAssertEqual($0 as? WireError, .unknownMessage(id: 0x1D, direction: .deviceToHost))
        }
    }

    func testFrameTimeEveryFrameNumberAgreesWithTheFirmware() throws {
        let ack = DeviceMessage.ack(Acknowledgement(nextSeq: 1, rxCtrl: 0xA1, rxSeq: 0, rxTime: 5000, credits: 32))
        for frame in UInt16(0)...UInt16(4096) {
            let report = FrameTimeReport(frame: frame, time: UInt32(frame) &* 1_000_003)
            let payload = DeviceMessage.encodePayload([ack, .frameTime(report)])
            let valid = frame <= ProtocolConstants.usbFrameMask
            XCTAssertEqual(cAccepts(payload, direction: UInt8(THRUM_DIR_D2H)), valid, "frame \(frame)")
            if valid {
                XCTAssertEqual(try DeviceMessage.parsePayload(payload), [ack, .frameTime(report)])
            } else {
                XCTAssertThrowsError(try DeviceMessage.parsePayload(payload)) {
                    XCTAssertEqual($0 as? WireError, .fieldOutOfRange(field: "frame", value: UInt32(frame)))
                }
            }
        }
    }

    func testFrameTimeEncodingAndTruncation() throws {
        let report = FrameTimeReport(frame: 2047, time: .max)
        let bytes = DeviceMessage.frameTime(report).encode()
        XCTAssertEqual(bytes, [0x4B, 0xFF, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(DeviceMessage.frameTime(report).id, ProtocolConstants.msgFrameTime)
        XCTAssertEqual(DeviceMessage.frameTime(report).description, "FRAME_TIME frame=2047 time=4294967295")
        for cut in 1..<bytes.count {
            XCTAssertThrowsError(try DeviceMessage.parsePayload(Array(bytes.prefix(cut)))) {
                XCTAssertEqual($0 as? WireError, .truncated, "cut at \(cut)")
            }
            XCTAssertFalse(cAccepts(Array(bytes.prefix(cut)), direction: UInt8(THRUM_DIR_D2H)))
        }
        XCTAssertThrowsError(try HostMessage.parsePayload(bytes)) {
            XCTAssertEqual($0 as? WireError, .unknownMessage(id: 0x4B, direction: .hostToDevice))
        }
    }
}
