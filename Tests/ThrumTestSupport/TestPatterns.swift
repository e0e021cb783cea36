import ThrumPattern

/// Event and pattern builders the test targets share (each target keeps only its own defaults).
public enum TestPatterns {
    /// A transient at `time` s; an intensity or sharpness of nil leaves that parameter out.
    public static func transient(
        at time: Double, intensity: Float? = 1, sharpness: Float? = 0.5, extra: [HapticEventParameter] = []
    ) -> HapticEvent {
        HapticEvent(
            eventType: .hapticTransient, parameters: parameters(intensity, sharpness) + extra, relativeTime: time)
    }

    /// A continuous event at `time` s lasting `duration` s; a sharpness of nil leaves it out.
    public static func continuous(
        at time: Double, duration: Double, intensity: Float = 1, sharpness: Float? = nil,
        extra: [HapticEventParameter] = []
    ) -> HapticEvent {
        HapticEvent(
            eventType: .hapticContinuous, parameters: parameters(intensity, sharpness) + extra, relativeTime: time,
            duration: duration)
    }

    /// `beats` transients `interval` s apart, from time 0.
    public static func metronome(beats: Int, interval: Double, intensity: Float = 1, sharpness: Float = 0.8)
        -> HapticPattern
    {
        HapticPattern(
            events: (0..<beats).map {
                transient(at: Double($0) * interval, intensity: intensity, sharpness: sharpness)
            },
            parameters: [], parameterCurves: [])
    }

    private static func parameters(_ intensity: Float?, _ sharpness: Float?) -> [HapticEventParameter] {
        var result: [HapticEventParameter] = []
        if let intensity { result.append(HapticEventParameter(parameterID: .hapticIntensity, value: intensity)) }
        if let sharpness { result.append(HapticEventParameter(parameterID: .hapticSharpness, value: sharpness)) }
        return result
    }
}
