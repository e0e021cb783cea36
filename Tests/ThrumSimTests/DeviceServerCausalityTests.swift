import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

@testable import ThrumSim

/// The facts a clock bracket rests on hold on the served device (`thrum sim`), whatever the
/// firmware spent on its I²C bus: a frame is stamped no later than it arrived, and nothing the
/// device writes leaves before the true time it was written at. Driven by a manual clock, so the
/// server's passes happen at chosen instants.
final class DeviceServerCausalityTests: XCTestCase {
    /// A CONFIGURE_DRIVER keeps the firmware on the bus for milliseconds. The next frame, arriving
    /// while the device is still "ahead" of the wall clock, must be stamped at its arrival, and the
    /// ACK carrying that stamp must not be written before the wall clock reaches the device's time.
    func testStampsAreNeverLaterThanTheAckLeaves() throws {
        let clock = ManualClock(start: HostTime(seconds: 100))
        let (host, deviceEnd) = InMemoryTransport.makePair()
        let device = VirtualDevice()
        let powerUp = device.now  // true time zero of the device is power-up, before serving
        func trueTime() -> UInt64 { powerUp + UInt64((clock.now() - HostTime(seconds: 100)).nanoseconds / 1_000) }
        let server = DeviceServer(device: device, transport: deviceEnd, clock: clock)
        server.maximumWait = HostDuration.zero
        var decoder = FrameDecoder(direction: .deviceToHost)
        var acks: [(rxTime: UInt32, writtenAtTrue: UInt64)] = []
        var seen = 0

        func pass() throws {
            try server.servePass()
            let writes = deviceEnd.writes
            let trueNow = trueTime()
            for chunk in writes[seen...] {
                for frame in decoder.push(chunk) {
                    for case .ack(let ack) in try DeviceMessage.parsePayload(frame.payload) where ack.rxTime != 0 {
                        acks.append((ack.rxTime, trueNow))
                    }
                }
            }
            seen = writes.count
        }

        let configure = HostMessage.configureDriver(DriverConfiguration(ratedVoltage: 0x50, odClamp: 0x90, driveTime: 0x13, olLraPeriod: 0x33))
        try host.write(Frame(direction: .hostToDevice, flags: .resync, seq: 0, payload: HostMessage.encodePayload([configure])).encode())
        try pass()
        XCTAssertGreaterThan(device.now, trueTime() + 500, "the set-up took bus time, running the device ahead of the wall clock")
        let busyUntil = device.now
        // A ping arrives 10 µs later, while the device is still ahead.
        clock.advance(by: HostDuration.microseconds(10))
        try host.write(Frame(direction: .hostToDevice, flags: .unseq, seq: 7, payload: HostMessage.encodePayload([.ping])).encode())
        try pass()
        // Walk the wall clock through the busy stretch in 50 µs steps.
        let pingArrival = trueTime()
        while trueTime() < busyUntil + 1_000 {
            clock.advance(by: HostDuration.microseconds(50))
            try pass()
        }
        XCTAssertEqual(acks.count, 2, "both frames acknowledged")
        for ack in acks {
            let stampedAt = device.trueTime(ofDeviceClock: ack.rxTime, near: ack.writtenAtTrue)
            XCTAssertLessThanOrEqual(stampedAt, Double(ack.writtenAtTrue), "an ACK left before the time it was stamped with")
        }
        // The ping was stamped at its arrival (10 µs), not when the busy device got to it.
        let pingStamp = device.trueTime(ofDeviceClock: acks[1].rxTime, near: pingArrival)
        XCTAssertEqual(pingStamp, Double(pingArrival), accuracy: 1)
        XCTAssertGreaterThanOrEqual(Double(acks[1].writtenAtTrue), Double(busyUntil), "the ping's ACK waited for the device to catch up")
    }

    /// A ``DelayLink`` delays each leg as specified, keeps each leg's order, and releases the
    /// return bytes on its tick.
    func testDelayLinkLegsAndTick() throws {
        var link = try XCTUnwrap(try LinkSpec.link(parsing: "out=300us,back=2-6ms,tick=8ms,seed=3") as? DelayLink)
        var bytes: [UInt8] = [1, 2, 3]
        XCTAssertEqual(link.deliver(&bytes, writtenAt: 1_000, direction: .hostToDevice), 1_300)
        var last: UInt64 = 0
        for t in stride(from: UInt64(0), to: 200_000, by: 1_000) {
            let arrival = try XCTUnwrap(link.deliver(&bytes, writtenAt: t, direction: .deviceToHost))
            XCTAssertEqual(arrival % 8_000, 0, "released on the tick")
            XCTAssertGreaterThanOrEqual(arrival, t + 2_000)
            XCTAssertGreaterThanOrEqual(arrival, last, "order kept")
            last = arrival
        }
        XCTAssertThrowsError(try LinkSpec.link(parsing: "out=6-2ms")) { error in
            XCTAssertTrue("\(error)".contains("out=6-2ms"), "\(error)")
        }
        XCTAssertThrowsError(try LinkSpec.link(parsing: "jitter=1ms"))
        XCTAssertNotNil(try LinkSpec.link(parsing: "ftdi-115200-16ms"))
    }

    /// `step=A@T` (repeatable): from T on each chunk either way is delayed a further A, the
    /// steps adding up, each leg's order kept across a step.
    func testDelayLinkStepsAddDelayFromTheirTime() throws {
        var link = try XCTUnwrap(try LinkSpec.link(parsing: "out=40ms,back=40ms,step=60ms@1s,step=20ms@2s") as? DelayLink)
        var bytes: [UInt8] = [1]
        for (written, delay) in [(UInt64(999_999), UInt64(40_000)), (1_000_000, 100_000), (2_500_000, 120_000)] {
            XCTAssertEqual(link.deliver(&bytes, writtenAt: written, direction: .hostToDevice), written + delay, "out at \(written) µs")
            XCTAssertEqual(link.deliver(&bytes, writtenAt: written, direction: .deviceToHost), written + delay, "back at \(written) µs")
        }
        XCTAssertThrowsError(try LinkSpec.link(parsing: "step=60ms")) { error in
            XCTAssertTrue("\(error)".contains("step=A@T"), "\(error)")
        }
    }
}
