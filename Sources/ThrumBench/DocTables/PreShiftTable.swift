import ThrumCompiler
import ThrumPattern

/// docs/semantics.md §7, pre-shifts: what the compiler shifts a lone event's drive earlier by,
/// per built-in profile, in ms.
public enum PreShiftTable {
    /// The pre-shift (ms) the compiler gives `event` alone with `profile`.
    public static func preShift(_ event: HapticEvent, profile: ActuatorProfile) -> Double {
        let program = PatternCompiler(profile: profile).compile(HapticPattern(events: [event], parameters: [], parameterCurves: []))
        return (program.events.first?.preShift ?? 0) * 1000
    }

    static func event(_ type: HapticEvent.EventType, intensity: Float, sharpness: Float, duration: Double = 0)
        -> HapticEvent
    {
        HapticEvent(
            eventType: type,
            parameters: [
                HapticEventParameter(parameterID: .hapticIntensity, value: intensity),
                HapticEventParameter(parameterID: .hapticSharpness, value: sharpness),
            ],
            relativeTime: 0.1, duration: duration)
    }

    /// The table: header and one row per built-in profile.
    public static func lines() -> [String] {
        var lines = [
            "| Profile | transient s = 0 / 0.5 / 1 | transient s = 0.5, intensity 0.3 | continuous, sharpness 1, step attack |",
            "|---|---|---|---|",
        ]
        for profile in ActuatorProfile.builtIn {
            let transients = [Float(0), 0.5, 1].map {
                DocNumber.fixed(preShift(event(.hapticTransient, intensity: 1, sharpness: $0), profile: profile), 1)
            }
            let weak = preShift(event(.hapticTransient, intensity: 0.3, sharpness: 0.5), profile: profile)
            let step = preShift(event(.hapticContinuous, intensity: 1, sharpness: 1, duration: 1), profile: profile)
            lines.append(
                "| `\(profile.id)` | \(transients.joined(separator: " / ")) | \(DocNumber.fixed(weak, 1)) | \(DocNumber.fixed(step, 1)) |"
            )
        }
        return lines
    }
}
