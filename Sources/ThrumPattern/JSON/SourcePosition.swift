/// A place in a text document: 1-based line and column, the column counted in characters
/// (Unicode scalars), not bytes. Values built in code rather than parsed carry line 0, column 0.
public struct SourcePosition: Hashable, Sendable, CustomStringConvertible {
    // Stored in 32 bits each (a parsed tree holds two positions per member: this halves them);
    // larger values are clamped to UInt32.max.
    private var storedLine: UInt32
    private var storedColumn: UInt32

    /// 1-based line number (0 when the value did not come from text).
    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = UInt32(clamping: newValue) }
    }
    /// 1-based column in characters (0 when the value did not come from text).
    public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = UInt32(clamping: newValue) }
    }

    /// Creates a position.
    public init(line: Int, column: Int) {
        storedLine = UInt32(clamping: line)
        storedColumn = UInt32(clamping: column)
    }

    /// The position of values that were not parsed from text (dictionaries, API calls).
    public static let unknown = SourcePosition(line: 0, column: 0)

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}
