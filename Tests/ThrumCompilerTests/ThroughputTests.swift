import Foundation
import XCTest
import ThrumPattern
import ThrumTime
@testable import ThrumCompiler

final class ThroughputTests: XCTestCase {
    /// Compiles 100 000 events and prints the rate; asserts only correctness (timing is a
    /// benchmark, not a test; debug builds are much slower than release).
    func testCompileThroughput() {
        var rng = SplitMix64(seed: 2026)
        var events: [HapticEvent] = []
        events.reserveCapacity(100_000)
        var t = 0.0
        for k in 0..<100_000 {
            t += Double.random(in: 0.005...0.05, using: &rng)
            let i = Float(Int.random(in: 1...10, using: &rng)) / 10
            let s = Float(Int.random(in: 0...4, using: &rng)) / 4
            if k % 5 == 4 {
                events.append(continuous(t, Double(Int.random(in: 1...20, using: &rng)) / 100, intensity: i, sharpness: s))
            } else {
                events.append(transient(t, intensity: i, sharpness: s))
            }
        }
        let curves = [HapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: [
            .init(relativeTime: 0, value: 1), .init(relativeTime: 100, value: 0.2), .init(relativeTime: 200, value: 1),
        ], relativeTime: 10)]
        let pattern = HapticPattern(events: events, parameters: [], parameterCurves: curves)
        let compiler = PatternCompiler(profile: .default)
        let start = DispatchTime.now().uptimeNanoseconds
        let program = compiler.compile(pattern)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
        print(String(format: "compile throughput: %d events in %.3f s = %.0f events/s, %d segments (%.1f per event)",
                     events.count, seconds, Double(events.count) / seconds, program.segments.count,
                     Double(program.segments.count) / Double(events.count)))
        XCTAssertEqual(program.events.count, 100_000)
        XCTAssertEqual(
            program.segments.filter { $0.eventID != 0 }.count, program.events.filter { $0.played && $0.sharesOnsetWith == nil }.count)
        assertInvariants(program)
    }
}
