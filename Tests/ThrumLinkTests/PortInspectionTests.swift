import Foundation
import XCTest

@testable import ThrumLink

/// ``PortInspection`` on sysfs, procfs and udev trees laid out in a temporary directory as Linux
/// lays them out for an FTDI, a CH340 and a CDC-ACM board.
final class PortInspectionTests: XCTestCase {
    var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    func write(_ text: String, _ path: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (text + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    func link(_ path: String, to destination: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: destination)
    }

    /// One USB device at `usb` with its tty; `portDirectory` is the tty's `device` (interface or usb-serial port).
    func addUSB(tty: String, usb: String, vendor: String, product: String, driver: String, portDirectory: String, extra: [String: String] = [:]) throws {
        try write(vendor, "sys/\(usb)/idVendor")
        try write(product, "sys/\(usb)/idProduct")
        try write("Test board", "sys/\(usb)/product")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sys/\(portDirectory)/tty/\(tty)"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sys/bus/usb/drivers/\(driver)"), withIntermediateDirectories: true)
        try link("sys/\(portDirectory)/driver", to: root.appendingPathComponent("sys/bus/usb/drivers/\(driver)").path)
        try link("sys/class/tty/\(tty)", to: root.appendingPathComponent("sys/\(portDirectory)/tty/\(tty)").path)
        try link("sys/\(portDirectory)/tty/\(tty)/device", to: root.appendingPathComponent("sys/\(portDirectory)").path)
        for (name, value) in extra { try write(value, "sys/\(portDirectory)/\(name)") }
    }

    func testBridgesAndTheFTDILatencyTimer() throws {
        try addUSB(
            tty: "ttyUSB0", usb: "devices/usb1/1-1", vendor: "0403", product: "6001", driver: "ftdi_sio",
            portDirectory: "devices/usb1/1-1/1-1:1.0/ttyUSB0", extra: ["latency_timer": "16"])
        try addUSB(tty: "ttyUSB1", usb: "devices/usb1/1-2", vendor: "1A86", product: "7523", driver: "ch341", portDirectory: "devices/usb1/1-2/1-2:1.0/ttyUSB1")
        try addUSB(tty: "ttyACM0", usb: "devices/usb1/1-3", vendor: "2341", product: "0043", driver: "cdc_acm", portDirectory: "devices/usb1/1-3/1-3:1.0")
        let inspection = PortInspection(sysfsRoot: root.appendingPathComponent("sys").path)

        let ftdi = try XCTUnwrap(inspection.usbIdentity(ofPort: "/dev/ttyUSB0"))
        XCTAssertEqual(ftdi.usbID, "0403:6001")
        XCTAssertEqual(ftdi.bridge, .ftdi)
        XCTAssertEqual(ftdi.driver, "ftdi_sio")
        XCTAssertEqual(ftdi.product, "Test board")
        XCTAssertEqual(ftdi.latencyTimerMilliseconds, 16)
        XCTAssertEqual(ftdi.latencyTimerPath, "/sys/class/tty/ttyUSB0/device/latency_timer")

        let ch340 = try XCTUnwrap(inspection.usbIdentity(ofPort: "/dev/ttyUSB1"))
        XCTAssertEqual(ch340.usbID, "1a86:7523")
        XCTAssertEqual(ch340.bridge, .ch340)
        XCTAssertNil(ch340.latencyTimerMilliseconds)

        let uno = try XCTUnwrap(inspection.usbIdentity(ofPort: "/dev/ttyACM0"))
        XCTAssertEqual(uno.bridge, .nativeCDC)
        XCTAssertEqual(uno.usbID, "2341:0043")

        XCTAssertNil(inspection.usbIdentity(ofPort: "/dev/pts/7"), "no sysfs entry: no USB ids")
        XCTAssertEqual(USBSerialBridge.classify(vendorID: "10c4", driver: "cp210x"), .cp210x)
    }

    func testHoldersModemManagerAndUdev() throws {
        try write("ModemManager", "proc/412/comm")
        try write("screen", "proc/500/comm")
        try link("proc/500/fd/3", to: "/dev/ttyUSB9")
        try write("socat", "proc/501/comm")
        try link("proc/501/fd/5", to: "/dev/ttyUSB9")
        try link("proc/501/fd/6", to: "/dev/ptmx")
        try write("bash", "proc/502/comm")
        try link("proc/502/fd/0", to: "/dev/pts/1")
        // udev's record of /dev/null (character device 1:3).
        try write("E:ID_MM_DEVICE_IGNORE=1\nE:ID_VENDOR=Test", "udev/c1:3")
        let inspection = PortInspection(
            sysfsRoot: root.appendingPathComponent("sys").path, procRoot: root.appendingPathComponent("proc").path,
            udevDataRoot: root.appendingPathComponent("udev").path)

        XCTAssertEqual(inspection.processes(named: "ModemManager"), [412])
        let holders = inspection.holders(of: "/dev/ttyUSB9")
        XCTAssertEqual(holders.map(\.description), ["PID 500 (screen)", "PID 501 (socat)"])
        XCTAssertEqual(holders.map(\.servesPseudoTerminals), [false, true])
        XCTAssertEqual(inspection.udevProperties(ofPort: "/dev/null")["ID_MM_DEVICE_IGNORE"], "1")
        XCTAssertEqual(inspection.udevProperties(ofPort: "/dev/zero"), [:])
    }
}
