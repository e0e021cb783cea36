import Foundation
import ThrumCompiler
@testable import ThrumEngine
import ThrumHarness
import ThrumLibrary
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import ThrumWire
import XCTest

/// A slow attack (a marked ramp up from 0 over 0.6–1 s) first drives where the event's drive was
/// planned, judged on the simulated chip's register trace: streamed alone (its compiled segments
/// go out verbatim, a long one through the render chunks), mixed with another player (in render
/// chunks), prepared and started with a GO, and stored in a library and played by id. The device
/// first drives such a ramp at its crossing (PROTOCOL.md §4.1), so the host starts it earlier
/// keeping its end; the lengthened ramp is shallower, and a lead of the original ramp's crossing
/// made it first drive `lead / (2 × to)` late: 0.2–0.4 ms on a ramp to 26 over 0.6–1 s, 152 ms on a
/// ramp to 1 over 0.6 s; a library could not hold a 1 s ramp to 26 (lengthened past the 1 s
/// limit), and a prepared program was not led at all. Now the lead is the fixed point of the
/// lengthened ramp's own crossing (`SegmentCommand.startLead`), a ramp too long for it is split
/// (`SegmentCommand.led`), and every path sends that one form. Figures: docs/timing.md.
final class RampCrossingTests: XCTestCase {
    /// A slow attack: a continuous event whose first compiled segment is a marked ramp from 0 to
    /// `to` over `seconds`.
    struct Attack {
        var to: UInt8
        var seconds: Double
        /// The event's intensity: amplitude `to` (the drive is linear in intensity).
        var intensity: Float { to == 1 ? 0.004 : Float(to) / 255 }
        /// The AttackTime giving `seconds` (`HapticSemantics.envelopeTime`, inverted).
        var attackTime: Float {
            let b = HapticSemantics.envelopeTimeBase
            return Float(log(1 + seconds * (b - 1)) / log(b))
        }
    }

    /// To 1 over 0.6 s (the old lead made it 150 ms late; lengthened to its fixed point it is
    /// twice as long: split, its marked half led by 0.3 s, so it comes first, with nothing
    /// before it), to 26 over 0.6 s (0.2 ms late before), 0.97 s (the longest that fits 1 s
    /// lengthened) and 1 s (too long lengthened: split; ramps to 255 and any `to` are split alike:
    /// `SegmentCommand.led`'s own tests).
    static let alone = [Attack(to: 1, seconds: 0.6), Attack(to: 26, seconds: 0.6), Attack(to: 26, seconds: 1)]
    static let mixed = [Attack(to: 1, seconds: 0.6), Attack(to: 26, seconds: 0.97)]
    /// A preset's drive may start at most 65 ms before its pattern time 0 (its lead is 16 bits):
    /// no ramp to 1 first (its lead is 0.3 s).
    static let stored = [Attack(to: 26, seconds: 0.6), Attack(to: 26, seconds: 1)]

    /// The attacks one after the other, each held 10 ms and released in 10 ms, 0.1 s apart.
    static func pattern(_ attacks: [Attack]) -> HapticPattern {
        HapticPattern(
            events: zip(attacks, starts(attacks)).map { a, t in
                TestPatterns.continuous(
                    at: t, duration: a.seconds + 0.01, intensity: a.intensity,
                    extra: [
                        HapticEventParameter(parameterID: .attackTime, value: a.attackTime),
                        HapticEventParameter(parameterID: .releaseTime, value: 0.01),
                    ])
            }, parameters: [], parameterCurves: [])
    }

    static func starts(_ attacks: [Attack]) -> [Double] {
        var t = 0.0
        return attacks.map { a in
            defer { t += a.seconds + 0.1 }
            return t
        }
    }

    /// How long `attacks` play.
    static func length(_ attacks: [Attack]) -> Double { attacks.reduce(0) { $0 + $1.seconds + 0.1 } }

    /// The marked first segment of each event as compiled.
    static func firstSegments(_ program: DriveProgram) -> [DriveSegment] {
        var seen: Set<UInt32> = []
        return program.segments.filter { $0.eventID != 0 && seen.insert($0.eventID).inserted }
    }

    /// The compiled ramps are the cases this test is about.
    static func checkCases(_ program: DriveProgram, _ attacks: [Attack], file: StaticString = #filePath, line: UInt = #line) {
        let ramps = firstSegments(program)
        XCTAssertEqual(ramps.count, attacks.count, file: file, line: line)
        for (s, a) in zip(ramps, attacks) {
            XCTAssertEqual([s.from, s.to], [0, a.to], file: file, line: line)
            // The ramp runs to the event's end, 10 ms after the attack's.
            XCTAssertEqual(Double(s.duration), min(1e6, a.seconds * 1e6 + 10_000), accuracy: 1000, file: file, line: line)
        }
    }

    /// The chip's first non-zero RTP_INPUT write from 5 ms before `planned` (engine s) on.
    static func firstDrive(on device: VirtualDevice, near planned: Double) -> Double? {
        device.chip.trace.registerWrites.first {
            $0.register == 0x02 && $0.value != 0 && Double($0.time) >= (planned - 0.005) * 1e6
        }
        .map { Double($0.time) / 1e6 }
    }

    /// Plays the attacks on the engine (alone, or mixed with a player whose one transient comes
    /// after them) and returns each event's first drive by the chip minus its planned drive, µs.
    func streamedErrors(_ attacks: [Attack], mixed: Bool) throws -> (errors: [Double], rig: EngineRig) {
        let rig = EngineRig()
        try rig.engine.start()
        let end = Self.length(attacks)
        if mixed {
            let far = HapticPattern(events: [transient(end + 0.2)], parameters: [], parameterCurves: [])
            try rig.engine.makePlayer(with: far).start(atTime: rig.now + 0.05)
        }
        rig.engine.run(for: 0.1)
        let player = try XCTUnwrap(try rig.engine.makePlayer(with: Self.pattern(attacks)) as? StreamingPatternPlayer)
        Self.checkCases(try XCTUnwrap(player.currentCompiled).program, attacks)
        let start = rig.now + 0.3
        try player.start(atTime: start)
        rig.engine.run(until: start + end)
        XCTAssertTrue(rig.engine.device.session.faults.isEmpty, "the device refused nothing: \(rig.engine.device.session.faults)")
        let records = rig.engine.device.allOnsets.filter { $0.playerID == player.playerID }.sorted { $0.requestedTime < $1.requestedTime }
        XCTAssertEqual(records.count, attacks.count)
        let errors = try records.map { record in
            XCTAssertEqual(record.status, .onTime, "event \(record.patternIndex)")
            let drive = try XCTUnwrap(Self.firstDrive(on: rig.device, near: record.intendedDriveTime), "event \(record.patternIndex) never drove")
            return ((drive - record.intendedDriveTime) * 1e6).rounded()
        }
        return (errors, rig)
    }

    /// One I²C write (PROTOCOL.md §4.1): what a first drive may be off by on the virtual device.
    static let oneWrite = 73.0

    func assertOnTime(_ errors: [Double], _ attacks: [Attack], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        print("\(what): first drive − planned drive by the chip, µs: \(zip(attacks, errors).map { "to \($0.to) over \($0.seconds) s: \($1)" })")
        for (e, a) in zip(errors, attacks) {
            XCTAssertLessThanOrEqual(abs(e), Self.oneWrite, "\(what): to \(a.to) over \(a.seconds) s first drove \(e) µs off its plan", file: file, line: line)
        }
    }

    /// Streamed alone; then, on the same engine, a prepared pattern (preloaded into a device
    /// program slot) started with a GO: the program the device holds is the same device form
    /// (`ProgramPacker.deviceForm`). Before, it held the compiled segments, so the ramp first drove
    /// at its own crossing, 11.7 ms late on a ramp to 26 over 0.61 s.
    func testASlowAttackStreamedAloneOrPreparedFirstDrivesOnItsPlan() throws {
        let (errors, rig) = try streamedErrors(Self.alone, mixed: false)
        assertOnTime(errors, Self.alone, "alone")

        let engine = rig.engine
        let attacks = [Attack(to: 26, seconds: 0.6)]
        let pattern = Self.pattern(attacks)
        try engine.prepare(pattern)
        XCTAssertTrue(engine.isPreloaded(pattern))
        engine.run(for: 0.1)
        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: rig.now + 0.05)
        engine.run(for: Self.length(attacks) + 0.1)
        XCTAssertEqual(engine.preparedStarts, 1, "a GO")
        let record = try XCTUnwrap(engine.onsets(for: player).first)
        XCTAssertEqual(record.status, .onTime)
        let drive = try XCTUnwrap(Self.firstDrive(on: rig.device, near: record.intendedDriveTime), "the chip never drove")
        assertOnTime([((drive - record.intendedDriveTime) * 1e6).rounded()], attacks, "prepared")
        XCTAssertNotNil(rig.trueOnset(record), "the bound holds the chip's first drive")
    }

    func testASlowAttackMixedWithAnotherPlayerFirstDrivesOnItsPlan() throws {
        assertOnTime(try streamedErrors(Self.mixed, mixed: true).errors, Self.mixed, "mixed")
    }

    /// The same attacks built into a library (`LibraryBuilder`, as `thrum library build`),
    /// written to the virtual device's storage and played by id: each event's first drive lands
    /// where the compiled program plans it (pattern time 0 the preset's lead after its start).
    func testASlowAttackStoredInALibraryFirstDrivesOnItsPlan() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ramp-crossing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.pattern(Self.stored).ahapString().write(to: directory.appendingPathComponent("attacks.ahap"), atomically: true, encoding: .utf8)
        let manifest = #"{ "name": "attacks", "version": 1, "presets": [ { "id": 7, "name": "attacks", "ahap": "attacks.ahap" } ] }"#
        try manifest.write(to: directory.appendingPathComponent("library.json"), atomically: true, encoding: .utf8)
        let built = try LibraryBuilder().build(directory: directory.path)
        let program = PatternCompiler(profile: built.profile).compile(Self.pattern(Self.stored))
        Self.checkCases(program, Self.stored)

        var configuration = VirtualDeviceFactory.configuration(for: built.profile)
        configuration.storage = LibraryStorage()
        let rig = VirtualRig(profile: built.profile, deviceConfiguration: configuration)
        try rig.connect(calibrate: false)
        try rig.session.writeLibrary(try built.image.encode())
        let engine = try rig.engine()
        // The image written is the one the device holds (LibraryEndToEndTests reads it back).
        let image = built.image
        let preset = try XCTUnwrap(image.preset(id: 7))
        engine.run(for: 0.2)
        let started = try engine.playStoredPreset(preset, in: image, atTime: engine.currentTime + 0.05)
        engine.run(for: Self.length(Self.stored) + 0.1)
        XCTAssertTrue(rig.session.faults.isEmpty, "the device refused nothing: \(rig.session.faults)")
        // Pattern time 0 of the stored program, engine s (engine µs = host µs = the chip's µs).
        let origin = started.driveStart.seconds + Double(preset.lead) / 1e6
        let planned = Self.firstSegments(program).map { origin + Double($0.start) / 1e6 }
        var errors: [Double] = []
        for (mark, plan) in zip(started.marks, planned) {
            let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
            XCTAssertEqual(record.status, PlaybackReport.OnsetStatus.onTime)
            let drive = try XCTUnwrap(Self.firstDrive(on: rig.device, near: plan), "the chip never drove event \(mark)")
            errors.append(((drive - plan) * 1e6).rounded())
            // The host expects the onset where the chip drove it (its bound holds the truth).
            XCTAssertEqual(record.intendedDriveTime, plan, accuracy: 2e-6, "the host's plan for event \(mark)")
        }
        XCTAssertEqual(errors.count, Self.stored.count)
        assertOnTime(errors, Self.stored, "stored")
    }
}
