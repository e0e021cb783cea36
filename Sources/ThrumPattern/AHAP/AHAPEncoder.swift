/// Builds the AHAP JSON tree of a pattern, in a fixed key order: `Version`, `Metadata`,
/// `Pattern` (events, then parameters, then curves, each in stored order).
enum AHAPEncoder {
    static func encode(_ pattern: HapticPattern) -> JSONValue {
        var top: [(key: String, value: JSONValue)] = [("Version", .number(pattern.version))]
        if let metadata = pattern.metadata { top.append(("Metadata", metadata)) }
        var elements: [JSONValue] = []
        elements += pattern.events.map { .object([("Event", event($0))]) }
        elements += pattern.parameters.map { .object([("Parameter", parameter($0))]) }
        elements += pattern.parameterCurves.map { .object([("ParameterCurve", curve($0))]) }
        top.append(("Pattern", .array(elements)))
        return .object(top)
    }

    /// `EventDuration` is written for continuous events and for any non-zero duration;
    /// `EventWaveformUseVolumeEnvelope` only when false and `EventWaveformLoopEnabled` only when
    /// true (Core Haptics' export rule).
    static func event(_ e: HapticEvent) -> JSONValue {
        var m: [(key: String, value: JSONValue)] = [
            ("Time", .number(e.relativeTime)),
            ("EventType", .string(e.type.rawValue)),
        ]
        if e.duration != 0 || e.type == .hapticContinuous || e.type == .audioContinuous {
            m.append(("EventDuration", .number(e.duration)))
        }
        if let w = e.waveform {
            m.append(("EventWaveformPath", .string(w.path)))
            if !w.useVolumeEnvelope { m.append(("EventWaveformUseVolumeEnvelope", .bool(false))) }
            if w.loopEnabled { m.append(("EventWaveformLoopEnabled", .bool(true))) }
        }
        let parameters: [JSONValue] = e.eventParameters.map {
            .object([("ParameterID", .string($0.parameterID.rawValue)), ("ParameterValue", float($0.value))])
        }
        m.append(("EventParameters", .array(parameters)))
        return .object(m)
    }

    static func parameter(_ p: HapticDynamicParameter) -> JSONValue {
        .object([
            ("ParameterID", .string(p.parameterID.rawValue)),
            ("Time", .number(p.relativeTime)),
            ("ParameterValue", float(p.value)),
        ])
    }

    static func curve(_ c: HapticParameterCurve) -> JSONValue {
        let points: [JSONValue] = c.controlPoints.map {
            .object([("Time", .number($0.relativeTime)), ("ParameterValue", float($0.value))])
        }
        return .object([
            ("ParameterID", .string(c.parameterID.rawValue)),
            ("Time", .number(c.relativeTime)),
            ("ParameterCurveControlPoints", .array(points)),
        ])
    }

    /// Parameter values are 32-bit; write the shortest decimal of the `Float`.
    private static func float(_ v: Float) -> JSONValue { .number(JSONNumberFormat.double(fromFloat: v)) }
}
