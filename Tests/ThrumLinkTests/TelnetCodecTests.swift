import XCTest
@testable import ThrumLink

/// Telnet framing and negotiation of the RFC 2217 transport (the server side is ser2net in the
/// end-to-end tests; here the byte sequences themselves).
final class TelnetCodecTests: XCTestCase {
    typealias B = TelnetCodec.Byte
    typealias O = TelnetCodec.Option

    func testOpeningOffersBinarySGAComPortAndSetsTheLine() {
        var codec = TelnetCodec()
        let bytes = codec.opening(baud: 115_200)
        XCTAssertEqual(
            Array(bytes.prefix(15)),
            [
                B.iac, B.will, O.binary, B.iac, B.will, O.suppressGoAhead, B.iac, B.will, O.comPort,
                B.iac, B.do, O.binary, B.iac, B.do, O.suppressGoAhead,
            ])
        // SET-BAUDRATE 115200 = 0x0001C200, big-endian; then 8 data bits, no parity, 1 stop, no flow control.
        XCTAssertEqual(
            Array(bytes[15...]),
            [
                B.iac, B.sb, 44, 1, 0x00, 0x01, 0xC2, 0x00, B.iac, B.se,
                B.iac, B.sb, 44, 2, 8, B.iac, B.se,
                B.iac, B.sb, 44, 3, 1, B.iac, B.se,
                B.iac, B.sb, 44, 4, 1, B.iac, B.se,
                B.iac, B.sb, 44, 5, 1, B.iac, B.se,
            ])
    }

    func testDataEscapesIACBothWays() {
        var codec = TelnetCodec()
        _ = codec.opening(baud: 9600)
        XCTAssertEqual(codec.encode([0x7E, 0xFF, 0x0D, 0x00]), [0x7E, 0xFF, 0xFF, 0x0D, 0x00], "binary: CR as is")
        let (data, replies) = codec.decode([0x01, 0xFF, 0xFF, 0x02])
        XCTAssertEqual(data, [0x01, 0xFF, 0x02])
        XCTAssertEqual(replies, [])
    }

    func testCommandsSplitAcrossReadsAreDropped() {
        var codec = TelnetCodec()
        _ = codec.opening(baud: 115_200)
        // The server confirms (no reply: already agreed), sends a COM-PORT answer split in three.
        var (data, replies) = codec.decode([0x10, B.iac, B.do])
        XCTAssertEqual(data, [0x10])
        (data, replies) = codec.decode([O.comPort, B.iac, B.sb, 44, 101, 0, 1])
        XCTAssertEqual(data, [])
        XCTAssertEqual(replies, [])
        (data, replies) = codec.decode([0xC2, 0x00, B.iac, B.se, 0x20, B.iac, 241 /* NOP */, 0x21])
        XCTAssertEqual(data, [0x20, 0x21])
        XCTAssertEqual(codec.subnegotiations.last, [44, 101, 0, 1, 0xC2, 0x00])
    }

    func testUnknownOptionsAreRefusedOnceAndKnownOnesAcceptedOnce() {
        var codec = TelnetCodec()
        XCTAssertEqual(codec.decode([B.iac, B.do, 1 /* ECHO */]).replies, [B.iac, B.wont, 1])
        XCTAssertEqual(codec.decode([B.iac, B.will, 1]).replies, [B.iac, B.dont, 1])
        XCTAssertEqual(codec.decode([B.iac, B.do, O.comPort]).replies, [B.iac, B.will, O.comPort])
        XCTAssertEqual(
            codec.decode([B.iac, B.do, O.comPort]).replies, [], "no answer to a request that changes nothing")
        XCTAssertEqual(codec.decode([B.iac, B.dont, O.comPort]).replies, [B.iac, B.wont, O.comPort])
        XCTAssertEqual(codec.decode([B.iac, B.dont, O.comPort]).replies, [])
    }

    func testWithoutBinaryCRNULIsACarriageReturn() {
        var codec = TelnetCodec()  // nothing negotiated: NVT rules
        XCTAssertEqual(codec.decode([0x41, 0x0D, 0x00, 0x42, 0x0D, 0x0A]).data, [0x41, 0x0D, 0x42, 0x0D, 0x0A])
        XCTAssertEqual(codec.encode([0x0D, 0x41]), [0x0D, 0x00, 0x41])
    }

    func testRFC2217AddressesPickTheTransport() throws {
        XCTAssertEqual(try transportKind(forPath: "rfc2217://127.0.0.1:2000"), .rfc2217)
        XCTAssertEqual(parseTCPAddress("rfc2217://[::1]:2000")?.host, "::1")
        XCTAssertEqual(parseTCPAddress("rfc2217://rig:2001")?.port, 2001)
        XCTAssertNil(parseTCPAddress("rfc2217://rig"))
    }
}
