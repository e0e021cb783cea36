/// A JSON text that does not follow the grammar, with where and what was expected.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where the offending character (or the end of input) is.
    public var position: SourcePosition
    /// The path of the value being parsed when the error was found (e.g. `Pattern[2].Event`);
    /// empty at the top level.
    public var path: String
    /// What was found and what was expected, e.g. "expected ',' or '}' after object member, found ']'".
    public var message: String

    /// Creates a syntax error.
    public init(position: SourcePosition, path: String, message: String) {
        self.position = position
        self.path = path
        self.message = message
    }

    /// `line:column: message`.
    public var description: String { "\(position): \(message)" }
}
