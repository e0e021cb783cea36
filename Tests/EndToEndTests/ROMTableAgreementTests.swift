import ThrumPattern
import ThrumSim
import XCTest

/// ThrumSim keeps its own compact copy of the approximate ROM envelopes (it may not depend on
/// ThrumPattern); this target sees both modules, so it checks that the two tables agree.
final class ROMTableAgreementTests: XCTestCase {
    func testSimulatorEnvelopesMatchThePatternCatalogue() {
        XCTAssertEqual(ROMWaveform.table.count, ROMEffect.all.count)
        for effect in ROMEffect.all {
            guard let sim = ROMWaveform.effect(effect.id) else { return XCTFail("\(effect.id) missing") }
            let envelope = effect.envelope
            XCTAssertEqual(Double(sim.durationMicros), envelope.duration * 1e6, accuracy: 0.5, "\(effect.id) duration")
            switch (envelope.shape, sim) {
            case (.pulses(let count, let length, let interval), .pulses(let c, let l, let i, let percent)):
                XCTAssertEqual(c, count, "\(effect.id)")
                XCTAssertEqual(Double(l), length * 1000, accuracy: 0.5, "\(effect.id)")
                XCTAssertEqual(Double(i), interval * 1000, accuracy: 0.5, "\(effect.id)")
                XCTAssertEqual(percent, effect.strengthPercent, "\(effect.id)")
            case (.steady, .steady(_, let percent)):
                XCTAssertEqual(percent, effect.strengthPercent, "\(effect.id)")
            case (.ramp(let from, let to), .ramp(_, let f, let t)):
                XCTAssertEqual(Float(f) / 100, from, accuracy: 0.005, "\(effect.id)")
                XCTAssertEqual(Float(t) / 100, to, accuracy: 0.005, "\(effect.id)")
            default:
                XCTFail("\(effect.id): shapes differ: \(envelope.shape) vs \(sim)")
            }
        }
    }
}
