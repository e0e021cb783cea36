import XCTest
import ThrumPattern
import ThrumTestSupport
@testable import ThrumCompiler

// The compiler tests' defaults on the shared builders.
func transient(_ t: Double, intensity: Float? = 1, sharpness: Float? = 0.5, extra: [HapticEventParameter] = []) -> HapticEvent {
    TestPatterns.transient(at: t, intensity: intensity, sharpness: sharpness, extra: extra)
}

func continuous(_ t: Double, _ d: Double, intensity: Float = 1, sharpness: Float = 1, extra: [HapticEventParameter] = []) -> HapticEvent {
    TestPatterns.continuous(at: t, duration: d, intensity: intensity, sharpness: sharpness, extra: extra)
}

func pattern(_ events: [HapticEvent], parameters: [HapticDynamicParameter] = [], curves: [HapticParameterCurve] = []) -> HapticPattern {
    HapticPattern(events: events, parameters: parameters, parameterCurves: curves)
}

/// A compiler without the pre-shift, so requested times and drive times coincide.
func plainCompiler(_ profile: ActuatorProfile = .default, mixing: CompileOptions.Mixing = .softSum) -> PatternCompiler {
    PatternCompiler(profile: profile, options: CompileOptions(feltOnsetCompensation: false, mixing: mixing))
}

/// Checks the segment invariants of the protocol and the brief.
func assertInvariants(_ p: DriveProgram, file: StaticString = #filePath, line: UInt = #line) {
    var previousEnd = Int64.min
    var previousStart = Int64.min
    for s in p.segments {
        XCTAssertGreaterThanOrEqual(s.duration, 1, file: file, line: line)
        XCTAssertLessThanOrEqual(s.duration, 1_000_000, file: file, line: line)
        XCTAssertGreaterThan(s.start, previousStart, "sorted by start", file: file, line: line)
        XCTAssertGreaterThanOrEqual(s.start, previousEnd, "non-overlapping", file: file, line: line)
        previousStart = s.start
        previousEnd = s.end
    }
    // Every played event is marked exactly once, at its drive onset — or, when the drive is 0
    // there (an event fading in from zero), at the first segment that drives: it starts at
    // amplitude 1 or more, and the drive before it, back to the onset, stays under 1 (but for
    // a sliver folded into an earlier event's fall).
    var marks: [UInt32: Int64] = [:]
    for s in p.segments where s.eventID != 0 {
        XCTAssertNil(marks[s.eventID], "event \(s.eventID) marked twice", file: file, line: line)
        marks[s.eventID] = s.start
        guard let onset = p.event(id: s.eventID)?.driveOnset, s.start > onset else { continue }
        XCTAssertGreaterThan(s.from, 0, "event \(s.eventID) marked after its onset on a segment that does not drive", file: file, line: line)
        // (A zero sliver under 100 µs before the mark is folded into the drive before it.)
        for t in [onset, (onset + s.start) / 2, s.start - 1] where s.start - t >= 100 {
            XCTAssertLessThan(p.amplitude(atMicroseconds: t), 1, "event \(s.eventID) marked after its drive began", file: file, line: line)
        }
        XCTAssertEqual(p.event(id: s.eventID)?.driveDelay, s.start - onset, "event \(s.eventID)'s drive delay", file: file, line: line)
        marks[s.eventID] = onset  // where the event begins; its drive begins at the mark
    }
    for e in p.events {
        if e.played, let leader = e.sharesOnsetWith {
            // Layered with an earlier event: not marked itself, begins at that event's mark.
            XCTAssertNil(marks[e.id], "event \(e.id) shares an onset but is marked", file: file, line: line)
            XCTAssertEqual(marks[leader], e.driveOnset, "event \(e.id) begins at its leader's mark", file: file, line: line)
        } else if e.played {
            XCTAssertEqual(marks[e.id], e.driveOnset, "event \(e.id) marked at its onset", file: file, line: line)
        } else {
            XCTAssertNil(marks[e.id], file: file, line: line)
        }
    }
    // Events in time order with 1-based unique ids.
    XCTAssertEqual(Set(p.events.map(\.id)).count, p.events.count, file: file, line: line)
    let times = p.events.map { $0.requestedTime.isNaN ? Double.infinity : $0.requestedTime }
    XCTAssertTrue(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "events in time order", file: file, line: line)
    XCTAssertFalse(p.events.contains { $0.id == 0 }, file: file, line: line)
}
