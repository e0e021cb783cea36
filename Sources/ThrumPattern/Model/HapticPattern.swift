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

    /// Creates a pattern from events and step parameters, like `CHHapticPattern(events:parameters:)`.
    public init(events: [HapticEvent], parameters: [HapticDynamicParameter]) {
        self.init(events: events, parameters: parameters, parameterCurves: [])
    }

    /// Creates a pattern from events and curves, like `CHHapticPattern(events:parameterCurves:)`.
    public init(events: [HapticEvent], parameterCurves: [HapticParameterCurve]) {
        self.init(events: events, parameters: [], parameterCurves: parameterCurves)
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
