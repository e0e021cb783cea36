import Foundation
import XCTest
import ThrumPattern
@testable import ThrumCompiler

final class PreShiftTests: XCTestCase {
    /// Time at which the predicted acceleration first reaches half its peak.
    func feltOnset(_ pattern: HapticPattern, _ profile: ActuatorProfile, compensate: Bool) -> Double {
        let r = EnvelopeRenderer(profile: profile, options: .init(feltOnsetCompensation: compensate)).render(pattern, sampleRate: 50_000)
        let peak = r.acceleration.max()!
        let i = r.acceleration.firstIndex { $0 >= peak / 2 }!
        return r.time[i]
    }

    func testShiftIsEarlierAndSized() {
        for profile in ActuatorProfile.builtIn {
            let p = PatternCompiler(profile: profile).compile(pattern([transient(0.1)]))
            let e = p.events[0]
            XCTAssertLessThan(e.driveOnset, 100_000, profile.id)     // drive starts before the requested time
            XCTAssertGreaterThan(e.preShift, 0.003, profile.id)      // at least a few ms (half a cycle + rise)
            XCTAssertLessThan(e.preShift, 0.025, profile.id)         // but not more than a τ
            XCTAssertEqual(p.segments.first { $0.eventID == e.id }?.start, e.driveOnset)
        }
    }

    func testShiftCanBeDisabled() {
        let p = plainCompiler().compile(pattern([transient(0.1), continuous(0.3, 0.2)]))
        XCTAssertEqual(p.events.map(\.driveOnset), [100_000, 300_000])
        XCTAssertTrue(p.events.allSatisfy { abs($0.preShift) < 1e-9 })
    }

    /// An onset at time 0 pre-shifts to a negative drive start.
    func testNegativeStart() {
        let p = PatternCompiler(profile: .default).compile(pattern([transient(0)]))
        XCTAssertLessThan(p.segments[0].start, 0)
        XCTAssertEqual(p.segments[0].eventID, 1)
        assertInvariants(p)
    }

    /// With compensation the predicted felt onset lands on the requested time (the compiler's own
    /// model, so within the model's sampling error); without it, it lands late by the shift.
    func testFeltOnsetLandsOnRequestedTime() {
        for profile in ActuatorProfile.builtIn {
            for s: Float in [0, 0.5, 1] {
                for i: Float in [0.3, 1] {
                    let pat = pattern([transient(0.05, intensity: i, sharpness: s)])
                    let on = feltOnset(pat, profile, compensate: true)
                    XCTAssertEqual(on, 0.05, accuracy: 0.0003, "\(profile.id) s=\(s) i=\(i)")
                    let off = feltOnset(pat, profile, compensate: false)
                    // From idle the driver starts at once (no half-period wait): a sharp, weak tick is ≈ 2.8 ms late.
                    XCTAssertGreaterThan(off - 0.05, 0.0025, "\(profile.id) s=\(s) i=\(i)")
                }
            }
            let cont = pattern([continuous(0.05, 0.5, intensity: 0.8)])
            XCTAssertEqual(feltOnset(cont, profile, compensate: true), 0.05, accuracy: 0.0003, profile.id)
        }
    }

    /// The pre-shift moves the attack, not the end: a step's drive ends the fall's felt delay
    /// before the requested end, not a pre-shift before it, and a transient's burst holds its
    /// peak longer by the pre-shift less that delay (the requested envelope keeps its length).
    func testOnlyTheAttackMovesByThePreShift() throws {
        let compiler = PatternCompiler(profile: .default)
        let fallLead = FeltOnsetEstimator(response: compiler.response).fallLead
        XCTAssertGreaterThan(fallLead, 0.002)
        XCTAssertLessThan(fallLead, 0.015)
        let step = compiler.compile(pattern([continuous(0.1, 0.3, intensity: 1, sharpness: 1)]))
        let shift = step.events[0].preShift
        XCTAssertGreaterThan(shift, fallLead)
        let end = try XCTUnwrap(step.segments.last { $0.from != 0 || $0.to != 0 })
        XCTAssertEqual(Double(end.end) * 1e-6, 0.4 - fallLead, accuracy: 0.0002, "held by \(shift - fallLead) s")
        let plain = plainCompiler().compile(pattern([transient(0.1)]))
        let held = compiler.compile(pattern([transient(0.1)]))
        func burst(_ p: DriveProgram) -> Double {
            let on = p.segments.filter { $0.from != 0 || $0.to != 0 }
            return Double(on.last!.end - on.first!.start) * 1e-6
        }
        XCTAssertEqual(burst(held) - burst(plain), held.events[0].preShift - fallLead, accuracy: 0.0005)
    }

    /// A ramped attack: the felt envelope crosses 50 % where the requested ramp does (half the attack).
    func testRampedAttackLandsAtHalfTheAttack() {
        let e = continuous(0.1, 1, extra: [.init(parameterID: .attackTime, value: 0.6)])
        let attack = HapticSemantics.envelopeTime(0.6, min: 0, max: 1)
        let on = feltOnset(pattern([e]), .default, compensate: true)
        XCTAssertEqual(on, 0.1 + attack / 2, accuracy: 0.0005)
    }
}
