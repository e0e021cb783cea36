/// A place in a text document: 1-based line and column, the column counted in characters
/// (Unicode scalars), not bytes. Values built in code rather than parsed carry line 0, column 0.
public struct SourcePosition: Hashable, Sendable, CustomStringConvertible {
    /// 1-based line number (0 when the value did not come from text).
    public var line: Int
    /// 1-based column in characters (0 when the value did not come from text).
    public var column: Int

    /// Creates a position.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The position of values that were not parsed from text (dictionaries, API calls).
    public static let unknown = SourcePosition(line: 0, column: 0)

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}
