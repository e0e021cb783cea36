import Foundation
import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire

extension SharedDevice {
    // MARK: Compiling

    /// How long one pass of `pattern` lasts on this engine at `rate` with `loopEnd` (0 = the
    /// pattern's end), in seconds: the loop period of an advanced player — `loopEnd`, else the
    /// pattern's duration as Core Haptics counts it (``ThrumCompiler/DriveProgram/loopDuration``).
    public func passDuration(of pattern: HapticPattern, rate: Double = 1, loopEnd: Double = 0) -> Double {
        loopEnd > 0 ? loopEnd / rate : passTiming(of: pattern, rate: rate).period
    }

    /// How long the drive of one pass of `pattern` lasts at `rate` (s): past ``passDuration(of:rate:loopEnd:)``
    /// by a transient's burst when one ends the pattern.
    public func driveDuration(of pattern: HapticPattern, rate: Double = 1) -> Double {
        compile(pattern, rate: rate).duration
    }

    /// Both from one compile: the loop period (``passDuration(of:rate:loopEnd:)``) and how long
    /// one pass's drive lasts (``driveDuration(of:rate:)``), in seconds.
    public func passTiming(of pattern: HapticPattern, rate: Double = 1, loopEnd: Double = 0) -> (period: Double, drive: Double) {
        let program = compile(pattern, rate: rate)
        if loopEnd > 0 { return (loopEnd / rate, program.duration) }
        if let length = program.loopDuration, length > 0 { return (length, program.duration) }
        return (program.duration, program.duration)
    }

    func compile(_ pattern: HapticPattern, rate: Double) -> DriveProgram {
        PatternCompiler(profile: profile, options: configuration.compileOptions).compile(pattern.scaled(byRate: rate))
    }
}

extension HapticPattern {
    /// The pattern with run-time shape controls folded into its haptic events' parameters
    /// (added, unclamped: the compiler clamps event value + pattern control + this, as Apple does).
    func adjusted(by key: StreamingPatternPlayer.CompileKey) -> HapticPattern {
        let deltas: [(HapticEvent.ParameterID, Double, Float)] = [
            (.hapticSharpness, key.sharpness, Float(HapticSemantics.defaultSharpness)), (.attackTime, key.attack, 0), (.decayTime, key.decay, 0),
            (.releaseTime, key.release, 0),
        ]
        guard deltas.contains(where: { $0.1 != 0 }) else { return self }
        var copy = self
        for i in copy.events.indices where copy.events[i].type.isHaptic {
            var params = copy.events[i].eventParameters
            for (id, delta, defaultValue) in deltas where delta != 0 {
                if let j = params.lastIndex(where: { $0.parameterID == id }) {
                    params[j].value += Float(delta)
                } else {
                    params.append(HapticEventParameter(parameterID: id, value: defaultValue + Float(delta)))
                }
            }
            copy.events[i].eventParameters = params
        }
        return copy
    }

    /// The pattern played at `rate`: event times, continuous durations, parameter times and curve
    /// times divided by it (transient bursts keep their length: they are resonance cycles).
    func scaled(byRate rate: Double) -> HapticPattern {
        guard rate != 1 else { return self }
        var copy = self
        for i in copy.events.indices {
            copy.events[i].relativeTime /= rate
            copy.events[i].duration /= rate
        }
        for i in copy.parameters.indices { copy.parameters[i].relativeTime /= rate }
        for i in copy.parameterCurves.indices {
            copy.parameterCurves[i].relativeTime /= rate
            for j in copy.parameterCurves[i].controlPoints.indices {
                copy.parameterCurves[i].controlPoints[j].relativeTime /= rate
            }
        }
        return copy
    }
}
