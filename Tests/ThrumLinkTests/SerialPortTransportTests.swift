import CSerialPort
import Foundation
import XCTest

@testable import ThrumLink

/// libserialport: error paths that need no hardware, and enumeration on whatever machine runs
/// the tests (often one with no serial ports at all).
final class SerialPortTransportTests: XCTestCase {
    func testMissingPortIsNotFound() {
        XCTAssertThrowsError(try SerialPortTransport(path: "/dev/does-not-exist", baud: 115_200)) {
            XCTAssertEqual($0 as? TransportError, .notFound(path: "/dev/does-not-exist"))
        }
    }

    /// libserialport cannot open a pseudo-terminal: `sp_open` asks for the modem lines with
    /// TIOCMGET, which a pty rejects (ENOTTY). The failure must be a clear `.openFailed` that
    /// carries libserialport's message and points at the pty transport, never a fake success.
    func testPseudoTerminalCannotBeOpenedThroughLibserialport() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        XCTAssertThrowsError(try SerialPortTransport(path: pty.devicePath, baud: 115_200)) { error in
            guard case .openFailed(let path, let reason) = error as? TransportError else {
                return XCTFail("expected openFailed, got \(error)")
            }
            XCTAssertEqual(path, pty.devicePath)
            XCTAssertTrue(reason.contains("pseudo-terminal"), reason)
            XCTAssertTrue(reason.contains("PseudoTerminalTransport"), reason)
        }
    }

    func testANonTerminalFileCannotBeOpened() {
        XCTAssertThrowsError(try SerialPortTransport(path: "/dev/null", baud: 115_200)) { error in
            switch error as? TransportError {
            case .openFailed(let path, _), .configurationFailed(let path, _): XCTAssertEqual(path, "/dev/null")
            default: XCTFail("unexpected \(error)")
            }
        }
    }

    func testLibserialportMessagesDescribeTheCall() {
        XCTAssertEqual(
            SerialPortTransport.message(for: SP_ERR_ARG, call: "sp_open"),
            "sp_open: invalid argument or not a serial port")
    }

    func testEnumerationReturnsWithoutCrashing() throws {
        let ports = try SerialPortEnumeration.listPorts()
        for port in ports {
            XCTAssertFalse(port.name.isEmpty)
            XCTAssertFalse(port.name.hasPrefix("/dev/pts/"), "ptys are never listed")
        }
        XCTAssertEqual(ports.map(\.name), ports.map(\.name).sorted())
        // The listing must encode for `thrum ports --json` whatever it holds.
        _ = try JSONEncoder().encode(ports)
    }

    func testPortInfoJSONShape() throws {
        let info = SerialPortInfo(
            name: "/dev/ttyACM0", description: "Arduino Uno", kind: .usb, usbVendorID: 0x2341, usbProductID: 0x43,
            manufacturer: "Arduino (www.arduino.cc)", product: "Uno", serialNumber: "7563331313335171E0B1")
        XCTAssertEqual(info.usbID, "2341:0043")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(info), as: UTF8.self)
        XCTAssertTrue(json.contains(#""kind":"usb""#), json)
        XCTAssertTrue(json.contains(#""usbVendorID":9025"#), json)
        XCTAssertEqual(try JSONDecoder().decode(SerialPortInfo.self, from: Data(json.utf8)), info)
        XCTAssertNil(SerialPortInfo(name: "/dev/ttyS0", kind: .native).usbID)
    }
}
