import ThrumLink
import ThrumTime
import XCTest

@testable import ThrumSim

/// `--fault` grammar, the link faults of `FaultyLink`, and device events in `SimulatedPump`.
final class FaultInjectionTests: XCTestCase {
    func testTheFullGrammarParses() throws {
        let plan = try FaultPlan(parsing: "loss=0.05,corrupt=5%,dup=0.01,reorder=0.01,stall=200ms@1.5s,disconnect@2s,reset@3s,seed=7")
        XCTAssertEqual(plan.loss, 0.05)
        XCTAssertEqual(plan.corruption, 0.05, accuracy: 1e-12)
        XCTAssertEqual(plan.duplication, 0.01)
        XCTAssertEqual(plan.reordering, 0.01)
        XCTAssertEqual(plan.stalls.map(\.start), [1_500_000])
        XCTAssertEqual(plan.stalls.map(\.length), [200_000])
        XCTAssertEqual(plan.disconnect, 2_000_000)
        XCTAssertEqual(plan.resets, [3_000_000])
        XCTAssertEqual(plan.seed, 7)
        XCTAssertTrue(try FaultPlan(parsing: "reset@1s, reset@500ms, stall=1s@0s, stall=500us@2s").resets == [500_000, 1_000_000])
        XCTAssertFalse(plan.isEmpty)
        XCTAssertTrue(FaultPlan().isEmpty)
    }

    func testParseErrorsNameTheItemAndWhatWasExpected() {
        let cases: [(String, String, String)] = [
            ("loss=abc", "loss=abc", "a probability from 0 to 1"),
            ("loss=1.5", "loss=1.5", "a probability from 0 to 1"),
            ("loss=nan", "loss=nan", "a probability from 0 to 1"),
            ("stall=200ms", "stall=200ms", "stall=DURATION@TIME"),
            ("stall=200@1s", "stall=200@1s", "a time with a unit"),
            ("stall=0ms@1s", "stall=0ms@1s", "a stall longer than 0"),
            ("disconnect@-1s", "disconnect@-1s", "a time with a unit"),
            ("disconnect@1e30s", "disconnect@1e30s", "a time with a unit"),
            ("explode@1s", "explode@1s", "expected one of loss=P"),
            ("jitter=2", "jitter=2", "expected one of loss=P"),
            ("loss=0.1,loss=0.2", "loss=0.2", "'loss' is given twice"),
            ("loss=0.1,,dup=0.1", "loss=0.1,,dup=0.1", "an empty item"),
        ]
        for (text, item, expected) in cases {
            XCTAssertThrowsError(try FaultPlan(parsing: text), text) { error in
                let e = error as? FaultPlan.ParseError
                XCTAssertEqual(e?.item, item, text)
                XCTAssertTrue(e?.expected.contains(expected) == true, "\(text): \(String(describing: e))")
                XCTAssertTrue(e?.description.hasPrefix("bad fault '\(item)': ") == true)
            }
        }
    }

    private func deliveries(_ plan: FaultPlan, chunks: Int = 2_000) -> (link: FaultyLink<FixedLatencyLink>, arrivals: [UInt64?], sizes: [Int]) {
        var link = FaultyLink(base: FixedLatencyLink(latency: 1_000), plan: plan)
        var arrivals: [UInt64?] = [], sizes: [Int] = []
        for i in 0..<chunks {
            var bytes: [UInt8] = [0x7E, UInt8(i & 0xFF), 0x7E]
            arrivals.append(link.deliver(&bytes, writtenAt: UInt64(i) * 1_000, direction: i % 2 == 0 ? .hostToDevice : .deviceToHost))
            sizes.append(bytes.count)
        }
        return (link, arrivals, sizes)
    }

    func testLossCorruptionDuplicationAndReorderingHappenAtTheirRatesDeterministically() {
        var plan = FaultPlan()
        (plan.loss, plan.corruption, plan.duplication, plan.reordering) = (0.05, 0.05, 0.05, 0.05)
        let (link, arrivals, sizes) = deliveries(plan, chunks: 4_000)
        let c = link.counts
        for (name, n) in [("lost", c.lost), ("corrupted", c.corrupted), ("duplicated", c.duplicated), ("reordered", c.reordered)] {
            XCTAssertEqual(Double(n) / 4_000, 0.05, accuracy: 0.015, name)
        }
        XCTAssertEqual(arrivals.filter { $0 == nil }.count, c.lost)
        XCTAssertEqual(sizes.filter { $0 == 6 }.count, c.duplicated, "a duplicated chunk carries its bytes twice")
        XCTAssertEqual(arrivals.compactMap { $0 }.filter { $0 % 1_000 != 0 }.count, 0)
        let held = zip(arrivals.indices, arrivals).filter { i, a in a.map { $0 == UInt64(i) * 1_000 + 1_000 + FaultPlan.reorderHold } ?? false }
        XCTAssertEqual(held.count, c.reordered, "a reordered chunk arrives after the next one")
        XCTAssertEqual(deliveries(plan, chunks: 4_000).arrivals, arrivals, "same seed, same faults")
        plan.seed = 99
        XCTAssertNotEqual(deliveries(plan, chunks: 4_000).arrivals, arrivals)
    }

    func testAStallHoldsEverythingWrittenDuringItUntilItsEnd() {
        var plan = FaultPlan()
        plan.stalls = [(start: 100_000, length: 200_000)]
        let (link, arrivals, _) = deliveries(plan, chunks: 400)
        for (i, arrival) in arrivals.enumerated() {
            let written = UInt64(i) * 1_000
            let expected = (99_000..<300_000).contains(written) ? max(300_000, written + 1_000) : written + 1_000
            XCTAssertEqual(arrival, expected, "chunk \(i)")
        }
        XCTAssertEqual(link.counts.stalled, 201, "written during the stall, or arriving in it")
    }

    func testAResetRestartsTheFirmwareAndItsClock() {
        let device = VirtualDevice(configuration: .init(clockStart: 12_345))
        device.advance(to: 2_000_000)
        XCTAssertEqual(device.deviceClock(atTrueTime: 2_000_000), 2_012_345)
        let resetAt = device.now
        device.reset()
        XCTAssertEqual(device.resetCount, 1)
        XCTAssertEqual(device.deviceClock(atTrueTime: resetAt), 0, "the clock restarts from 0 at the reset")
        XCTAssertEqual(Int(device.deviceClock(atTrueTime: device.now)), Int(device.now - resetAt), "then counts the boot")
        XCTAssertGreaterThan(device.now, resetAt, "the boot probes the driver over I²C, which takes time")
        XCTAssertEqual(device.firmwareStatistics.frames_ok, 0, "the firmware's counters start afresh")
        device.advance(to: device.now + 100_000)  // and it keeps running
    }

    func testThePumpDisconnectsAtItsTimeAndStaysDisconnected() throws {
        let device = VirtualDevice()
        let clock = ManualClock()
        let pump = SimulatedPump(device: device, clock: clock)
        pump.deviceFaults = [.disconnect(at: 300_000)]
        let session = LinkSession(clock: clock)
        XCTAssertNoThrow(try pump.run(session, until: HostTime(nanoseconds: 200_000_000)))
        XCTAssertThrowsError(try pump.run(session, until: HostTime(nanoseconds: 1_000_000_000))) {
            XCTAssertEqual($0 as? TransportError, .disconnected)
        }
        XCTAssertEqual(pump.trueTime, 300_000, "the disconnect happens at its time, not at the deadline")
        XCTAssertTrue(pump.isDisconnected)
        XCTAssertThrowsError(try pump.run(session, until: HostTime(nanoseconds: 2_000_000_000)))
    }

    func testThePumpResetsTheDeviceAtItsTime() throws {
        let device = VirtualDevice()
        let pump = SimulatedPump(device: device, clock: ManualClock())
        pump.deviceFaults = SimulatedPump.deviceFaults(of: try FaultPlan(parsing: "reset@250ms,reset@100ms"))
        try pump.run(LinkSession(clock: pump.manualClock), until: HostTime(nanoseconds: 400_000_000))
        XCTAssertEqual(device.resetCount, 2)
        XCTAssertLessThan(Int(device.deviceClock(atTrueTime: device.now)), Int(device.now) - 250_000 + 5_000, "the clock restarted at the last reset")
    }
}
