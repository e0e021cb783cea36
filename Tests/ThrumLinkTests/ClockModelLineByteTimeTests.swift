@testable import ThrumLink
import ThrumTime
import XCTest

/// The clock model on a UART whose rate the host set (``ClockModelConfiguration/lineByteTime``):
/// a host frame's bytes cross before the device stamps it, the reply's after, and neither faster
/// than the line allows. Synthetic samples with a CH340-like bridge at 115 200 baud: the host's
/// write goes out in the next 1 ms USB frame and is shifted out; the device stamps the last byte
/// and answers with a 15-byte frame, which the bridge hands on two idle characters later in the
/// next frame, and the host reads it 0.5–8 ms after that.
final class ClockModelLineByteTimeTests: XCTestCase {
    let byteTime = UartLine.byteTime(baud: 115_200)

    func samples(ppm: Double, seconds: Double, seed: UInt64, device: (Double) -> Double) -> [ClockSample] {
        var rng = SplitMix64(seed: seed)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() >> 11) / Double(1 << 53) }
        var t = 1_000_000.0 + uniform(0, 1_000)
        var result: [ClockSample] = []
        while t < 1_000_000 + seconds * 1e6 {
            let bytes = rng.next() % 3 == 0 ? 60 : 7
            let lastByte = (t / 1_000).rounded(.down) * 1_000 + 1_000 + Double(bytes) * byteTime
            let handed = lastByte + 17 * byteTime
            let back = (handed / 1_000).rounded(.down) * 1_000 + 1_000 + uniform(500, 8_000)
            result.append(ClockSample(
                hostSend: HostTime(nanoseconds: Int64(t * 1_000)), hostReceive: HostTime(nanoseconds: Int64(back * 1_000)),
                deviceReceive: DeviceTime(microseconds: Int64(device(lastByte).rounded(.down))), outboundBytes: Int(bytes),
                inboundBytes: 15))
            t += uniform(3_000, 9_000)
        }
        return result
    }

    func testTheLinesBytesComeOffBothLegsAndTheBracketStillHoldsTheTruth() {
        for (seed, ppm) in [(1, 100.0), (2, -100.0)] {
            let device = { (t: Double) in 7_000_000 + t * (1 + ppm * 1e-6) }
            let run = samples(ppm: ppm, seconds: 2, seed: UInt64(seed), device: device)
            var plain = ClockModel()
            var known = ClockModel(configuration: { var c = ClockModelConfiguration(); c.lineByteTime = byteTime; return c }())
            for sample in run {
                plain.addSample(sample)
                known.addSample(sample)
            }
            XCTAssertEqual(known.byteTimeMicros, byteTime, "the send-ahead counts the line's byte time from the first sample")
            let end = Double(run.last!.hostReceive.nanoseconds) / 1_000
            for ahead in [0.0, 20_000, 100_000] {
                let t = end + ahead
                let host = HostTime(nanoseconds: Int64(t * 1_000))
                for (name, m) in [("plain", plain), ("known", known)] {
                    let bounds = m.bounds(at: host)
                    XCTAssertLessThanOrEqual(Double(bounds.lowerBound.microseconds), device(t) + 3, "\(name) seed \(seed)")
                    XCTAssertGreaterThanOrEqual(Double(bounds.upperBound.microseconds), device(t) - 3, "\(name) seed \(seed)")
                }
                // A 7-byte write's and a 15-byte reply's bytes (less the 5 % margin): 1.9 ms.
                let width = { (m: ClockModel) in (m.bounds(at: host).upperBound - m.bounds(at: host).lowerBound).microseconds }
                XCTAssertLessThan(width(known), width(plain) - 1_700, "seed \(seed), \(ahead) µs ahead")
                // The middle was off by half the bytes' asymmetry, (15 − 7) byte times, and more.
                let plainError = abs(Double(plain.deviceTime(at: host).microseconds) - device(t))
                let knownError = abs(Double(known.deviceTime(at: host).microseconds) - device(t))
                XCTAssertLessThan(knownError, plainError - 250, "seed \(seed), \(ahead) µs ahead")
            }
        }
    }

    func testTheMarginCoversEndsThatRunFast() {
        // The device's UART 2.1 % fast (an AVR at 16 MHz sending 115 200 baud): its bytes take
        // less than the nominal time, and the bound must still hold.
        let ppm = 40.0
        let device = { (t: Double) in 3_000_000 + t * (1 + ppm * 1e-6) }
        let fast = byteTime / 1.021
        var rng = SplitMix64(seed: 11)
        var model = ClockModel(configuration: { var c = ClockModelConfiguration(); c.lineByteTime = byteTime; return c }())
        var t = 1_000_000.0
        for _ in 0..<300 {
            // The fastest legs the line allows: no USB frame, no wake-up, both ends 2.1 % fast.
            let lastByte = t + 7 * fast
            let back = lastByte + 15 * fast + Double(rng.next() % 50)
            model.addSample(ClockSample(
                hostSend: HostTime(nanoseconds: Int64(t * 1_000)), hostReceive: HostTime(nanoseconds: Int64(back * 1_000)),
                deviceReceive: DeviceTime(microseconds: Int64(device(lastByte).rounded(.down))), outboundBytes: 7, inboundBytes: 15))
            t += 5_000
        }
        let host = HostTime(nanoseconds: Int64(t * 1_000))
        let bounds = model.bounds(at: host)
        XCTAssertLessThanOrEqual(Double(bounds.lowerBound.microseconds), device(t) + 3)
        XCTAssertGreaterThanOrEqual(Double(bounds.upperBound.microseconds), device(t) - 3)
    }
}

/// Which ports the host takes for a UART at the rate it set.
final class UartLineTests: XCTestCase {
    func testKnownBridgesAndNativeUartsHaveAByteTimeAndCdcDevicesNone() {
        XCTAssertEqual(UartLine.byteTime(baud: 115_200), 86.806, accuracy: 0.001)
        let ch340 = SerialPortInfo(name: "/dev/ttyUSB0", kind: .usb, usbVendorID: 0x1A86, usbProductID: 0x7523)
        XCTAssertEqual(try XCTUnwrap(UartLine.byteTime(of: ch340, baud: 1_000_000)), 10, accuracy: 1e-9)
        let ftdi = SerialPortInfo(name: "/dev/ttyUSB1", kind: .usb, usbVendorID: 0x0403, usbProductID: 0x6001)
        XCTAssertNotNil(UartLine.byteTime(of: ftdi, baud: 115_200))
        let native = SerialPortInfo(name: "/dev/ttyAMA0", kind: .native)
        XCTAssertNotNil(UartLine.byteTime(of: native, baud: 115_200))
        // A microcontroller with native USB (an Arduino Leonardo, a Pico) ignores the baud rate.
        let leonardo = SerialPortInfo(name: "/dev/ttyACM0", kind: .usb, usbVendorID: 0x2341, usbProductID: 0x8036)
        XCTAssertNil(UartLine.byteTime(of: leonardo, baud: 115_200))
        let pico = SerialPortInfo(name: "/dev/ttyACM1", kind: .usb, usbVendorID: 0x2E8A, usbProductID: 0x000A)
        XCTAssertNil(UartLine.byteTime(of: pico, baud: 115_200))
        // An FTDI id with an unknown product, ids missing, or Bluetooth: not claimed.
        XCTAssertNil(UartLine.byteTime(of: SerialPortInfo(name: "x", kind: .usb, usbVendorID: 0x0403, usbProductID: 0x1234), baud: 115_200))
        XCTAssertNil(UartLine.byteTime(of: SerialPortInfo(name: "x", kind: .usb), baud: 115_200))
        XCTAssertNil(UartLine.byteTime(of: SerialPortInfo(name: "x", kind: .bluetooth), baud: 115_200))
    }

    func testPseudoTerminalsAndMemoryPipesSayNothing() {
        let (a, _) = InMemoryTransport.makePair()
        XCTAssertNil(a.lineByteTime)
        XCTAssertNil(TransportPump(transport: a).lineByteTime)
    }
}

/// The request for low latency that lowers an FTDI bridge's latency timer: which ports get it,
/// and that a terminal without serial settings refuses it cleanly.
final class LowLatencyRequestTests: XCTestCase {
    func testOnlyFtdiBridgesHaveALatencyTimerToLower() {
        XCTAssertTrue(UartLine.hasLatencyTimer(SerialPortInfo(name: "/dev/ttyUSB0", kind: .usb, usbVendorID: 0x0403, usbProductID: 0x6001)))
        XCTAssertTrue(UartLine.hasLatencyTimer(SerialPortInfo(name: "/dev/ttyUSB0", kind: .usb, usbVendorID: 0x0403, usbProductID: 0x6015)))
        XCTAssertFalse(UartLine.hasLatencyTimer(SerialPortInfo(name: "/dev/ttyUSB0", kind: .usb, usbVendorID: 0x1A86, usbProductID: 0x7523)))
        XCTAssertFalse(UartLine.hasLatencyTimer(SerialPortInfo(name: "/dev/ttyUSB0", kind: .usb, usbVendorID: 0x0403, usbProductID: 0x1234)))
        XCTAssertFalse(UartLine.hasLatencyTimer(SerialPortInfo(name: "/dev/ttyS0", kind: .native)))
    }

    func testAPseudoTerminalRefusesTheRequest() throws {
        let system = RealTermiosSystem()
        let master = try system.openPseudoTerminalMaster(flags: O_RDWR | O_NOCTTY).get()
        defer { _ = system.close(master) }
        guard case .failure(let error) = system.requestLowLatency(master) else {
            return XCTFail("a pseudo-terminal has no serial settings to change")
        }
        #if os(Linux)
        XCTAssertEqual(error, .notATerminal)
        #endif
    }
}
