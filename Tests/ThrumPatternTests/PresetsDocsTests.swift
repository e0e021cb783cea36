import Foundation
import ThrumTestSupport
import XCTest

@testable import ThrumPattern

/// docs/presets.md lists every preset's envelope; these tests keep it in step with the tables.
final class PresetsDocsTests: XCTestCase {
    /// `0.1 s` style numbers without trailing zeros.
    static func num(_ x: Double) -> String {
        var s = String(format: "%.3f", x)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// One event as the docs write it: `tap 0.1 s I0.6 S0.5` or `hold 0–0.06 s I0.7 S0.15 att0.015 rel0.03`.
    static func describe(_ e: HapticEvent) -> String {
        let i = num(Double(e.value(of: .hapticIntensity) ?? 1)), s = num(Double(e.value(of: .hapticSharpness) ?? 0.5))
        if e.type == .hapticTransient { return "tap \(num(e.relativeTime)) I\(i) S\(s)" }
        var text = "hold \(num(e.relativeTime))–\(num(e.relativeTime + e.duration)) I\(i) S\(s)"
        if let a = e.value(of: .attackTime) { text += " att\(num(Double(a)))" }
        if let r = e.value(of: .releaseTime) { text += " rel\(num(Double(r)))" }
        return text
    }

    /// The docs' envelope cell of a pattern preset: events joined by `; `.
    static func envelopeCell(_ p: HapticPattern) -> String { p.events.map(describe).joined(separator: "; ") }

    /// The docs' row of a ROM effect.
    static func romRow(_ e: ROMEffect) -> String {
        let shape: String
        switch e.envelope.shape {
        case .pulses(let n, let len, let every):
            shape = n == 1 ? "1 pulse \(num(len * 1000)) ms" : "\(n) pulses \(num(len * 1000)) ms, every \(num(every * 1000)) ms"
        case .steady: shape = "steady"
        case .ramp(let a, let b): shape = "ramp \(num(Double(a)))→\(num(Double(b)))"
        }
        return "| \(e.id) | \(e.name) | `rom.\(e.slug)` | \(e.kind.rawValue) | \(e.strengthPercent) | \(num(e.envelope.duration * 1000)) | \(shape) | \(e.envelope.edges.rawValue) |"
    }

    private func docsText() throws -> String {
        try String(contentsOf: PackageRoot.file("docs/presets.md"), encoding: .utf8)
    }

    func testDocsListEveryApplePresetEnvelope() throws {
        let text = try docsText()
        for preset in SystemPresets.all {
            guard let p = preset.pattern else { continue }
            XCTAssertTrue(text.contains("`\(preset.name)`"), preset.name)
            if preset.sameAs == nil {
                XCTAssertTrue(text.contains(Self.envelopeCell(p)), "\(preset.name): \(Self.envelopeCell(p))")
            }
        }
    }

    func testDocsListEveryROMEffect() throws {
        let text = try docsText()
        for effect in ROMEffect.all { XCTAssertTrue(text.contains(Self.romRow(effect)), Self.romRow(effect)) }
    }

    /// Prints the generated parts of docs/presets.md when THRUM_PRINT_PRESET_DOCS is set.
    func testPrintGeneratedDocs() throws {
        guard ProcessInfo.processInfo.environment["THRUM_PRINT_PRESET_DOCS"] != nil else { return }
        for preset in SystemPresets.all {
            guard let p = preset.pattern else { continue }
            print("APPLE| `\(preset.name)` | \(preset.sameAs.map { "= `\($0)`" } ?? Self.envelopeCell(p)) | \(Self.num(preset.approximateDuration * 1000)) |")
        }
        for effect in ROMEffect.all { print("ROM" + Self.romRow(effect)) }
    }
}
