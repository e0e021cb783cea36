import ThrumWire
import XCTest

@testable import ThrumSim

/// The virtual device runs the firmware at the device times it asks for (thrum_fw_next_deadline),
/// as a timer interrupt would, instead of on a polling grid.
final class ExactTimerTests: XCTestCase {
    func testOnsetsLandOneRegisterWriteAfterTheirStart() {
        let device = VirtualDevice()
        let host = DeviceHost(device)
        host.run(to: 10_000)
        let base = host.clock
        // Starts that fall between any 50 µs grid points.
        let offsets: [UInt32] = [20_013, 40_037, 60_071, 80_149, 100_003]
        host.send(offsets.enumerated().map { i, o in
            .segment(SegmentCommand(start: base &+ o, duration: 5_000, from: 200, to: 200, event: UInt32(i + 1)))
        })
        host.run(to: 200_000)
        XCTAssertEqual(host.onsets.count, offsets.count)
        for (i, onset) in host.onsets.enumerated() {
            let lag = Int64(onset.time &- (base &+ offsets[i]))
            // the onset is the end of the RTP write: 9·3 + 2 = 29 bit times at 400 kHz = 73 µs
            XCTAssertEqual(lag, 73, "event \(onset.event)")
            XCTAssertEqual(onset.status, ProtocolConstants.onsetOnTime)
        }
    }

    func testExactTimersThroughACrystalError() {
        let device = VirtualDevice(configuration: .init(crystalErrorPPM: 80, clockStart: 0xFFFF_0000))
        let host = DeviceHost(device)
        host.run(to: 5_000)
        let start = host.clock &+ 30_011
        host.send([.segment(SegmentCommand(start: start, duration: 2_000, from: 100, to: 100, event: 9))])
        host.run(to: 100_000)
        XCTAssertEqual(host.onsets.first.map { Int64($0.time &- start) }, 73)
    }

    func testRampUpdatesAtTheFirstChangeAfter500Microseconds() {
        let device = VirtualDevice()
        let host = DeviceHost(device)
        host.run(to: 1_000)
        let start = host.clock &+ 10_000
        // 0 → 10 over 10 ms: one step per ms, so writes every 1000 µs, never on a 50 µs grid delay.
        host.send([.segment(SegmentCommand(start: start, duration: 10_000, from: 0, to: 10, event: 0))])
        host.run(to: 40_000)
        let writes = device.chip.trace.registerWrites.filter { $0.register == 0x02 }
        let deviceStart = device.trueTime(ofDeviceClock: start, near: device.now)
        let times = writes.map { Double($0.time) - deviceStart }.filter { $0 >= 0 && $0 < 10_000 }
        // value k is reached at (k − ½) ms; each write ends 73 µs after it started. The ramp starts
        // at 0 on an idle output, so nothing is written at its start: its first write is value 1
        // at its crossing (PROTOCOL.md §4.1).
        XCTAssertEqual(times.count, 10)
        for (i, t) in times.enumerated() {
            let k = i + 1
            XCTAssertEqual(t, Double(k) * 1000 - 500 + 73, accuracy: 1.5, "write \(k)")
        }
    }
}
