/// Why bytes failed to decode as protocol values (PROTOCOL.md §3).
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended inside a field or a message id.
    case truncated
    /// A varint ran past ``ProtocolConstants/uvarintMaxBytes`` bytes.
    case varintTooLong
    /// A varint's value does not fit 32 bits.
    case varintOverflow
    /// A varint was encoded with more bytes than necessary.
    case varintOverlong
    /// A message id that is not defined for this direction.
    case unknownMessage(id: UInt32, direction: Direction)
    /// A field value outside its range (e.g. a SEGMENT duration of 0).
    case fieldOutOfRange(field: String, value: UInt32)
    /// Bytes remained after a value that should have ended the input.
    case trailingBytes

    public var description: String {
        switch self {
        case .truncated: return "input ends inside a message"
        case .varintTooLong: return "varint longer than 5 bytes"
        case .varintOverflow: return "varint value exceeds 32 bits"
        case .varintOverlong: return "varint encoded with more bytes than necessary"
        case .unknownMessage(let id, let direction): return "unknown \(direction) message id \(id)"
        case .fieldOutOfRange(let field, let value): return "\(field)=\(value) is out of range"
        case .trailingBytes: return "bytes remain after the value"
        }
    }
}
