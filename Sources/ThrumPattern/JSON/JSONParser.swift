/// A recursive-descent JSON parser over UTF-8 bytes that records the line and column of every
/// value (see `JSONNode`).
///
/// Strict RFC 8259 by default. With `Options.lenient` it also accepts a trailing comma before
/// `]` or `}` (as some AHAP exporters write). Numbers are converted without any locale.
public struct JSONParser: Sendable {
    /// What the parser accepts beyond RFC 8259.
    public struct Options: Sendable, Equatable {
        /// Accept `[1, 2,]` and `{"a": 1,}`.
        public var allowsTrailingCommas: Bool
        /// Deepest nesting of arrays and objects accepted (guards the stack).
        public var maxDepth: Int

        /// Creates options.
        public init(allowsTrailingCommas: Bool = false, maxDepth: Int = 256) {
            self.allowsTrailingCommas = allowsTrailingCommas
            self.maxDepth = maxDepth
        }

        /// RFC 8259 exactly.
        public static let strict = Options()
        /// RFC 8259 plus trailing commas.
        public static let lenient = Options(allowsTrailingCommas: true)
    }

    /// The options in use.
    public var options: Options

    /// Creates a parser.
    public init(options: Options = .strict) {
        self.options = options
    }

    /// Parses one JSON text (an optional UTF-8 byte order mark is skipped).
    public func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var scanner = JSONScanner(bytes: bytes, options: options)
        return try scanner.parseDocument()
    }

    /// Parses one JSON text given as a string.
    public func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }
}
