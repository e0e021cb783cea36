import CThrumFirmware
import ThrumWire
import XCTest

/// DEPARTURE (PROTOCOL.md §3.7, protocol version 4) in the Swift codec, and against the C codec at
/// every boundary of its range: both accept and refuse the same payloads.
final class DepartureCodecTests: XCTestCase {
    private func cAccepts(_ payload: [UInt8], direction: UInt8) -> Bool {
        payload.withUnsafeBufferPointer { thrum_payload_valid(direction, $0.baseAddress, $0.count) != 0 }
    }

    private let ack = DeviceMessage.ack(Acknowledgement(nextSeq: 1, rxCtrl: 0xA1, rxSeq: 0, rxTime: 5000, credits: 32))

    func testDepartureIdLayoutAndText() {
        let message = DeviceMessage.departure(DepartureReport(rxTime: 5000, wait: 850))
        XCTAssertEqual(message.id, 0x4C)
        XCTAssertEqual(message.id, ProtocolConstants.msgDeparture)
        XCTAssertEqual(message.encode(), [0x4C, 0x88, 0x13, 0x00, 0x00, 0xD2, 0x06])
        XCTAssertEqual(message.description, "DEPARTURE rx_time=5000 wait=850")
        XCTAssertGreaterThanOrEqual(ProtocolConstants.protocolVersion, 4)
        XCTAssertEqual(ProtocolConstants.departureMaxWait, 1_000_000)
    }

    func testDepartureWaitRangeAgreesWithTheFirmware() throws {
        let waits: [UInt32] = [
            0, 1, 127, 128, 16_383, 16_384, 999_999, 1_000_000, 1_000_001, 1 << 21, 1 << 28, .max,
        ]
        for wait in waits {
            for rxTime: UInt32 in [0, 5000, .max - 99, .max] {
                let report = DepartureReport(rxTime: rxTime, wait: wait)
                let payload = DeviceMessage.encodePayload([ack, .departure(report)])
                let valid = wait <= ProtocolConstants.departureMaxWait
                XCTAssertEqual(
                    cAccepts(payload, direction: UInt8(THRUM_DIR_D2H)), valid, "rx_time \(rxTime) wait \(wait)")
                if valid {
                    XCTAssertEqual(try DeviceMessage.parsePayload(payload), [ack, .departure(report)])
                } else {
                    XCTAssertThrowsError(try DeviceMessage.parsePayload(payload)) {
                        XCTAssertEqual($0 as? WireError, .fieldOutOfRange(field: "wait", value: wait))
                    }
                }
            }
        }
    }

    func testDepartureTruncationAndDirection() throws {
        let report = DepartureReport(rxTime: .max, wait: ProtocolConstants.departureMaxWait)
        let bytes = DeviceMessage.departure(report).encode()
        XCTAssertEqual(bytes, [0x4C, 0xFF, 0xFF, 0xFF, 0xFF, 0xC0, 0x84, 0x3D])
        XCTAssertEqual(try DeviceMessage.parsePayload(bytes), [.departure(report)])
        for cut in 1..<bytes.count {
            let prefix = Array(bytes.prefix(cut))
            XCTAssertThrowsError(try DeviceMessage.parsePayload(prefix), "\(cut) bytes") {
                XCTAssertEqual($0 as? WireError, .truncated, "\(cut) bytes")
            }
            XCTAssertFalse(cAccepts(prefix, direction: UInt8(THRUM_DIR_D2H)), "\(cut) bytes")
        }
        // a device message: no host id 0x4C
        XCTAssertThrowsError(try HostMessage.parsePayload(bytes)) {
            XCTAssertEqual($0 as? WireError, .unknownMessage(id: 0x4C, direction: .hostToDevice))
        }
        XCTAssertFalse(cAccepts(bytes, direction: UInt8(THRUM_DIR_H2D)))
    }

    /// As the device sends it: behind the ACK, and behind a FRAME_TIME when one goes too.
    func testDepartureBehindAckAndFrameTime() throws {
        let frameTime = DeviceMessage.frameTime(FrameTimeReport(frame: 1234, time: 123_456_789))
        let departure = DeviceMessage.departure(DepartureReport(rxTime: 4200, wait: 850))
        for messages in [[ack, departure], [ack, frameTime, departure]] {
            let payload = DeviceMessage.encodePayload(messages)
            XCTAssertTrue(cAccepts(payload, direction: UInt8(THRUM_DIR_D2H)))
            XCTAssertEqual(try DeviceMessage.parsePayload(payload), messages)
        }
    }
}
