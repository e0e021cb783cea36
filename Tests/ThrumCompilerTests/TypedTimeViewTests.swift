import ThrumPattern
import ThrumTime
import XCTest

@testable import ThrumCompiler

/// The typed views of the compiler's raw µs fields (``PatternOffset``, ``EngineDuration``) read
/// and write the same numbers, so code on them (the engine) computes exactly what the raw fields
/// did.
final class TypedTimeViewTests: XCTestCase {
    func testDriveSegmentViews() {
        var s = DriveSegment(start: -1_200, duration: 3_000, from: 0, to: 200, eventID: 4)
        XCTAssertEqual(s.startOffset, PatternOffset(microseconds: -1_200))
        XCTAssertEqual(s.endOffset, PatternOffset(microseconds: 1_800))
        XCTAssertEqual(s.endOffset.microseconds, s.end)
        XCTAssertEqual(s.length, .microseconds(3_000))
        XCTAssertEqual(s.startOffset + s.length, s.endOffset)
        s.startOffset = PatternOffset(microseconds: 500)
        XCTAssertEqual(s.start, 500)
        XCTAssertEqual(s.end, 3_500)
        XCTAssertEqual(
            DriveSegment(startOffset: PatternOffset(microseconds: 7), duration: 9, from: 1, to: 2, eventID: 3),
            DriveSegment(start: 7, duration: 9, from: 1, to: 2, eventID: 3))
    }

    func testRampAndMarkViews() {
        let raw = EnvelopeRamp(start: 1_000, end: 5_000, from: 0.2, to: 0.6)
        let typed = EnvelopeRamp(
            start: PatternOffset(microseconds: 1_000), end: PatternOffset(microseconds: 5_000), from: 0.2, to: 0.6)
        XCTAssertEqual(raw, typed)
        XCTAssertEqual(typed.startOffset.microseconds, 1_000)
        XCTAssertEqual(typed.endOffset.microseconds, 5_000)
        for t: Int64 in [0, 1_000, 2_345, 4_999, 5_000, 9_000] {
            XCTAssertEqual(typed.value(at: PatternOffset(microseconds: t)), raw.value(at: t))
        }
        let segment = DriveSegment(start: -300, duration: 600, from: 0, to: 255)
        XCTAssertEqual(EnvelopeRamp(segment, origin: EngineTime(microseconds: 2_000)), EnvelopeRamp(segment, offset: 2_000))
        let mark = DriveMixer.Mark(time: PatternOffset(microseconds: 42), id: 9)
        XCTAssertEqual(mark, DriveMixer.Mark(time: 42, id: 9))
        XCTAssertEqual(mark.offset.microseconds, 42)
    }

    /// Drive on the engine's schedule (the engine mixes its players there): ramps, marks and
    /// segments read and written in ``EngineTime``, the same numbers as the raw fields; a compiled
    /// segment moved onto the schedule lies where its pattern offset plays.
    func testEngineScheduleViews() {
        let ramp = EnvelopeRamp(start: EngineTime(microseconds: 10_000), end: EngineTime(microseconds: 14_000), from: 0.2, to: 0.6)
        XCTAssertEqual(ramp, EnvelopeRamp(start: 10_000, end: 14_000, from: 0.2, to: 0.6))
        XCTAssertEqual(ramp.startTime, EngineTime(microseconds: 10_000))
        XCTAssertEqual(ramp.endTime, EngineTime(microseconds: 14_000))
        for t: Int64 in [0, 10_000, 12_345, 14_000, 20_000] {
            XCTAssertEqual(ramp.value(at: EngineTime(microseconds: t)), ramp.value(at: t))
        }
        let compiled = DriveSegment(start: -300, duration: 600, from: 0, to: 255)
        let origin = EngineTime(microseconds: 5_000_000)
        let moved = EnvelopeRamp(compiled, origin: origin)
        XCTAssertEqual(moved.startTime, compiled.startOffset.engineTime(origin: origin))
        XCTAssertEqual(moved.endTime, compiled.endOffset.engineTime(origin: origin))
        var s = DriveSegment(startTime: EngineTime(microseconds: 7), duration: 9, from: 1, to: 2, eventID: 3)
        XCTAssertEqual(s, DriveSegment(start: 7, duration: 9, from: 1, to: 2, eventID: 3))
        s.startTime = compiled.startOffset.engineTime(origin: origin)
        XCTAssertEqual(s.start, 4_999_700)
        XCTAssertEqual(s.endTime, EngineTime(microseconds: 4_999_709))
        let mark = DriveMixer.Mark(time: EngineTime(microseconds: 42), id: 9)
        XCTAssertEqual(mark, DriveMixer.Mark(time: 42, id: 9))
        XCTAssertEqual(mark.engineTime, EngineTime(microseconds: 42))
        let ramps = [EnvelopeRamp(start: 0, end: 10_000, from: 0, to: 1), EnvelopeRamp(start: 4_000, end: 12_000, from: 0.5, to: 0.2)]
        XCTAssertEqual(
            DriveMixer().segments(
                mixing: ramps, marks: [mark], from: EngineTime(microseconds: 1_000), to: EngineTime(microseconds: 11_000)),
            DriveMixer().segments(mixing: ramps, marks: [mark], from: 1_000, to: 11_000))
    }

    /// A window given as offsets mixes exactly as the same window in raw µs.
    func testMixerWindowAsOffsets() {
        let ramps = [
            EnvelopeRamp(start: 0, end: 10_000, from: 0, to: 1),
            EnvelopeRamp(start: 4_000, end: 12_000, from: 0.5, to: 0.2),
        ]
        let marks = [DriveMixer.Mark(time: 4_000, id: 2)]
        let mixer = DriveMixer()
        XCTAssertEqual(
            mixer.segments(
                mixing: ramps, marks: marks, from: PatternOffset(microseconds: 1_000),
                to: PatternOffset(microseconds: 11_000)),
            mixer.segments(mixing: ramps, marks: marks, from: 1_000, to: 11_000))
    }

    func testProgramAndEventViews() {
        let program = PatternCompiler(profile: .default).compile(pattern([transient(0.01), continuous(0.05, 0.1)]))
        XCTAssertFalse(program.segments.isEmpty)
        for e in program.events {
            XCTAssertEqual(e.driveOnsetOffset.microseconds, e.driveOnset)
        }
        for t in stride(from: Int64(-5_000), through: 200_000, by: 777) {
            XCTAssertEqual(program.amplitude(at: PatternOffset(microseconds: t)), program.amplitude(atMicroseconds: t))
        }
        var e = program.events[0]
        e.driveOnsetOffset = PatternOffset(microseconds: 123)
        XCTAssertEqual(e.driveOnset, 123)
    }
}
