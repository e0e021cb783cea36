/// Thrum's envelope designs for Apple's system haptics, each defined once.
///
/// Apple does not publish the waveforms behind its feedback generators; these are Thrum's designs,
/// inspired by Apple's public descriptions of each case (docs/presets.md lists every envelope with
/// its rationale). Times are seconds; intensity and sharpness are 0…1; transients are taps,
/// continuous events are held vibrations with optional attack/release times.
enum PresetDesigns {
    // MARK: Building blocks

    /// A transient (tap) at `t` with intensity `i` and sharpness `s`.
    static func tap(_ t: Double, _ i: Float, _ s: Float) -> HapticEvent {
        HapticEvent(
            eventType: .hapticTransient,
            parameters: [.init(parameterID: .hapticIntensity, value: i), .init(parameterID: .hapticSharpness, value: s)],
            relativeTime: t)
    }

    /// A continuous vibration from `t` for `d` seconds, with optional attack and release times.
    static func hold(
        _ t: Double, _ d: Double, _ i: Float, _ s: Float, attack: Float = 0, release: Float = 0
    ) -> HapticEvent {
        var params: [HapticEventParameter] = [
            .init(parameterID: .hapticIntensity, value: i), .init(parameterID: .hapticSharpness, value: s),
        ]
        if attack > 0 { params.append(.init(parameterID: .attackTime, value: attack)) }
        if release > 0 { params.append(.init(parameterID: .releaseTime, value: release)) }
        return HapticEvent(eventType: .hapticContinuous, parameters: params, relativeTime: t, duration: d)
    }

    /// Milliseconds as seconds, exactly as a decimal literal would give (no accumulated error).
    static func sec(_ ms: Int) -> Double { Double(ms) / 1000 }

    static func pattern(_ events: [HapticEvent]) -> HapticPattern {
        HapticPattern(events: events, parameters: [], parameterCurves: [])
    }

    // MARK: UIKit impact styles

    static let impactLight = pattern([tap(0, 0.5, 0.6)])
    static let impactMedium = pattern([tap(0, 0.75, 0.5)])
    static let impactHeavy = pattern([tap(0, 1.0, 0.3)])
    static let impactSoft = pattern([hold(0, 0.06, 0.7, 0.15, attack: 0.015, release: 0.03)])
    static let impactRigid = pattern([tap(0, 0.9, 1.0)])
    /// SwiftUI `.impact(flexibility: .solid)` has no UIKit style: between rigid and soft.
    static let impactSolid = pattern([tap(0, 0.85, 0.65)])

    // MARK: UIKit selection, notification, canvas

    static let selection = pattern([tap(0, 0.35, 0.9)])
    static let notificationSuccess = pattern([tap(0, 0.6, 0.5), tap(0.1, 1.0, 0.7)])
    static let notificationWarning = pattern([tap(0, 0.9, 0.5), tap(0.12, 0.9, 0.5), tap(0.3, 0.5, 0.4)])
    static let notificationError = pattern([tap(0, 0.9, 0.9), tap(0.07, 0.9, 0.9), tap(0.14, 0.9, 0.9), tap(0.21, 1.0, 0.9)])
    static let alignment = pattern([tap(0, 0.5, 0.85)])
    static let pathComplete = pattern([hold(0, 0.08, 0.4, 0.3, attack: 0.06), tap(0.09, 0.8, 0.6)])

    // MARK: watchOS

    static let watchNotification = pattern([hold(0, 0.05, 1.0, 0.55), hold(0.15, 0.05, 1.0, 0.55)])
    static let watchDirectionUp = pattern([tap(0, 0.5, 0.4), tap(0.08, 0.9, 0.8)])
    static let watchDirectionDown = pattern([tap(0, 0.9, 0.8), tap(0.08, 0.5, 0.4)])
    static let watchSuccess = pattern([tap(0, 0.6, 0.5), tap(0.1, 0.8, 0.6), tap(0.2, 1.0, 0.7)])
    static let watchFailure = pattern([
        tap(0, 1.0, 0.4), tap(0.1, 1.0, 0.4), hold(0.2, 0.15, 0.8, 0.2, release: 0.05),
    ])
    static let watchRetry = pattern([tap(0, 0.8, 0.6), tap(0.08, 0.8, 0.6), tap(0.3, 0.8, 0.6), tap(0.38, 0.8, 0.6)])
    static let watchStart = pattern([hold(0, 0.12, 0.7, 0.4, attack: 0.1), tap(0.13, 1.0, 0.8)])
    static let watchStop = pattern([tap(0, 1.0, 0.8), hold(0.02, 0.15, 0.7, 0.4, release: 0.12)])
    static let watchClick = pattern([tap(0, 0.6, 0.9)])
    static let watchNavigationGeneric = pattern([hold(0, 0.4, 0.9, 0.4, attack: 0.02, release: 0.05)])
    /// Three pairs of two taps (Apple Maps on Apple Watch: "three pairs of two taps" = turn left).
    static let watchNavigationLeft = pattern(
        [0, 400, 800].flatMap { ms in [tap(sec(ms), 1.0, 0.6), tap(sec(ms + 100), 1.0, 0.6)] })
    /// Twelve steady taps (Apple Maps on Apple Watch: "a steady series of 12 taps" = turn right).
    static let watchNavigationRight = pattern((0..<12).map { tap(sec($0 * 100), 1.0, 0.6) })
    static let watchUnderwaterDepth = pattern([hold(0, 0.15, 0.8, 0.4, release: 0.03), hold(0.25, 0.15, 0.8, 0.4, release: 0.03)])
    static let watchUnderwaterDepthCritical = pattern(
        [0, 350].flatMap { ms in [tap(sec(ms), 1.0, 0.8), tap(sec(ms + 70), 1.0, 0.8), tap(sec(ms + 140), 1.0, 0.8)] }
            + [hold(0.7, 0.3, 1.0, 0.5, release: 0.05)])

    // MARK: macOS

    static let macGeneric = pattern([tap(0, 0.7, 0.6)])
    static let macLevelChange = pattern([tap(0, 0.85, 0.7), tap(0.04, 0.35, 0.9)])
}
