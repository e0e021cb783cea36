/// Why a pattern could not be read, with the `CHHapticError` code Core Haptics would give and
/// where in the document the problem is.
///
/// `description` is formatted like a compiler diagnostic:
/// `file:line:column: error[-4822]: message (at Pattern[3].Event.Time)`.
public struct PatternError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The matching `CHHapticError` code.
    public var code: HapticErrorCode
    /// The file name (or the source name given by the caller, `<dictionary>` for dictionaries).
    public var file: String
    /// 1-based line of the offending element (0 when not read from text).
    public var line: Int
    /// 1-based column, in characters, of the offending element (0 when not read from text).
    public var column: Int
    /// Path of the offending element, e.g. `Pattern[3].Event.Time` (array indices 0-based);
    /// empty for the document as a whole.
    public var path: String
    /// What is wrong and what was expected.
    public var message: String

    /// Creates an error.
    public init(code: HapticErrorCode, file: String, line: Int, column: Int, path: String, message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    /// `file:line:column: error[-4822]: message (at path)`; the path reads `top level` when empty.
    public var description: String {
        let place = line == 0 ? "" : ":\(line):\(column)"
        let at = line == 0 && path.isEmpty ? "" : " (at \(TextEscaping.escaped(path.isEmpty ? "top level" : path)))"
        return "\(TextEscaping.escaped(file))\(place): error[\(code.rawValue)]: \(TextEscaping.escaped(message))\(at)"
    }
}
