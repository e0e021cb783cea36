import ThrumTime
import ThrumWire
import XCTest

final class CodecTests: XCTestCase {
    func testCRCCheckValue() {
        XCTAssertEqual(CRC16.checksum(Array("123456789".utf8)), ProtocolConstants.crcCheck)
    }

    func testVarintRoundTripAcrossBoundaries() throws {
        var values: [UInt32] = [0, .max, .max - 1]
        for shift in stride(from: 7, through: 28, by: 7) {
            values += [(1 << UInt32(shift)) - 1, 1 << UInt32(shift), (1 << UInt32(shift)) + 1]
        }
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 { values.append(UInt32(truncatingIfNeeded: rng.next() >> UInt64(rng.next() % 32))) }
        for value in values {
            let bytes = UVarint.encoded(value)
            XCTAssertEqual(bytes.count, UVarint.encodedLength(value))
            XCTAssertEqual(try UVarint.decode(bytes), value)
            XCTAssertEqual(bytes.last! & 0x80, 0)
        }
    }

    func testVarintErrorsAreTyped() {
        XCTAssertThrowsError(try UVarint.decode([0x80, 0x00])) { XCTAssertEqual($0 as? WireError, .varintOverlong) }
        XCTAssertThrowsError(try UVarint.decode([0x80])) { XCTAssertEqual($0 as? WireError, .truncated) }
        XCTAssertThrowsError(try UVarint.decode([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])) {
            XCTAssertEqual($0 as? WireError, .varintTooLong)
        }
        XCTAssertThrowsError(try UVarint.decode([0xFF, 0xFF, 0xFF, 0xFF, 0x10])) {
            XCTAssertEqual($0 as? WireError, .varintOverflow)
        }
        XCTAssertThrowsError(try UVarint.decode([0x01, 0x01])) { XCTAssertEqual($0 as? WireError, .trailingBytes) }
    }

    func testPayloadErrorsAreTyped() {
        XCTAssertThrowsError(try HostMessage.parsePayload([0x40])) {
            XCTAssertEqual($0 as? WireError, .unknownMessage(id: 0x40, direction: .hostToDevice))
        }
        XCTAssertThrowsError(try DeviceMessage.parsePayload([0x01])) {
            XCTAssertEqual($0 as? WireError, .unknownMessage(id: 0x01, direction: .deviceToHost))
        }
        let zeroDuration = HostMessage.segment(SegmentCommand(start: 5, duration: 0, from: 0, to: 1)).encode()
        XCTAssertThrowsError(try HostMessage.parsePayload(zeroDuration)) {
            XCTAssertEqual($0 as? WireError, .fieldOutOfRange(field: "duration", value: 0))
        }
        XCTAssertThrowsError(try HostMessage.parsePayload([0x05, 1, 2])) { XCTAssertEqual($0 as? WireError, .truncated) }
    }

    func testRandomMessagesRoundTrip() throws {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<500 {
            var host: [HostMessage] = []
            var device: [DeviceMessage] = [.ack(Acknowledgement(
                nextSeq: rng.u8(), rxCtrl: rng.u8(), rxSeq: rng.u8(), rxTime: rng.u32(), credits: rng.u32()))]
            for _ in 0..<Int(rng.next() % 4) {
                switch rng.next() % 7 {
                case 0: host.append(.identify)
                case 1: host.append(.stop)
                case 5: host.append(.cut(at: rng.u32()))
                case 6: host.append(.configureSampleTime(code: rng.u8()))
                case 2: host.append(.configureDriver(DriverConfiguration(
                    ratedVoltage: rng.u8(), odClamp: rng.u8(), driveTime: rng.u8(), olLraPeriod: rng.u8())))
                default: host.append(.segment(SegmentCommand(
                    start: rng.u32(), duration: 1 + rng.u32() % 1_000_000, from: rng.u8(), to: rng.u8(),
                    event: rng.u32())))
                }
                switch rng.next() % 3 {
                case 0: device.append(.onset(OnsetReport(event: rng.u32(), time: rng.u32(), status: rng.u8() % 3)))
                case 1: device.append(.fault(FaultReport(code: rng.u32() % 7, detail: rng.u32())))
                default: device.append(.identifyReply(DeviceIdentity(
                    protocolVersion: 0, fwMajor: rng.u32(), fwMinor: rng.u32(), fwPatch: rng.u32(),
                    deviceId: rng.u32(), clockHz: 1_000_000, queueSlots: rng.u32() % 64, rxBuffer: 256,
                    maxPayload: 58, driverId: 7)))
                }
            }
            XCTAssertEqual(try HostMessage.parsePayload(HostMessage.encodePayload(host)), host)
            XCTAssertEqual(try DeviceMessage.parsePayload(DeviceMessage.encodePayload(device)), device)
            XCTAssertEqual(HostMessage.encodePayload(host).count, host.reduce(0) { $0 + $1.encodedLength })
        }
    }

    func testAnyLane() {
        XCTAssertTrue(HostMessage.identify.isAnyLane)
        XCTAssertTrue(HostMessage.ping.isAnyLane)
        XCTAssertTrue(HostMessage.stop.isAnyLane)
        XCTAssertFalse(HostMessage.segment(SegmentCommand(start: 0, duration: 1, from: 0, to: 0)).isAnyLane)
        XCTAssertFalse(HostMessage.configureDriver(
            DriverConfiguration(ratedVoltage: 0, odClamp: 0, driveTime: 0, olLraPeriod: 0)).isAnyLane)
        XCTAssertFalse(HostMessage.cut(at: 0).isAnyLane)
        XCTAssertFalse(HostMessage.configureSampleTime(code: 3).isAnyLane)
    }

    func testCutEncodingAndSlots() throws {
        let cut = HostMessage.cut(at: 0x1234_5678)
        XCTAssertEqual(cut.encode(), [0x0F, 0x78, 0x56, 0x34, 0x12])
        XCTAssertEqual(cut.encodedLength, 5)
        XCTAssertEqual(cut.queueSlots, 0, "CUT takes no slot; it frees those of the entries it removes")
        XCTAssertEqual(cut.description, "CUT at=305419896")
        XCTAssertThrowsError(try HostMessage.parsePayload([0x0F, 1, 2, 3])) { XCTAssertEqual($0 as? WireError, .truncated) }
    }

    func testKnownStatusAndCodes() {
        XCTAssertEqual(OnsetReport(event: 1, time: 2, status: 1).knownStatus, .lateTrimmed)
        XCTAssertNil(OnsetReport(event: 1, time: 2, status: 9).knownStatus)
        XCTAssertEqual(FaultReport(code: 5, detail: 0).knownCode, .watchdogStop)
        XCTAssertNil(FaultReport(code: 99, detail: 0).knownCode)
    }
}

/// Test data from the project's one generator.
extension SplitMix64 {
    mutating func u8() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    mutating func u32() -> UInt32 { UInt32(truncatingIfNeeded: next()) }
}
