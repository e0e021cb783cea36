extension SystemPresets {
    /// Apple's semantic haptics. Patterns are Thrum's designs (`PresetDesigns`), not Apple's waveforms.
    /// SwiftUI and macOS cases whose meaning coincides with a UIKit or watchOS case share its design
    /// and say so in `sameAs`.
    static let applePresets: [SystemPreset] = uiKit + swiftUI + watchOS + macOS

    private typealias D = PresetDesigns

    private static func impact(_ style: String, _ summary: String, _ design: HapticPattern) -> SystemPreset {
        SystemPreset(
            name: "impact.\(style)", family: .uiKit, summary: summary,
            api: "UIImpactFeedbackGenerator(style: .\(style)).impactOccurred(intensity:)",
            acceptsIntensity: true, content: .pattern(design))
    }

    static let uiKit: [SystemPreset] = [
        impact("light", "A collision between small, light UI objects.", D.impactLight),
        impact("medium", "A collision between medium-sized UI objects.", D.impactMedium),
        impact("heavy", "A collision between large, heavy UI objects.", D.impactHeavy),
        impact("soft", "A collision between soft, flexible UI objects.", D.impactSoft),
        impact("rigid", "A collision between hard, inflexible UI objects.", D.impactRigid),
        SystemPreset(
            name: "selection", family: .uiKit, summary: "The selection changed (a picker or slider detent).",
            api: "UISelectionFeedbackGenerator().selectionChanged()", content: .pattern(D.selection)),
        SystemPreset(
            name: "notification.success", family: .uiKit, summary: "A task or action succeeded.",
            api: "UINotificationFeedbackGenerator().notificationOccurred(.success)",
            content: .pattern(D.notificationSuccess)),
        SystemPreset(
            name: "notification.warning", family: .uiKit, summary: "A task or action produced a warning.",
            api: "UINotificationFeedbackGenerator().notificationOccurred(.warning)",
            content: .pattern(D.notificationWarning)),
        SystemPreset(
            name: "notification.error", family: .uiKit, summary: "A task or action failed.",
            api: "UINotificationFeedbackGenerator().notificationOccurred(.error)",
            content: .pattern(D.notificationError)),
        SystemPreset(
            name: "canvas.alignment", family: .uiKit, summary: "A dragged item snapped to a guide or alignment.",
            api: "UICanvasFeedbackGenerator().alignmentOccurred(at:)", content: .pattern(D.alignment)),
        SystemPreset(
            name: "canvas.pathComplete", family: .uiKit, summary: "A drawn path or shape was completed.",
            api: "UICanvasFeedbackGenerator().pathCompleted(at:)", content: .pattern(D.pathComplete)),
    ]

    private static func sensory(
        _ suffix: String, _ api: String, _ summary: String, sameAs: String?, _ design: HapticPattern,
        intensity: Bool = false
    ) -> SystemPreset {
        SystemPreset(
            name: "sensory.\(suffix)", family: .swiftUI, summary: summary, api: "SensoryFeedback.\(api)",
            sameAs: sameAs, acceptsIntensity: intensity, content: .pattern(design))
    }

    static let swiftUI: [SystemPreset] = [
        sensory("success", "success", "A task completed successfully.", sameAs: "notification.success", D.notificationSuccess),
        sensory("warning", "warning", "A task produced a warning.", sameAs: "notification.warning", D.notificationWarning),
        sensory("error", "error", "A task produced an error.", sameAs: "notification.error", D.notificationError),
        sensory("selection", "selection", "The selection changed.", sameAs: "selection", D.selection),
        sensory("increase", "increase", "A value increased.", sameAs: "watch.directionUp", D.watchDirectionUp),
        sensory("decrease", "decrease", "A value decreased.", sameAs: "watch.directionDown", D.watchDirectionDown),
        sensory("start", "start", "An activity started.", sameAs: "watch.start", D.watchStart),
        sensory("stop", "stop", "An activity stopped.", sameAs: "watch.stop", D.watchStop),
        sensory("alignment", "alignment", "A dragged item aligned with another.", sameAs: "canvas.alignment", D.alignment),
        sensory("levelChange", "levelChange", "Movement between discrete levels of pressure.", sameAs: "mac.levelChange", D.macLevelChange),
        sensory(
            "impact", "impact", "A physical impact (default weight and flexibility: Thrum plays medium).",
            sameAs: "impact.medium", D.impactMedium, intensity: true),
        sensory("impact.light", "impact(weight: .light, intensity:)", "An impact with a light object.", sameAs: "impact.light", D.impactLight, intensity: true),
        sensory("impact.medium", "impact(weight: .medium, intensity:)", "An impact with a medium object.", sameAs: "impact.medium", D.impactMedium, intensity: true),
        sensory("impact.heavy", "impact(weight: .heavy, intensity:)", "An impact with a heavy object.", sameAs: "impact.heavy", D.impactHeavy, intensity: true),
        sensory("impact.rigid", "impact(flexibility: .rigid, intensity:)", "An impact with a rigid object.", sameAs: "impact.rigid", D.impactRigid, intensity: true),
        sensory("impact.solid", "impact(flexibility: .solid, intensity:)", "An impact with a solid, slightly yielding object.", sameAs: nil, D.impactSolid, intensity: true),
        sensory("impact.soft", "impact(flexibility: .soft, intensity:)", "An impact with a soft object.", sameAs: "impact.soft", D.impactSoft, intensity: true),
        sensory("pathComplete", "pathComplete", "A drawn path was completed.", sameAs: "canvas.pathComplete", D.pathComplete),
    ]

    private static func watch(_ type: String, _ summary: String, _ design: HapticPattern) -> SystemPreset {
        SystemPreset(
            name: "watch.\(type)", family: .watchOS, summary: summary,
            api: "WKInterfaceDevice.current().play(.\(type))", content: .pattern(design))
    }

    static let watchOS: [SystemPreset] = [
        watch("notification", "Something significant happened; alerts the wearer.", D.watchNotification),
        watch("directionUp", "A value increased (e.g. crossing a threshold upwards).", D.watchDirectionUp),
        watch("directionDown", "A value decreased (e.g. crossing a threshold downwards).", D.watchDirectionDown),
        watch("success", "An action completed successfully.", D.watchSuccess),
        watch("failure", "An action failed.", D.watchFailure),
        watch("retry", "An action failed and may be tried again.", D.watchRetry),
        watch("start", "An activity or timer started.", D.watchStart),
        watch("stop", "An activity or timer stopped.", D.watchStop),
        watch("click", "A dial-like detent click.", D.watchClick),
        watch("navigationGenericManeuver", "A navigation maneuver other than a turn is coming.", D.watchNavigationGeneric),
        watch("navigationLeftTurn", "Turn left at the coming intersection.", D.watchNavigationLeft),
        watch("navigationRightTurn", "Turn right at the coming intersection.", D.watchNavigationRight),
        watch("underwaterDepthPrompt", "The diver reached a depth of interest.", D.watchUnderwaterDepth),
        watch("underwaterDepthCriticalPrompt", "The diver reached a critical depth; act now.", D.watchUnderwaterDepthCritical),
    ]

    static let macOS: [SystemPreset] = [
        SystemPreset(
            name: "mac.generic", family: .macOS, summary: "General feedback for a trackpad action.",
            api: "NSHapticFeedbackManager.defaultPerformer.perform(.generic, performanceTime:)",
            content: .pattern(D.macGeneric)),
        SystemPreset(
            name: "mac.alignment", family: .macOS, summary: "A dragged item snapped into alignment.",
            api: "NSHapticFeedbackManager.defaultPerformer.perform(.alignment, performanceTime:)",
            sameAs: "canvas.alignment", content: .pattern(D.alignment)),
        SystemPreset(
            name: "mac.levelChange", family: .macOS, summary: "Pressure crossed into another discrete level (force click).",
            api: "NSHapticFeedbackManager.defaultPerformer.perform(.levelChange, performanceTime:)",
            content: .pattern(D.macLevelChange)),
    ]
}
