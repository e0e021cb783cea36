import Foundation
import ThrumTestSupport
import XCTest

@testable import ThrumPattern

/// The DRV2605L ROM effect table: ids, TI names, slugs, approximate envelopes.
final class PresetsROMTests: XCTestCase {
    /// A sample copied by hand from the reference table (reference/drv2605l-and-lra.md §3, itself
    /// from TI's "Waveform Library Effects List").
    static let sample: [UInt8: String] = [
        1: "Strong Click – 100%", 4: "Sharp Click – 100%", 7: "Soft Bump – 100%", 10: "Double Click – 100%",
        12: "Triple Click – 100%", 13: "Soft Fuzz – 60%", 14: "Strong Buzz – 100%", 15: "750 ms Alert – 100%",
        16: "1000 ms Alert – 100%", 20: "Strong Click 4 – 30%", 24: "Sharp Tick 1 – 100%",
        27: "Short Double Click Strong 1 – 100%", 33: "Short Double Click Medium 3 – 60%",
        36: "Short Double Sharp Tick 3 – 60%", 40: "Long Double Sharp Click Strong 4 – 30%",
        46: "Long Double Sharp Tick 3 – 60%", 51: "Buzz 5 – 20%", 53: "Pulsing Strong 2 – 60%",
        57: "Pulsing Sharp 2 – 60%", 63: "Transition Click 6 – 10%", 64: "Transition Hum 1 – 100%",
        70: "Transition Ramp Down Long Smooth 1 – 100→0%", 93: "Transition Ramp Up Short Sharp 2 – 0→100%",
        94: "Transition Ramp Down Long Smooth 1 – 50→0%", 117: "Transition Ramp Up Short Sharp 2 – 0→50%",
        118: "Long Buzz for Programmatic Stopping – 100%", 119: "Smooth Hum 1 (no kick or brake pulse) – 50%",
        123: "Smooth Hum 5 (no kick or brake pulse) – 10%",
    ]

    func testAll123IdsInOrder() {
        XCTAssertEqual(ROMEffect.all.count, 123)
        XCTAssertEqual(ROMEffect.all.map(\.id), Array(1...123))
        XCTAssertNil(ROMEffect.effect(id: 0))
        XCTAssertNil(ROMEffect.effect(id: 124))
        XCTAssertEqual(ROMEffect.effect(id: 123)?.id, 123)
    }

    func testSampleNamesMatchReference() throws {
        XCTAssertGreaterThanOrEqual(Self.sample.count, 20)
        for (id, name) in Self.sample {
            XCTAssertEqual(ROMEffect.effect(id: id)?.name, name, "rom.\(id)")
            XCTAssertEqual(try SystemPresets.preset(named: "rom.\(id)").summary, name)
        }
    }

    /// When the shared reference notes are beside the package, check all 123 names against them.
    func testAllNamesMatchReferenceFile() throws {
        let url = try SharedMaterial.locate("reference/drv2605l-and-lra.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let start = text.range(of: "## 3. ROM effect library"),
            let end = text.range(of: "## 4.", range: start.upperBound..<text.endIndex)
        else { return XCTFail("section 3 not found in \(url.path)") }
        var names: [Int: String] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            // | id | name | id | name |
            guard cells.count >= 5 else { continue }
            for pair in [(cells[1], cells[2]), (cells[3], cells[4])] {
                if let id = Int(pair.0), (1...123).contains(id), !pair.1.isEmpty { names[id] = pair.1 }
            }
        }
        XCTAssertEqual(names.count, 123)
        for effect in ROMEffect.all { XCTAssertEqual(effect.name, names[Int(effect.id)], "rom.\(effect.id)") }
    }

    func testSlugs() throws {
        XCTAssertEqual(ROMEffect.effect(id: 1)?.slug, "strong-click-100")
        XCTAssertEqual(ROMEffect.effect(id: 15)?.slug, "750-ms-alert-100")
        XCTAssertEqual(ROMEffect.effect(id: 70)?.slug, "transition-ramp-down-long-smooth-1-100-0")
        XCTAssertEqual(ROMEffect.effect(id: 119)?.slug, "smooth-hum-1-no-kick-or-brake-pulse-50")
        XCTAssertEqual(Set(ROMEffect.all.map(\.slug)).count, 123)
        for effect in ROMEffect.all {
            let preset = try SystemPresets.preset(named: "rom." + effect.slug)
            XCTAssertEqual(preset.content, .romEffect(id: effect.id))
            XCTAssertEqual(try SystemPresets.pattern(for: "rom.\(effect.id)"), .romEffect(id: effect.id))
        }
    }

    func testStrengthFromName() {
        for effect in ROMEffect.all {
            let expected = effect.name.contains("→")
                ? (effect.name.contains("50%") || effect.name.contains("50→") ? 50 : 100)
                : Int(effect.name.split(separator: " ").last!.dropLast())!
            XCTAssertEqual(effect.strengthPercent, expected, effect.name)
            XCTAssertEqual(effect.level, Float(expected) / 100)
        }
    }

    func testApproximateEnvelopes() throws {
        for effect in ROMEffect.all {
            let env = effect.envelope
            XCTAssertGreaterThan(env.duration, 0, effect.name)
            switch env.shape {
            case .pulses(let count, let length, let interval):
                XCTAssertGreaterThan(count, 0)
                XCTAssertEqual(env.duration, Double(count - 1) * interval + length, accuracy: 1e-9, effect.name)
                XCTAssertTrue(count == 1 || interval > length, effect.name)
            case .steady: break
            case .ramp(let from, let to):
                XCTAssertEqual(max(from, to), effect.level, effect.name)
                XCTAssertEqual(from < to, effect.kind == .rampUp, effect.name)
            }
        }
        func env(_ id: UInt8) -> ROMEffect.Envelope { ROMEffect.effect(id: id)!.envelope }
        XCTAssertEqual(env(15).duration, 0.75)
        XCTAssertEqual(env(16).duration, 1.0)
        XCTAssertEqual(env(1).duration, 0.020)
        XCTAssertTrue((0.010...0.020).contains(env(24).duration))
        XCTAssertEqual(env(10).shape, .pulses(count: 2, pulseLength: 0.020, interval: 0.060))
        XCTAssertEqual(env(12).shape, .pulses(count: 3, pulseLength: 0.020, interval: 0.060))
        XCTAssertEqual(env(70).duration, 1.0)
        XCTAssertEqual(env(72).duration, 0.5)
        XCTAssertEqual(env(74).duration, 0.25)
        XCTAssertEqual(env(82).shape, .ramp(from: 0, to: 1))
        XCTAssertEqual(env(94).shape, .ramp(from: 0.5, to: 0))
        XCTAssertEqual(env(76).edges, .sharp)
        XCTAssertEqual(env(70).edges, .soft)
        XCTAssertEqual(env(119).edges, .unbraked)
        XCTAssertGreaterThan(env(118).duration, 2)
        XCTAssertEqual(ROMEffect.effect(id: 12)?.kind, .tripleClick)
        XCTAssertEqual(ROMEffect.effect(id: 44)?.kind, .doubleTick)
        XCTAssertEqual(ROMEffect.effect(id: 15)?.kind, .alert)
        XCTAssertEqual(ROMEffect.effect(id: 122)?.kind, .hum)
    }
}
