import ThrumCompiler
@testable import ThrumEngine
import ThrumPattern
import ThrumTestSupport
import ThrumTime
import XCTest

/// Where the streaming engine cuts the drive it mixes into chunks (`SharedDevice.emit`), judged
/// on the simulated chip's register trace.
final class StreamChunkTests: XCTestCase {
    /// An onset 5 µs before a mixed chunk's edge. Before, the chunk ended 5 µs into the event's
    /// ramp up from 0, which quantised to a marked 0 → 0 sliver: the device wrote that 0 (its
    /// onset, PROTOCOL.md §4.1) and the ramp that took over at the edge drove one I²C write
    /// (≈ 73 µs) late — the 120-pass heartbeat's pass 51 (docs/timing.md). Now the chunk ends at
    /// the mark and the next one carries the event's first segment whole: no write of 0 before
    /// the drive, and the beat keeps its rhythm with one placed mid-chunk.
    func testAnOnsetJustBeforeAChunkEdgeDrivesOnTime() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let device = rig.engine.device
        // A second player keeps the engine mixing (one player alone goes out verbatim, whole
        // compiled segments, never cut at a chunk edge); its one beat is far away.
        let far = HapticPattern(events: [transient(5)], parameters: [], parameterCurves: [])
        try rig.engine.makePlayer(with: far).start(atTime: rig.now + 0.05)
        rig.engine.run(for: 0.1)
        // Two heartbeat lubs 105 ms apart: the first one's onset 5 µs before a chunk edge, the
        // second's mid-chunk.
        let lub = transient(0, intensity: 1, sharpness: 0.35)
        var dub = lub
        dub.relativeTime = 0.105
        let player = try XCTUnwrap(
            try rig.engine.makePlayer(with: HapticPattern(events: [lub, dub], parameters: [], parameterCurves: []))
                as? StreamingPatternPlayer)
        let preroll = try XCTUnwrap(player.currentCompiled).preroll
        let (grid, chunk) = device.locked { (device.emittedUntil, device.renderChunk) }
        let edge = grid + chunk * 30
        let mark = edge - .microseconds(5)
        try player.start(atTime: (mark + preroll).seconds)
        rig.engine.run(until: edge.seconds + 0.3)

        let records = device.allOnsets.filter { $0.playerID == player.playerID }
        XCTAssertEqual(records.map(\.status), [.onTime, .onTime])
        let truths = try records.map { try XCTUnwrap(rig.trueOnset($0)) }
        XCTAssertEqual(truths.count, 2)
        XCTAssertEqual(truths[1] - truths[0], 0.105, accuracy: 20e-6, "the beat at the chunk edge drove \(((0.105 - (truths[1] - truths[0])) * 1e6).rounded()) µs late")
        // The chip's truth: the first beat's drive begins with its first non-zero write, no
        // write of 0 in the millisecond before it (the output was already 0).
        let writes = rig.rtpWrites(from: mark.seconds - 0.001, to: mark.seconds + 0.001)
        let first = try XCTUnwrap(writes.first, "no drive near the onset")
        XCTAssertNotEqual(first.1, 0, "a write of 0 at \(first.0) s before the drive: \(writes)")
    }

    /// A slow attack mixed with another player: a continuous event at intensity 0.1 with a 1 s
    /// AttackTime compiles to one marked ramp 0 → 26 over 1 s, whose first drive (its crossing)
    /// is 19 ms in. Before, the chunk that began at its mark ended 10 ms in: 0 → 0, a marked
    /// all-zero segment — the device reported the onset at its write of 0, on time, while the
    /// chip first drove 15 ms later (the bound missed the truth). Now the chunk runs to the
    /// segment's end, and the placement starts it earlier by the lead that puts its crossing on
    /// the onset — too long for one segment then, so split (`SegmentCommand.led`). Before that
    /// lead, the chunk ended short of the 1 s limit and the ramp, led by its own crossing, first
    /// drove 0.4 ms late (`RampCrossingTests`); now where it was planned.
    func testASlowAttackMixedWithAnotherPlayerDrivesAtItsCrossing() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let device = rig.engine.device
        let far = HapticPattern(events: [transient(5)], parameters: [], parameterCurves: [])
        try rig.engine.makePlayer(with: far).start(atTime: rig.now + 0.05)
        rig.engine.run(for: 0.1)
        let swell = TestPatterns.continuous(
            at: 0, duration: 1.2, intensity: 0.1, extra: [HapticEventParameter(parameterID: .attackTime, value: 1)])
        let player = try XCTUnwrap(
            try rig.engine.makePlayer(with: HapticPattern(events: [swell], parameters: [], parameterCurves: [])) as? StreamingPatternPlayer)
        let first = try XCTUnwrap(player.currentCompiled?.program.segments.first)
        XCTAssertEqual([first.duration, UInt32(first.from), UInt32(first.to)], [1_000_000, 0, 26], "the case this test is about")
        let start = rig.now + 0.3
        try player.start(atTime: start)
        rig.engine.run(until: start + 1.3)
        let record = try XCTUnwrap(device.allOnsets.first { $0.playerID == player.playerID })
        XCTAssertEqual(record.status, .onTime)
        // The truth: the chip's first non-zero drive (the bound must hold it: EngineRig.trueOnset).
        let truth = try XCTUnwrap(rig.trueOnset(record))
        XCTAssertEqual(truth, record.requestedTime, accuracy: 0.0005)
        let writes = rig.rtpWrites(from: start - 0.05, to: start + 0.05)
        let drive = try XCTUnwrap(writes.first, "no drive near the onset")
        XCTAssertNotEqual(drive.1, 0, "a write of 0 before the drive: \(writes)")
        // The chip's first drive where it was planned, within one I²C write (it was 0.4 ms late).
        XCTAssertEqual(drive.0, record.intendedDriveTime, accuracy: RampCrossingTests.oneWrite * 1e-6)
    }
}
