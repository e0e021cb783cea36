import ThrumLink
import ThrumWire
import XCTest

/// ROM_EFFECT takes a queue slot like SEGMENT (PROTOCOL.md §2.4), so the host spends credits on it.
final class ROMEffectCreditTests: XCTestCase {
    func testROMEffectsSpendCredits() {
        let device = FakeDevice(queueSlots: 2)
        let harness = LinkHarness(device: device)
        harness.connect()
        for i in 0..<4 {
            harness.session.send(.romEffect(ROMEffectCommand(start: UInt32(i) * 1000, effect: 1, event: UInt32(i + 1))))
        }
        harness.run(for: .milliseconds(2))
        let first = harness.device.receivedFrames.first { !$0.flags.contains(.unseq) }
        let messages = first.flatMap { try? HostMessage.parsePayload($0.payload) } ?? []
        XCTAssertEqual(messages.count, 2, "two credits, two ROM effects in the first frame")
        XCTAssertEqual(HostMessage.romEffect(ROMEffectCommand(start: 0, effect: 1)).queueSlots, 1)
        XCTAssertEqual(HostMessage.go(GoCommand(slot: 0, start: 0)).queueSlots, 0)
        XCTAssertTrue(HostMessage.go(GoCommand(slot: 0, start: 0)).isAnyLane)
        XCTAssertFalse(HostMessage.calibrate.isAnyLane)
    }
}
