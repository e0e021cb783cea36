import ThrumEngine
import ThrumLink
import ThrumPattern
import ThrumSim
import XCTest

/// The compact stream (PROTOCOL.md §3.4) against the SEGMENT stream: the same engine session,
/// played once with `compactStream` off and once on (the virtual device speaks version 2 either
/// way), must give the chip the same drive — every RTP_INPUT write within 10 µs and of the same
/// value — and the same onset reports, in a fraction of the bytes.
final class CompactStreamTests: XCTestCase {
    /// What one playing did: the chip's RTP_INPUT writes (µs, value), the onsets, the link.
    struct Played {
        var writes: [(UInt64, UInt8)]
        var onsets: [OnsetRecord]
        /// Bytes of sequenced frames (the drive and commands; pings left out).
        var bytesSent: Int
        var segmentsSent: Int
        var encoder: CompactStreamEncoder?
    }

    private func play(compact: Bool, _ script: (EngineRig) throws -> [OnsetRecord]) throws -> Played {
        var session = DeviceSession.Configuration()
        session.link.compactStream = compact
        let rig = EngineRig(session: session)
        try rig.engine.start()
        rig.engine.run(for: 0.1)
        let bytesBefore = rig.session.link.statistics.sequencedBytesSent
        let onsets = try script(rig)
        let writes = rig.device.chip.trace.registerWrites.filter { $0.register == 0x02 }.map { ($0.time, $0.value) }
        return Played(
            writes: writes, onsets: onsets, bytesSent: rig.session.link.statistics.sequencedBytesSent - bytesBefore,
            segmentsSent: rig.engine.segmentsSent, encoder: rig.session.link.compactStream)
    }

    /// Plays `script` both ways and checks the chip saw the same drive; returns both.
    @discardableResult
    private func assertSameDrive(
        file: StaticString = #filePath, line: UInt = #line, _ script: (EngineRig) throws -> [OnsetRecord]
    ) throws -> (segments: Played, compact: Played) {
        let a = try play(compact: false, script)
        let b = try play(compact: true, script)
        XCTAssertNil(a.encoder, file: file, line: line)
        let encoder = try XCTUnwrap(b.encoder, "a version-2 device gets the compact stream", file: file, line: line)
        XCTAssertGreaterThan(a.writes.count, 20, file: file, line: line)
        XCTAssertEqual(a.writes.count, b.writes.count, "RTP_INPUT writes", file: file, line: line)
        var worst: UInt64 = 0
        for (x, y) in zip(a.writes, b.writes) {
            XCTAssertEqual(x.1, y.1, "value written at \(x.0) µs", file: file, line: line)
            worst = max(worst, x.0 > y.0 ? x.0 - y.0 : y.0 - x.0)
        }
        XCTAssertLessThanOrEqual(worst, 10, "the chip traces differ by up to \(worst) µs", file: file, line: line)
        XCTAssertEqual(a.onsets.count, b.onsets.count, file: file, line: line)
        for (x, y) in zip(a.onsets, b.onsets) {
            XCTAssertEqual(x.status, y.status, file: file, line: line)
            XCTAssertEqual(x.patternIndex, y.patternIndex, file: file, line: line)
            XCTAssertEqual(x.requestedTime, y.requestedTime, accuracy: 1e-9, file: file, line: line)
            if let p = x.driveOnsetTime, let q = y.driveOnsetTime {
                XCTAssertEqual(p, q, accuracy: 10e-6, file: file, line: line)
            }
        }
        XCTAssertEqual(a.segmentsSent, b.segmentsSent, "the engine rendered the same segments", file: file, line: line)
        XCTAssertGreaterThan(encoder.segmentsAsShapes + encoder.segmentsAsFollow, 0, file: file, line: line)
        XCTAssertLessThan(b.bytesSent, a.bytesSent, "fewer bytes on the wire", file: file, line: line)
        return (a, b)
    }

    /// Transients of a few kinds repeated (shapes, each defined once) and a continuous event.
    func testStreamedPatternDrivesTheChipAsSegmentsDo() throws {
        var events: [HapticEvent] = []
        for k in 0..<12 {
            events.append(transient(0.12 * Double(k), intensity: k % 3 == 0 ? 1 : 0.6, sharpness: k % 2 == 0 ? 0.8 : 0.3))
        }
        events.append(continuous(1.5, duration: 0.4, intensity: 0.8))
        let pattern = try HapticPattern(events: events, parameters: [])
        let (a, b) = try assertSameDrive { rig in
            let player = try rig.engine.makePlayer(with: pattern)
            try player.start(atTime: rig.now + 0.05)
            rig.engine.runUntilPlayersFinished(timeout: 3)
            rig.engine.run(for: 0.1)
            return rig.engine.onsets(for: player)
        }
        XCTAssertEqual(b.onsets.count, 13)
        XCTAssertTrue(b.onsets.allSatisfy { $0.status == .onTime }, "\(b.onsets)")
        let encoder = try XCTUnwrap(b.encoder)
        print("compact stream live: \(b.bytesSent) B of sequenced frames against \(a.bytesSent) B as SEGMENTs; "
            + "\(encoder.shapesDefined) shapes, segments as shapes \(encoder.segmentsAsShapes), as FOLLOW \(encoder.segmentsAsFollow), as SEGMENT \(encoder.segmentsAsSegment)")
        XCTAssertLessThanOrEqual(encoder.shapesDefined, 4, "four kinds of transient at most, each shape sent once")
        XCTAssertGreaterThan(encoder.segmentsAsFollow, 0, "the continuous event follows on")
        // Live, the engine's 10 ms render chunks split a transient's ramps (the mixer cuts ramps at
        // chunk edges on a short lead), so its pieces go out as FOLLOW runs rather than shapes: a
        // quarter fewer bytes here, not the packed figure of `thrum bench` (see docs/timing.md).
        XCTAssertLessThan(Double(b.bytesSent), 0.85 * Double(a.bytesSent))
    }

    /// Parameter changes (CUT and the replacement), a loop, and a stop: the same drive.
    func testCutsLoopsAndStopsDriveTheChipAsSegmentsDo() throws {
        try assertSameDrive { rig in
            let player = try rig.engine.makeAdvancedPlayer(with: metronome(beats: 3, interval: 0.08))
            player.loopEnabled = true
            player.loopEnd = 0.3
            let t0 = rig.now + 0.05
            try player.start(atTime: t0)
            rig.engine.run(until: t0 + 0.35)
            try player.sendParameters([HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)], atTime: HapticTimeImmediate)
            rig.engine.run(until: t0 + 0.7)
            try player.sendParameters([HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 1, relativeTime: 0)], atTime: HapticTimeImmediate)
            rig.engine.run(until: t0 + 1.05)
            try player.stop(atTime: HapticTimeImmediate)
            rig.engine.run(for: 0.2)
            // and a second pattern on the same connection: the shapes are already there
            let again = try rig.engine.makePlayer(with: metronome(beats: 3, interval: 0.08))
            try again.start(atTime: rig.now + 0.05)
            rig.engine.runUntilPlayersFinished(timeout: 2)
            rig.engine.run(for: 0.1)
            return rig.engine.onsets(for: player) + rig.engine.onsets(for: again)
        }
    }

    /// A prepared start (GO, any lane) then streaming behind it: the cursor is not moved by the GO.
    func testPreparedStartThenStreamDrivesTheChipAsSegmentsDo() throws {
        try assertSameDrive { rig in
            let pattern = metronome(beats: 3, interval: 0.05)
            try rig.engine.prepare(pattern)
            rig.engine.run(for: 0.1)
            let first = try rig.engine.makePlayer(with: pattern)
            try first.start(atTime: HapticTimeImmediate)
            let second = try rig.engine.makePlayer(with: metronome(beats: 5, interval: 0.07))
            try second.start(atTime: rig.now + 0.06)
            rig.engine.runUntilPlayersFinished(timeout: 2)
            rig.engine.run(for: 0.1)
            XCTAssertEqual(rig.engine.preparedStarts, 1)
            return rig.engine.onsets(for: first) + rig.engine.onsets(for: second)
        }
    }
}
