import Foundation
import XCTest

@testable import ThrumLink

final class TransportFactoryTests: XCTestCase {
    private func kind(_ path: String, existing: Set<String>, links: [String: String] = [:]) throws -> TransportKind {
        try transportKind(forPath: path, fileExists: { existing.contains($0) }, resolve: { links[$0] ?? $0 })
    }

    func testClassification() throws {
        #if os(Linux)
        XCTAssertEqual(try kind("/dev/pts/3", existing: ["/dev/pts/3"]), .pseudoTerminal)
        XCTAssertEqual(try kind("/dev/ttyACM0", existing: ["/dev/ttyACM0", "/sys/class/tty/ttyACM0"]), .serialPort)
        // A character device with no /sys/class/tty entry is a pty (e.g. a legacy /dev/ttyp0).
        XCTAssertEqual(try kind("/dev/ttyp0", existing: ["/dev/ttyp0"]), .pseudoTerminal)
        // A socat link is judged by what it points at.
        XCTAssertEqual(
            try kind("/tmp/ttyV0", existing: ["/tmp/ttyV0", "/dev/pts/9"], links: ["/tmp/ttyV0": "/dev/pts/9"]),
            .pseudoTerminal)
        XCTAssertEqual(
            try kind(
                "/dev/serial/by-id/usb-Arduino",
                existing: ["/dev/serial/by-id/usb-Arduino", "/sys/class/tty/ttyACM1"],
                links: ["/dev/serial/by-id/usb-Arduino": "/dev/ttyACM1"]), .serialPort)
        #endif
        XCTAssertEqual(try kind("tcp://127.0.0.1:5555", existing: []), .tcp)
        XCTAssertThrowsError(try kind("/dev/ttyUSB9", existing: [])) {
            XCTAssertEqual($0 as? TransportError, .notFound(path: "/dev/ttyUSB9"))
        }
    }

    func testTCPAddressParsing() {
        XCTAssertTrue(parseTCPAddress("tcp://rig-3.local:5555")! == ("rig-3.local", 5555))
        XCTAssertTrue(parseTCPAddress("tcp://[::1]:7")! == ("::1", 7))
        XCTAssertNil(parseTCPAddress("tcp://nohost"))
        XCTAssertNil(parseTCPAddress("tcp://:5555"))
        XCTAssertNil(parseTCPAddress("/dev/pts/1"))
        XCTAssertTrue(parseTCPAddress("rfc2217://rig:65535")! == ("rig", 65535))
        // A port out of range or not a whole number: no address (it was taken, and the connect failed).
        for bad in ["tcp://[::1]:99999", "tcp://rig:0", "tcp://rig:", "tcp://rig:abc", "tcp://rig:+80", "tcp://[::1", "tcp://[]:5"] {
            XCTAssertNil(parseTCPAddress(bad), bad)
            XCTAssertNotNil(networkAddressProblem(bad), bad)
        }
        XCTAssertNil(networkAddressProblem("/dev/ttyACM0"), "a device path is not a network address")
        XCTAssertNil(networkAddressProblem("tcp://[::1]:7"))
        XCTAssertEqual(
            networkAddressProblem("tcp://:0"), "no host: expected tcp://HOST:PORT (an IPv6 host in brackets: tcp://[::1]:5555)")
    }

    func testOpensAPseudoTerminalWithTheTermiosTransport() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        XCTAssertEqual(try transportKind(forPath: pty.devicePath), .pseudoTerminal)
        let transport = try openTransport(path: pty.devicePath, baud: 115_200)
        defer { transport.close() }
        XCTAssertTrue(transport is PseudoTerminalTransport)
        XCTAssertEqual(transport.endpointName, pty.devicePath)
    }

    func testFollowsSymlinksToPseudoTerminals() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-tty-\(UUID().uuidString)").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.devicePath)
        defer { try? FileManager.default.removeItem(atPath: link) }
        let transport = try openTransport(path: link, baud: 115_200)
        defer { transport.close() }
        XCTAssertTrue(transport is PseudoTerminalTransport)
    }

    func testMissingPathIsNotFound() {
        XCTAssertThrowsError(try openTransport(path: "/dev/does-not-exist", baud: 115_200)) {
            XCTAssertEqual($0 as? TransportError, .notFound(path: "/dev/does-not-exist"))
        }
    }

    func testRealPortsGoToLibserialport() throws {
        #if os(Linux)
        // Any tty with a /sys/class/tty entry is a real port (ttyS0 exists on most Linux hosts,
        // with or without a UART behind it).
        guard FileManager.default.fileExists(atPath: "/dev/ttyS0"),
            FileManager.default.fileExists(atPath: "/sys/class/tty/ttyS0")
        else { throw XCTSkip("no /dev/ttyS0 here") }
        XCTAssertEqual(try transportKind(forPath: "/dev/ttyS0"), .serialPort)
        #else
        throw XCTSkip("Linux only")
        #endif
    }

    func testBaudRatesOutsideTheRangeAreRefusedBeforeAnythingOpens() {
        for baud in [0, -5, 49, 4_000_001, Int.max, Int.min] {
            XCTAssertThrowsError(try openTransport(path: "/nonexistent/ttyACM9", baud: baud)) { error in
                XCTAssertEqual(error as? TransportError, .invalidBaudRate(baud))
                XCTAssertTrue("\(error)".contains("expected a whole number from 50 to 4000000"), "\(error)")
            }
        }
        // In range, the path is what fails.
        XCTAssertThrowsError(try openTransport(path: "/nonexistent/ttyACM9", baud: 115_200)) { error in
            XCTAssertEqual(error as? TransportError, .notFound(path: "/nonexistent/ttyACM9"))
        }
    }
}
