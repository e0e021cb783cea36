import ThrumPattern

/// A Core Haptics pattern that approximates a DRV2605L ROM effect, for previews only.
///
/// The driver plays ROM effects from its own library; TI publishes their names but not their
/// waveforms, so the envelope here is Thrum's approximation from the name (`ROMEffect.envelope`):
/// each pulse (or the steady or ramped drive) becomes a continuous event at the effect's strength.
/// Sharp edges map to sharpness 1 (overdrive and braking), soft ones to a dull sharpness with a
/// short attack and release, unbraked ones (Smooth Hum) to sharpness 0. A ramp is a continuous
/// event whose `HapticIntensityControl` follows a two-point curve.
enum ROMPreview {
    /// The approximate pattern of `effect`.
    static func pattern(for effect: ROMEffect) -> HapticPattern {
        let envelope = effect.envelope
        let edges = edgeParameters(envelope.edges)
        switch envelope.shape {
        case .pulses(let count, let length, let interval):
            let events = (0..<max(count, 1)).map { k in
                continuous(at: Double(k) * interval, duration: length, intensity: effect.level, edges: edges)
            }
            return HapticPattern(events: events, parameters: [], parameterCurves: [])
        case .steady:
            let event = continuous(at: 0, duration: envelope.duration, intensity: effect.level, edges: edges)
            return HapticPattern(events: [event], parameters: [], parameterCurves: [])
        case .ramp(let from, let to):
            let event = continuous(at: 0, duration: envelope.duration, intensity: 1, edges: edges)
            let curve = HapticParameterCurve(
                parameterID: .hapticIntensityControl,
                controlPoints: [
                    .init(relativeTime: 0, value: from), .init(relativeTime: envelope.duration, value: to),
                ], relativeTime: 0)
            return HapticPattern(events: [event], parameters: [], parameterCurves: [curve])
        }
    }

    /// One line saying that the preview is an approximation.
    static func caveat(for effect: ROMEffect) -> String {
        "ROM effect \(effect.id) (\(effect.name)) is played by the driver from its ROM; this render uses "
            + "Thrum's approximate envelope (\(describe(effect.envelope))), not TI's waveform"
    }

    /// A short description of an envelope, e.g. `2 pulses of 20 ms every 60 ms, sharp edges`.
    static func describe(_ envelope: ROMEffect.Envelope) -> String {
        let ms = { (s: Double) in "\(Int((s * 1000).rounded())) ms" }
        let shape: String
        switch envelope.shape {
        case .pulses(let count, let length, let interval):
            shape = count == 1 ? "1 pulse of \(ms(length))" : "\(count) pulses of \(ms(length)) every \(ms(interval))"
        case .steady:
            shape = "steady for \(ms(envelope.duration))"
        case .ramp(let from, let to):
            shape = "ramp \(from)→\(to) over \(ms(envelope.duration))"
        }
        return "\(shape), \(envelope.edges.rawValue) edges"
    }

    private static func edgeParameters(_ edges: ROMEffect.Edges) -> [HapticEventParameter] {
        switch edges {
        case .sharp:
            return [HapticEventParameter(parameterID: .hapticSharpness, value: 1)]
        case .soft:
            return [
                HapticEventParameter(parameterID: .hapticSharpness, value: 0.2),
                HapticEventParameter(parameterID: .attackTime, value: 0.2),
                HapticEventParameter(parameterID: .releaseTime, value: 0.2),
            ]
        case .unbraked:
            return [HapticEventParameter(parameterID: .hapticSharpness, value: 0)]
        }
    }

    private static func continuous(
        at time: Double, duration: Double, intensity: Float, edges: [HapticEventParameter]
    ) -> HapticEvent {
        HapticEvent(
            eventType: .hapticContinuous,
            parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: intensity)] + edges,
            relativeTime: time, duration: duration)
    }
}
