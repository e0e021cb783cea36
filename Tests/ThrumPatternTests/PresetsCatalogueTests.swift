import XCTest

@testable import ThrumPattern

/// The system preset catalogue: names, lookup, suggestions, and the Apple presets' patterns.
final class PresetsCatalogueTests: XCTestCase {
    /// Every name the brief asks for.
    static let requiredNames: [String] =
        ["impact.light", "impact.medium", "impact.heavy", "impact.soft", "impact.rigid", "selection",
         "notification.success", "notification.warning", "notification.error"]
        + ["success", "warning", "error", "selection", "increase", "decrease", "start", "stop", "alignment",
           "levelChange", "impact", "impact.light", "impact.medium", "impact.heavy", "impact.rigid",
           "impact.solid", "impact.soft", "pathComplete"].map { "sensory." + $0 }
        + ["notification", "directionUp", "directionDown", "success", "failure", "retry", "start", "stop", "click",
           "navigationGenericManeuver", "navigationLeftTurn", "navigationRightTurn", "underwaterDepthPrompt",
           "underwaterDepthCriticalPrompt"].map { "watch." + $0 }
        + ["mac.generic", "mac.alignment", "mac.levelChange"]
        + (1...123).map { "rom.\($0)" }

    func testEveryRequiredNameResolves() throws {
        for name in Self.requiredNames {
            let preset = try SystemPresets.preset(named: name)
            XCTAssertEqual(preset.name, name)
            _ = try SystemPresets.pattern(for: name, intensity: nil)
        }
        XCTAssertEqual(SystemPresets.presets(in: .watchOS).count, 14)
        XCTAssertEqual(SystemPresets.presets(in: .macOS).count, 3)
        XCTAssertEqual(SystemPresets.presets(in: .swiftUI).count, 18)
        XCTAssertEqual(SystemPresets.presets(in: .drv2605lROM).count, 123)
    }

    func testNamesAndAliasesAreUniqueIgnoringCase() {
        let lowered = SystemPresets.names.map { $0.lowercased() }
        XCTAssertEqual(Set(lowered).count, lowered.count)
        XCTAssertEqual(Set(SystemPresets.all.map(\.name)).count, SystemPresets.all.count)
        for name in SystemPresets.names {
            XCTAssertFalse(name.contains(" "), name)
            XCTAssertEqual(name.trimmingWhitespace(), name)
        }
    }

    func testLookupIgnoresCaseAndSurroundingSpace() throws {
        XCTAssertEqual(try SystemPresets.preset(named: " Watch.DirectionUp\n").name, "watch.directionUp")
        XCTAssertEqual(try SystemPresets.preset(named: "ROM.Strong-Click-100").name, "rom.1")
    }

    func testEveryPresetHasDescriptionAndAPI() {
        for preset in SystemPresets.all {
            XCTAssertFalse(preset.summary.isEmpty, preset.name)
            XCTAssertFalse(preset.summary.contains("\n"), preset.name)
            XCTAssertFalse(preset.api.isEmpty, preset.name)
            XCTAssertEqual(preset.pattern == nil, preset.family == .drv2605lROM, preset.name)
            XCTAssertEqual(preset.romEffect == nil, preset.family != .drv2605lROM, preset.name)
        }
    }

    func testEveryApplePatternIsValidAndRoundTrips() throws {
        for preset in SystemPresets.all {
            guard let pattern = preset.pattern else { continue }
            let label = preset.name
            XCTAssertFalse(pattern.events.isEmpty, label)
            // Core Haptics gives a lone transient at 0 a duration of 0; what is felt still lasts.
            XCTAssertGreaterThanOrEqual(pattern.duration, 0, label)
            XCTAssertGreaterThan(preset.approximateDuration, 0, label)
            XCTAssertGreaterThanOrEqual(preset.approximateDuration, pattern.duration, label)
            XCTAssertLessThan(preset.approximateDuration, 2, label)
            for event in pattern.events {
                XCTAssertTrue(event.type.isHaptic, label)
                XCTAssertGreaterThanOrEqual(event.relativeTime, 0, label)
                XCTAssertGreaterThanOrEqual(event.duration, 0, label)
                if event.type == .hapticContinuous { XCTAssertGreaterThan(event.duration, 0, label) }
                XCTAssertNotNil(event.value(of: .hapticIntensity), label)
                XCTAssertNotNil(event.value(of: .hapticSharpness), label)
                for p in event.eventParameters {
                    XCTAssertTrue(p.parameterID.valueRange.contains(p.value), "\(label): \(p.parameterID) \(p.value)")
                }
                // Attack + release fit inside the event.
                let envelope = Double((event.value(of: .attackTime) ?? 0) + (event.value(of: .releaseTime) ?? 0))
                XCTAssertLessThanOrEqual(envelope, event.duration + 1e-9, label)
            }
            let bytes = pattern.ahapData()
            let reread = try HapticPattern(data: bytes, sourceName: label)
            XCTAssertEqual(reread, pattern, label)
            XCTAssertEqual(reread.ahapData(), bytes, label)
            // Times are written as short decimals (no accumulated floating-point error).
            XCTAssertFalse(pattern.ahapString().contains("0000000"), label)
        }
    }

    func testSameAsPresetsShareTheirTargetsContent() throws {
        var shared = 0
        for preset in SystemPresets.all {
            guard let target = preset.sameAs else { continue }
            let other = try SystemPresets.preset(named: target)
            XCTAssertEqual(preset.content, other.content, "\(preset.name) ≡ \(target)")
            XCTAssertNil(other.sameAs, "\(target) should be the defining preset")
            XCTAssertEqual(preset.acceptsIntensity, other.acceptsIntensity, preset.name)
            shared += 1
        }
        XCTAssertEqual(shared, 18)  // 17 SwiftUI cases + mac.alignment
    }

    func testDistinctDesignsWhereSemanticsDiffer() throws {
        func content(_ name: String) throws -> SystemPreset.Content { try SystemPresets.pattern(for: name) }
        let distinct = ["impact.light", "impact.medium", "impact.heavy", "impact.soft", "impact.rigid", "sensory.impact.solid",
                        "selection", "notification.success", "notification.warning", "notification.error",
                        "watch.navigationGenericManeuver", "watch.navigationLeftTurn", "watch.navigationRightTurn",
                        "watch.start", "watch.stop", "watch.directionUp", "watch.directionDown", "watch.success",
                        "watch.failure", "watch.retry", "watch.notification", "mac.generic", "mac.levelChange"]
        let contents = try distinct.map(content)
        for i in contents.indices {
            for j in contents.indices where j > i {
                XCTAssertNotEqual(contents[i], contents[j], "\(distinct[i]) vs \(distinct[j])")
            }
        }
    }

    func testDescribedShapes() throws {
        func events(_ name: String) throws -> [HapticEvent] { try XCTUnwrap(SystemPresets.preset(named: name).pattern).events }
        // success: two rising taps.
        let success = try events("notification.success")
        XCTAssertEqual(success.count, 2)
        XCTAssertLessThan(success[0].value(of: .hapticIntensity)!, success[1].value(of: .hapticIntensity)!)
        // warning: two taps then a lighter one.
        let warning = try events("notification.warning")
        XCTAssertEqual(warning.count, 3)
        XCTAssertLessThan(warning[2].value(of: .hapticIntensity)!, warning[1].value(of: .hapticIntensity)!)
        // error: four quick sharp taps.
        let error = try events("notification.error")
        XCTAssertEqual(error.count, 4)
        XCTAssertTrue(error.allSatisfy { $0.type == .hapticTransient && $0.value(of: .hapticSharpness)! >= 0.8 })
        // heavy: strong, low sharpness; rigid: sharpest; soft: a held, soft event.
        let heavy = try events("impact.heavy")[0], rigid = try events("impact.rigid")[0], soft = try events("impact.soft")[0]
        XCTAssertEqual(heavy.value(of: .hapticIntensity), 1)
        XCTAssertLessThan(heavy.value(of: .hapticSharpness)!, 0.5)
        XCTAssertEqual(rigid.value(of: .hapticSharpness), 1)
        XCTAssertEqual(soft.type, .hapticContinuous)
        XCTAssertLessThan(soft.value(of: .hapticSharpness)!, 0.3)
        // selection: the lightest, crisp tick.
        let selection = try events("selection")[0]
        XCTAssertLessThan(selection.value(of: .hapticIntensity)!, 0.5)
        XCTAssertGreaterThan(selection.value(of: .hapticSharpness)!, 0.8)
        // Apple Watch Maps: 12 steady taps = right, three pairs of two taps = left.
        XCTAssertEqual(try events("watch.navigationRightTurn").count, 12)
        XCTAssertEqual(try events("watch.navigationLeftTurn").count, 6)
    }

    func testImpactIntensityScalesIntensities() throws {
        for name in ["impact.light", "impact.medium", "impact.heavy", "impact.soft", "impact.rigid", "sensory.impact",
                     "sensory.impact.solid"] {
            guard case .pattern(let full) = try SystemPresets.pattern(for: name, intensity: nil),
                case .pattern(let half) = try SystemPresets.pattern(for: name, intensity: 0.5),
                case .pattern(let one) = try SystemPresets.pattern(for: name, intensity: 1),
                case .pattern(let zero) = try SystemPresets.pattern(for: name, intensity: 0)
            else { return XCTFail(name) }
            XCTAssertEqual(one, full, name)
            XCTAssertEqual(half.events.count, full.events.count, name)
            for (h, f) in zip(half.events, full.events) {
                XCTAssertEqual(h.value(of: .hapticIntensity)!, f.value(of: .hapticIntensity)! * 0.5, accuracy: 1e-6, name)
                XCTAssertEqual(h.value(of: .hapticSharpness), f.value(of: .hapticSharpness), name)
                XCTAssertEqual(h.relativeTime, f.relativeTime, name)
                XCTAssertEqual(h.duration, f.duration, name)
            }
            XCTAssertTrue(zero.events.allSatisfy { $0.value(of: .hapticIntensity) == 0 }, name)
        }
    }

    func testIntensityErrors() {
        XCTAssertThrowsError(try SystemPresets.pattern(for: "impact.heavy", intensity: 1.5)) { error in
            XCTAssertEqual(error as? PresetError, .intensityOutOfRange(1.5, preset: "impact.heavy"))
        }
        XCTAssertThrowsError(try SystemPresets.pattern(for: "impact.heavy", intensity: -0.1))
        XCTAssertThrowsError(try SystemPresets.pattern(for: "impact.heavy", intensity: .nan))
        XCTAssertThrowsError(try SystemPresets.pattern(for: "selection", intensity: 0.5)) { error in
            XCTAssertEqual(error as? PresetError, .intensityNotAccepted(preset: "selection"))
            XCTAssertEqual("\(error)", "preset 'selection' takes no intensity (only the impact styles do)")
        }
        XCTAssertThrowsError(try SystemPresets.pattern(for: "rom.1", intensity: 0.5))
    }

    func testUnknownNamesSuggestCloseMatches() {
        func message(_ name: String) -> String {
            do {
                _ = try SystemPresets.pattern(for: name, intensity: nil)
                return "resolved"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(message("impact.hevy"), "no preset named 'impact.hevy'; did you mean 'impact.heavy'?")
        XCTAssertEqual(message("notification.sucess"), "no preset named 'notification.sucess'; did you mean 'notification.success'?")
        XCTAssertEqual(message("watch.navigationLeft"), "no preset named 'watch.navigationLeft'; did you mean 'watch.navigationLeftTurn'?")
        XCTAssertEqual(message("rom.strong-click-10"), "no preset named 'rom.strong-click-10'; did you mean 'rom.strong-click-100'?")
        XCTAssertEqual(SystemPresets.suggestions(for: "rom.124").first, "rom.12")
        XCTAssertEqual(SystemPresets.suggestions(for: "mac.levelchang"), ["mac.levelChange"])
        XCTAssertEqual(SystemPresets.suggestions(for: "impact"), ["impact.light", "impact.medium", "impact.heavy"])
        XCTAssertEqual(
            message("impact.lite"), "no preset named 'impact.lite'; did you mean 'impact.light'?")
        XCTAssertEqual(SystemPresets.suggestions(for: "completely-unrelated-words"), [])
        XCTAssertEqual(message("zzzz"), "no preset named 'zzzz'")
        XCTAssertEqual(
            PresetError.unknownName("x", suggestions: ["a", "b", "c"]).description,
            "no preset named 'x'; did you mean 'a', 'b' or 'c'?")
    }

    func testEditDistance() {
        XCTAssertEqual(SystemPresets.editDistance("kitten", "sitting", limit: 10), 3)
        XCTAssertEqual(SystemPresets.editDistance("", "abc", limit: 10), 3)
        XCTAssertEqual(SystemPresets.editDistance("abc", "", limit: 10), 3)
        XCTAssertEqual(SystemPresets.editDistance("same", "same", limit: 0), 0)
        XCTAssertGreaterThan(SystemPresets.editDistance("abcdefgh", "zzzzzzzz", limit: 2), 2)
    }
}
