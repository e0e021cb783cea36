import XCTest
import ThrumPattern
@testable import ThrumCompiler

final class MixingTests: XCTestCase {
    func amp(_ p: DriveProgram, _ t: Double) -> Double { p.amplitude(atMicroseconds: micros(t)) }

    /// Two overlapping continuous events at 0.5 mix to 1 − (1 − 0.5)² = 0.75 (soft-clipped sum).
    func testOverlappingEventsSoftSum() {
        let events = [continuous(0, 0.4, intensity: 0.5), continuous(0.2, 0.4, intensity: 0.5)]
        let p = plainCompiler().compile(pattern(events))
        XCTAssertEqual(amp(p, 0.1), 127.5, accuracy: 0.5)
        XCTAssertEqual(amp(p, 0.3), 0.75 * 255, accuracy: 0.5)
        XCTAssertEqual(amp(p, 0.5), 127.5, accuracy: 0.5)
        // Never above full scale; a full-scale event absorbs the other.
        let q = plainCompiler().compile(pattern([continuous(0, 0.4), continuous(0.1, 0.1, intensity: 0.7)]))
        XCTAssertEqual(amp(q, 0.15), 255)
        assertInvariants(p)
        assertInvariants(q)
    }

    func testOtherMixingModes() {
        let events = [continuous(0, 0.4, intensity: 0.5), continuous(0.2, 0.4, intensity: 0.4)]
        let m = plainCompiler(mixing: .max).compile(pattern(events))
        XCTAssertEqual(amp(m, 0.3), 127.5, accuracy: 0.5)
        let s = plainCompiler(mixing: .clippedSum).compile(pattern(events))
        XCTAssertEqual(amp(s, 0.3), 0.9 * 255, accuracy: 0.5)
        assertInvariants(m)
        assertInvariants(s)
    }

    /// A ramp crossing another ramp is approximated within a couple of LSB.
    func testOverlappingRampsStayClose() {
        let a = continuous(0, 1, extra: [.init(parameterID: .attackTime, value: 1)])          // 0 → 1 over 1 s
        let b = continuous(0.2, 0.5, intensity: 0.5, extra: [.init(parameterID: .attackTime, value: 0.8)])
        let p = plainCompiler().compile(pattern([a, b]))
        let attackB = HapticSemantics.envelopeTime(0.8, min: 0, max: 1)
        for t in stride(from: 0.21, to: 0.69, by: 0.037) {
            let va = t
            let vb = 0.5 * min(1, (t - 0.2) / attackB)
            let expected = (1 - (1 - va) * (1 - vb)) * 255
            XCTAssertEqual(amp(p, t), expected, accuracy: 2, "t=\(t)")
        }
        assertInvariants(p)
    }

    /// Each event gets its own marked segment even when it lands inside another event.
    func testTwoTransientsThirteenMillisecondsApart() {
        for compiler in [plainCompiler(), PatternCompiler(profile: .default)] {
            let p = compiler.compile(pattern([transient(0.1, sharpness: 0.2), transient(0.113, sharpness: 0.2)]))
            let marked = p.segments.filter { $0.eventID != 0 }
            XCTAssertEqual(marked.map(\.eventID), [1, 2])
            XCTAssertEqual(marked[1].start - marked[0].start, 13_000)
            assertInvariants(p)
        }
    }

    func testOnsetInsideContinuousIsMarked() {
        let p = plainCompiler().compile(pattern([continuous(0, 1), transient(0.5)]))
        let second = p.segments.first { $0.eventID == 2 }
        XCTAssertEqual(second?.start, 500_000)
        XCTAssertEqual(second?.from, 255)
        assertInvariants(p)
    }

    /// Simultaneous events begin as one: a single marked segment, whose onset the others share
    /// (the device could not start three segments 1 µs apart on time).
    func testSimultaneousEventsShareOneMarkedSegment() {
        let p = plainCompiler().compile(pattern([transient(0.2), transient(0.2), transient(0.2, intensity: 0.3)]))
        let marked = p.segments.filter { $0.eventID != 0 }
        XCTAssertEqual(marked.map(\.start), [200_000])
        XCTAssertEqual(p.events.map(\.sharesOnsetWith), [nil, marked[0].eventID, marked[0].eventID])
        XCTAssertEqual(Set(p.events.map(\.driveOnset)), [200_000])
        assertInvariants(p)
    }

    func testZeroIntensityEventIsStillMarked() {
        let p = plainCompiler().compile(pattern([transient(0.1, intensity: 0), continuous(0.3, 0)]))
        XCTAssertEqual(p.segments.filter { $0.eventID != 0 }.count, 2)
        XCTAssertTrue(p.segments.allSatisfy { $0.from == 0 && $0.to == 0 })
        assertInvariants(p)
    }

    /// Every silence starts with an explicit zero, so the chip brakes at the end of each burst.
    func testSilenceStartsWithZero() {
        let p = plainCompiler().compile(pattern([transient(0.1, sharpness: 1), transient(0.3, sharpness: 1)]))
        XCTAssertEqual(p.segments.map { [$0.from, $0.to] }, [[255, 255], [0, 0], [255, 255], [0, 0]])
        XCTAssertEqual(p.segments[1].start, p.segments[0].end)
        XCTAssertEqual(p.segments[1].duration, 1000)
    }
}
