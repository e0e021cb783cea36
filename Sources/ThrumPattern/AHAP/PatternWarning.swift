/// Something in a pattern that loads but probably does not do what its author meant.
public struct PatternWarning: Equatable, Sendable, CustomStringConvertible {
    /// The kind of problem, for filtering and tests.
    public enum Kind: String, Sendable, CaseIterable {
        /// A key the format does not define (ignored, as Core Haptics does).
        case unknownKey
        /// The same key twice in one object (the last one wins).
        case duplicateKey
        /// A number outside its parameter's range, clamped to the nearest bound.
        case valueClamped
        /// A value of the wrong type or one that has no effect, ignored.
        case ignoredValue
        /// A `HapticContinuous` event longer than Core Haptics' 30 s maximum.
        case continuousTooLong
        /// A continuous event with no (or zero) `EventDuration`: it plays nothing.
        case zeroDuration
        /// A `ParameterCurve` with more than 16 control points (the practical limit).
        case tooManyControlPoints
        /// A curve whose first point time equals the curve's time: points look absolute.
        case absoluteCurveTimes
        /// Control points not in time order.
        case unsortedControlPoints
        /// A control point lacking `Time` or `ParameterValue`: the whole list is dropped.
        case controlPointsDropped
        /// A `Parameter` without `ParameterValue` (Core Haptics reads 0).
        case missingValue
        /// `Version` absent or not a number: 1.0 assumed.
        case versionAssumed
        /// An `EventWaveformPath` whose audio file cannot be found.
        case audioFileNotFound
        /// Events not in time order (played sorted); one warning per document.
        case unsortedEvents
        /// The same event parameter given more than once in one event (the last one wins); one
        /// warning per event and parameter, however many repeats.
        case duplicateParameter
    }

    /// The kind of problem.
    public var kind: Kind
    /// The file name (or source name).
    public var file: String
    /// 1-based line (0 when not read from text).
    public var line: Int
    /// 1-based column in characters (0 when not read from text).
    public var column: Int
    /// Path of the element, e.g. `Pattern[2].ParameterCurve`.
    public var path: String
    /// What was found and what happens instead.
    public var message: String

    /// Creates a warning.
    public init(kind: Kind, file: String, line: Int, column: Int, path: String, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    /// `file:line:column: warning: message (at path)`.
    public var description: String {
        let place = line == 0 ? "" : ":\(line):\(column)"
        return "\(TextEscaping.escaped(file))\(place): warning: \(TextEscaping.escaped(message)) (at \(TextEscaping.escaped(path.isEmpty ? "top level" : path)))"
    }
}
