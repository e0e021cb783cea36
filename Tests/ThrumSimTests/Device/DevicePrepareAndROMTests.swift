import ThrumWire
import XCTest

@testable import ThrumSim

/// WAKE / STANDBY / idle timeout, preloaded programs with GO, and ROM_EFFECT on the virtual device.
final class DevicePrepareAndROMTests: XCTestCase {
    func testIdleTimeoutReturnsToStandbyAndAQueuedSegmentWakesTheDriverInTime() {
        let device = VirtualDevice()
        let host = DeviceHost(device)
        host.run(to: 1_000)
        host.sendAnyLane([.wake(idleTimeoutMilliseconds: 50)])
        host.run(to: 40_000)
        XCTAssertEqual(device.chip.peek(0x01) & 0x40, 0, "awake before the timeout")
        host.run(to: 60_000)
        XCTAssertEqual(device.chip.peek(0x01), 0x45, "STANDBY + RTP mode after 50 ms idle")
        XCTAssertEqual(host.states.last, StateReport(state: 0, cause: 1))

        let start = host.clock &+ 20_000
        host.send([.segment(SegmentCommand(start: start, duration: 10_000, from: 200, to: 200, event: 1))])
        host.run(to: device.now + 40_000)
        XCTAssertEqual(host.states.last, StateReport(state: 1, cause: 2), "woken by the queued segment")
        XCTAssertEqual(host.onsets.first?.status, 0, "woken early enough: on time")
        XCTAssertEqual(host.onsets.first.map { Int64($0.time &- start) }, 73)
        XCTAssertNotNil(device.chip.trace.driveOnset(after: 0), "and the actuator really drove")
    }

    func testStandbyMessageAndLateWakeReportedHonestly() {
        let device = VirtualDevice()
        let host = DeviceHost(device)
        host.run(to: 1_000)
        host.sendAnyLane([.standby])
        XCTAssertEqual(device.chip.peek(0x01), 0x45)
        // A segment already due: the driver needs DRV2605L_STANDBY_EXIT_US (500 µs) first.
        host.send([.segment(SegmentCommand(start: host.clock, duration: 10_000, from: 150, to: 150, event: 2))])
        host.run(to: device.now + 20_000)
        XCTAssertEqual(host.onsets.first?.status, 1, "late, trimmed, and reported so")
    }

    func testPreloadThenGoPlaysTheProgramAtTheGivenTime() {
        let device = VirtualDevice()
        let host = DeviceHost(device)
        host.run(to: 1_000)
        host.send([
            .preloadBegin(slot: 2),
            .preloadSegment(PreloadSegmentCommand(offset: 0, duration: 8_000, from: 255, to: 0, event: 1)),
            .preloadSegment(PreloadSegmentCommand(offset: 100_000, duration: 8_000, from: 255, to: 0, event: 2)),
        ])
        XCTAssertEqual(device.freeSlots, 32, "preloading takes no queue slots")
        let start = host.clock &+ 5_000
        host.sendAnyLane([.go(GoCommand(slot: 2, start: start, eventBase: 40))])
        XCTAssertEqual(device.freeSlots, 30)
        host.run(to: device.now + 150_000)
        XCTAssertEqual(host.onsets.map(\.event), [41, 42])
        XCTAssertEqual(host.onsets.map { Int64($0.time &- start) }, [73, 100_073])
        // GO of an empty slot is refused
        host.sendAnyLane([.go(GoCommand(slot: 1, start: host.clock &+ 5_000, eventBase: 0))])
        XCTAssertEqual(host.faults.last, FaultReport(code: 8, detail: 1))
        // the program stays loaded: GO again
        host.sendAnyLane([.go(GoCommand(slot: 2, start: host.clock &+ 5_000, eventBase: 50))])
        host.run(to: device.now + 150_000)
        XCTAssertEqual(host.onsets.suffix(2).map(\.event), [51, 52])
    }

    func testCapabilitiesFollowIdentifyReply() {
        let device = VirtualDevice()
        let host = DeviceHost(device)
        host.sendAnyLane([.identify])
        let kinds = host.received.map(\.message.id)
        XCTAssertEqual(kinds, [0x40, 0x41, 0x47])
        XCTAssertEqual(host.received.last?.message, .capabilities(DeviceCapabilities(programSlots: 4, programSegments: 64)))
    }

    func testROMEffectRunsThroughTheSequencerAndReturnsToRTP() {
        let device = VirtualDevice()
        let host = DeviceHost(device)
        host.run(to: 1_000)
        let start = host.clock &+ 10_000
        host.send([.romEffect(ROMEffectCommand(start: start, effect: 47, event: 7))])  // Buzz 1, ≈ 250 ms
        host.run(to: device.now + 100_000)
        XCTAssertEqual(device.chip.peek(0x01), 0x00, "internal-trigger mode while it plays")
        XCTAssertEqual(device.chip.peek(0x04), 47)
        XCTAssertEqual(device.chip.peek(0x0C), 1)
        XCTAssertEqual(host.onsets.first?.event, 7)
        XCTAssertEqual(host.onsets.first?.status, 0)
        // MODE (73 µs), WAV_FRM_SEQ1+2 in one write (95 µs), GO (73 µs): GO lands 241 µs after start
        XCTAssertEqual(host.onsets.first.map { Int64($0.time &- start) }, 241)
        host.run(to: device.now + 250_000)
        XCTAssertEqual(device.chip.peek(0x01), 0x05, "back to RTP once GO cleared")
        XCTAssertEqual(device.freeSlots, 32)

        // A long effect is cut by the next segment at its start (GO = 0, back to RTP).
        let s2 = host.clock &+ 10_000
        host.send([
            .romEffect(ROMEffectCommand(start: s2, effect: 118, event: 8)),
            .segment(SegmentCommand(start: s2 &+ 50_000, duration: 20_000, from: 100, to: 100, event: 9)),
        ])
        host.run(to: device.now + 100_000)
        XCTAssertEqual(host.onsets.map(\.event), [7, 8, 9])
        XCTAssertEqual(device.chip.peek(0x01), 0x05)
        XCTAssertEqual(device.chip.peek(0x0C), 0)
    }
}
