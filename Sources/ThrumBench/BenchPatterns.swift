import ThrumPattern

/// One pattern of the bench's set.
public struct BenchPattern: Sendable {
    /// What kind of pattern the public AHAP files show it stands for.
    public enum Kind: String, Sendable, CaseIterable {
        /// One of the project's `examples/*.ahap`.
        case example
        /// Many transients close together (textures, rattles, ratchets).
        case transientTrain
        /// Long continuous events shaped by parameter curves (engines, swells, charging).
        case continuousWithCurves
        /// Transients and continuous events together with step parameters (game effects).
        case mixed
        /// Repeating beats: pairs of transients and short pulses about a second apart.
        case heartbeat
        /// Overlapping short continuous events of varying sharpness (gravel, rain, fabric).
        case texture
    }

    /// A stable name, e.g. `example.heartbeat`, `transient-train`.
    public let name: String
    /// The kind it stands for.
    public let kind: Kind
    /// The pattern.
    public let pattern: HapticPattern
}

/// The bench's own pattern set: the project's examples plus patterns built here that cover the
/// kinds of pattern the public AHAP corpus holds, so `thrum bench` gives the same figures on any
/// machine and reads no file. Every pattern is deterministic (no randomness).
public enum BenchPatterns {
    /// Every pattern of the set: the examples first, then the built ones.
    ///
    /// - Throws: the reader's error when an embedded example does not read (a build whose
    ///   embedded examples were edited by hand; `BenchPatternsTests` reports it first).
    public static func all() throws(PatternError) -> [BenchPattern] {
        try examples() + [
            // A dense texture of taps (≈ 50 per second for 2 s) and a long rhythmic train (10 per
            // second for 100 s): the densest and the longest kinds the public AHAP files show.
            BenchPattern(
                name: "transient-train", kind: .transientTrain, pattern: transientTrain(count: 100, spacing: 0.02)),
            BenchPattern(
                name: "transient-train-long", kind: .transientTrain, pattern: transientTrain(count: 1_000, spacing: 0.1)
            ),
            // Core Haptics' longest continuous event (30 s) under chained 16-point curves.
            BenchPattern(
                name: "continuous-curves", kind: .continuousWithCurves, pattern: continuousWithCurves(seconds: 30)),
            BenchPattern(name: "mixed-effects", kind: .mixed, pattern: mixed()),
            BenchPattern(name: "heartbeat-loop", kind: .heartbeat, pattern: heartbeat(beats: 12, period: 0.9)),
            BenchPattern(name: "texture", kind: .texture, pattern: texture(seconds: 3)),
        ]
    }

    /// The `examples/*.ahap` of the repository, embedded (minified) by
    /// `tools/gen-bench-examples.sh` (a test keeps the two in step).
    public static func examples() throws(PatternError) -> [BenchPattern] {
        var result: [BenchPattern] = []
        for entry in exampleTexts {
            let pattern = try HapticPattern(data: Array(entry.text.utf8), sourceName: entry.name + ".ahap")
            result.append(BenchPattern(name: "example." + entry.name, kind: .example, pattern: pattern))
        }
        return result
    }

    // MARK: Built patterns

    private static func parameters(intensity: Double, sharpness: Double) -> [HapticEventParameter] {
        [
            HapticEventParameter(parameterID: .hapticIntensity, value: Float(intensity)),
            HapticEventParameter(parameterID: .hapticSharpness, value: Float(sharpness)),
        ]
    }

    /// `count` transients `spacing` s apart whose intensity and sharpness cycle (a ratchet, a
    /// rattle, a dense texture).
    public static func transientTrain(count: Int, spacing: Double) -> HapticPattern {
        let events = (0..<count).map { k in
            HapticEvent(
                eventType: .hapticTransient,
                parameters: parameters(intensity: 0.35 + 0.65 * Double(k % 9) / 8, sharpness: Double(k % 5) / 4),
                relativeTime: Double(k) * spacing)
        }
        return HapticPattern(events: events, parameters: [], parameterCurves: [])
    }

    /// One long continuous event under chained intensity curves (16 points each, the most a
    /// Core Haptics player handles) and a sharpness curve, with transients on top every second.
    public static func continuousWithCurves(seconds: Double) -> HapticPattern {
        var events = [
            HapticEvent(
                eventType: .hapticContinuous, parameters: parameters(intensity: 1, sharpness: 0.4), relativeTime: 0,
                duration: seconds)
        ]
        for k in 1..<Int(seconds) {
            events.append(
                HapticEvent(
                    eventType: .hapticTransient, parameters: parameters(intensity: 0.9, sharpness: 0.8),
                    relativeTime: Double(k)))
        }
        var curves: [HapticParameterCurve] = []
        let span = 2.0
        var start = 0.0
        while start < seconds {
            let points = (0..<16).map { i -> HapticParameterCurve.ControlPoint in
                let t = span * Double(i) / 15
                let phase = (start + t) / seconds
                return .init(relativeTime: t, value: Float(0.55 + 0.45 * triangle(phase * 6)))
            }
            curves.append(
                HapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: points, relativeTime: start))
            start += span
        }
        curves.append(
            HapticParameterCurve(
                parameterID: .hapticSharpnessControl,
                controlPoints: [
                    .init(relativeTime: 0, value: -0.3), .init(relativeTime: seconds / 2, value: 0.4),
                    .init(relativeTime: seconds, value: 0),
                ],
                relativeTime: 0))
        return HapticPattern(events: events, parameters: [], parameterCurves: curves)
    }

    /// A game-like effect: an impact, a rumble with a decay, a burst of debris, step changes of
    /// the dynamic parameters, and audio events that the actuator does not play.
    public static func mixed() -> HapticPattern {
        var events = [
            HapticEvent(
                eventType: .hapticTransient, parameters: parameters(intensity: 1, sharpness: 0.9), relativeTime: 0),
            HapticEvent(
                eventType: .hapticContinuous,
                parameters: parameters(intensity: 0.8, sharpness: 0.2) + [
                    HapticEventParameter(parameterID: .attackTime, value: 0.05),
                    HapticEventParameter(parameterID: .decayTime, value: 0.4),
                    HapticEventParameter(parameterID: .sustained, value: 0),
                ],
                relativeTime: 0.01, duration: 0.7),
            HapticEvent(
                eventType: .audioContinuous, parameters: [HapticEventParameter(parameterID: .audioVolume, value: 0.6)],
                relativeTime: 0, duration: 0.7),
        ]
        for k in 0..<14 {
            events.append(
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: parameters(intensity: 0.7 - 0.04 * Double(k), sharpness: 0.5 + 0.03 * Double(k)),
                    relativeTime: 0.15 + 0.045 * Double(k) + 0.007 * Double(k % 3)))
        }
        events.append(
            HapticEvent(
                eventType: .hapticContinuous, parameters: parameters(intensity: 0.5, sharpness: 0.6), relativeTime: 1.0,
                duration: 0.25))
        let steps = [
            HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.6, relativeTime: 0.3),
            HapticDynamicParameter(parameterID: .hapticSharpnessControl, value: 0.2, relativeTime: 0.5),
            HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 1.0, relativeTime: 0.95),
        ]
        return HapticPattern(events: events, parameters: steps, parameterCurves: [])
    }

    /// `beats` heartbeats `period` s apart: a strong low lub, a softer dub 160 ms later and a
    /// short low pulse under them.
    public static func heartbeat(beats: Int, period: Double) -> HapticPattern {
        var events: [HapticEvent] = []
        for b in 0..<beats {
            let t = Double(b) * period
            events.append(
                HapticEvent(
                    eventType: .hapticTransient, parameters: parameters(intensity: 1, sharpness: 0.3), relativeTime: t))
            events.append(
                HapticEvent(
                    eventType: .hapticContinuous, parameters: parameters(intensity: 0.5, sharpness: 0.1),
                    relativeTime: t + 0.02, duration: 0.08))
            events.append(
                HapticEvent(
                    eventType: .hapticTransient, parameters: parameters(intensity: 0.6, sharpness: 0.2),
                    relativeTime: t + 0.16))
        }
        return HapticPattern(events: events, parameters: [], parameterCurves: [])
    }

    /// Overlapping 30–70 ms continuous events every 25 ms whose intensity and sharpness wander
    /// (a deterministic sequence), for `seconds`.
    public static func texture(seconds: Double) -> HapticPattern {
        let count = Int(seconds / 0.025)
        let events = (0..<count).map { k -> HapticEvent in
            let wobble = triangle(Double(k) * 0.137)
            return HapticEvent(
                eventType: .hapticContinuous,
                parameters: parameters(intensity: 0.25 + 0.5 * wobble, sharpness: triangle(Double(k) * 0.291)),
                relativeTime: Double(k) * 0.025, duration: 0.03 + 0.04 * triangle(Double(k) * 0.413))
        }
        return HapticPattern(events: events, parameters: [], parameterCurves: [])
    }

    /// A triangle wave of period 1 between 0 and 1.
    private static func triangle(_ x: Double) -> Double {
        let f = x - x.rounded(.down)
        return f < 0.5 ? 2 * f : 2 - 2 * f
    }
}
