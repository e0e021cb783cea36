/// A haptic pattern: events plus pattern-wide dynamic parameters and curves, shaped like
/// `CHHapticPattern`. Reading and writing AHAP live in `AHAP/`; this type holds no I/O.
public struct HapticPattern: Equatable, Sendable {
    /// The events, in the order they were given (not necessarily time order).
    public var events: [HapticEvent]
    /// Step changes of dynamic parameters (AHAP `Parameter` elements).
    public var parameters: [HapticDynamicParameter]
    /// Ramps of dynamic parameters (AHAP `ParameterCurve` elements).
    public var parameterCurves: [HapticParameterCurve]
    /// The AHAP `Version` the pattern declared (1.0 when absent).
    public var version: Double
    /// The AHAP `Metadata` object, kept verbatim for round trips (nil when absent).
    public var metadata: JSONValue?

    /// Creates a pattern from events and step parameters, like `CHHapticPattern(events:parameters:)`,
    /// and checks it as Core Haptics does (``validated(events:parameters:parameterCurves:)``).
    public init(events: [HapticEvent], parameters: [HapticDynamicParameter]) throws(PatternError) {
        try Self.validated(events: events, parameters: parameters, parameterCurves: [])
        self.init(events: events, parameters: parameters, parameterCurves: [])
    }

    /// Creates a pattern from events and curves, like `CHHapticPattern(events:parameterCurves:)`,
    /// and checks it as Core Haptics does (``validated(events:parameters:parameterCurves:)``).
    public init(events: [HapticEvent], parameterCurves: [HapticParameterCurve]) throws(PatternError) {
        try Self.validated(events: events, parameters: [], parameterCurves: parameterCurves)
        self.init(events: events, parameters: [], parameterCurves: parameterCurves)
    }

    /// What Core Haptics refuses in a pattern built through its API (the AHAP reader, which
    /// accepts what files hold — events out of time order among them — does not use these checks):
    /// an event time that is negative or not finite (`invalidEventTime`, −4822), events out of
    /// time order (−4822, naming both), a negative or non-finite duration (`invalidEventDuration`,
    /// −4823), a parameter or curve time that is negative or not finite (`badParameterEntry`,
    /// −4831). The error's `path` names the element (`events[3].relativeTime`).
    public static func validated(
        events: [HapticEvent], parameters: [HapticDynamicParameter], parameterCurves: [HapticParameterCurve]
    ) throws(PatternError) {
        func fail(_ code: HapticErrorCode, _ path: String, _ message: String) -> PatternError {
            PatternError(code: code, file: "<api>", line: 0, column: 0, path: path, message: message)
        }
        for (k, e) in events.enumerated() {
            guard e.relativeTime.isFinite, e.relativeTime >= 0 else {
                throw fail(.invalidEventTime, "events[\(k)].relativeTime", "event \(k) has relativeTime \(e.relativeTime) s; events start at 0 or later")
            }
            if k > 0, e.relativeTime < events[k - 1].relativeTime {
                throw fail(
                    .invalidEventTime, "events[\(k)].relativeTime",
                    "event \(k) at \(e.relativeTime) s comes after event \(k - 1) at \(events[k - 1].relativeTime) s; events must be in time order")
            }
            guard e.duration.isFinite, e.duration >= 0 else {
                throw fail(.invalidEventDuration, "events[\(k)].duration", "event \(k) has duration \(e.duration) s; durations are 0 or more")
            }
        }
        for (k, p) in parameters.enumerated() where !(p.relativeTime.isFinite && p.relativeTime >= 0) {
            throw fail(.badParameterEntry, "parameters[\(k)].relativeTime", "parameter \(k) has relativeTime \(p.relativeTime) s")
        }
        for (k, c) in parameterCurves.enumerated() where !(c.relativeTime.isFinite && c.relativeTime >= 0) {
            throw fail(.badParameterEntry, "parameterCurves[\(k)].relativeTime", "curve \(k) has relativeTime \(c.relativeTime) s")
        }
    }

    /// Creates a pattern from all three kinds of element.
    public init(
        events: [HapticEvent], parameters: [HapticDynamicParameter], parameterCurves: [HapticParameterCurve],
        version: Double = 1.0, metadata: JSONValue? = nil
    ) {
        self.events = events
        self.parameters = parameters
        self.parameterCurves = parameterCurves
        self.version = version
        self.metadata = metadata
    }

    /// The latest time, s, that the AHAP reader accepts for an element (an event's `Time`, a
    /// parameter's or curve's `Time`, a control point's `Time`): 24 hours. Core Haptics gives no
    /// figure; Thrum's bound keeps every time exact in whole microseconds and every cost finite.
    /// A later event `Time` is `invalidEventTime` (−4822); a later parameter time `badParameterEntry` (−4831).
    public static let maximumTime: Double = 86_400

    /// The longest `EventDuration`, s, that the AHAP reader accepts: 24 hours (longer is
    /// `invalidEventDuration`, −4823). Continuous events still play at most 30 s, as on Apple devices.
    public static let maximumDuration: Double = 86_400

    /// The pattern's length in seconds, as Core Haptics defines it: the latest of each event's
    /// time plus duration, each parameter's time, and each curve's time plus its last point's time.
    public var duration: Double {
        var end = 0.0
        for e in events { end = max(end, e.relativeTime + e.duration) }
        for p in parameters { end = max(end, p.relativeTime) }
        for c in parameterCurves { end = max(end, c.relativeTime + (c.controlPoints.last?.relativeTime ?? 0)) }
        return end
    }
}

/// A JSON value, kept verbatim where the format allows anything (AHAP `Metadata`).
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in document order (order is kept for stable round trips).
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}
