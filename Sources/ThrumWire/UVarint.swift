/// Unsigned LEB128 varints as PROTOCOL.md §3 restricts them: at most 5 bytes, value fits 32 bits,
/// minimal encoding.
public enum UVarint {
    /// Appends the minimal encoding of `value` to `bytes`.
    public static func encode(_ value: UInt32, into bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// The minimal encoding of `value` (1 to 5 bytes).
    public static func encoded(_ value: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(value, into: &bytes)
        return bytes
    }

    /// The number of bytes `value` encodes to.
    public static func encodedLength(_ value: UInt32) -> Int {
        var length = 1
        var rest = value >> 7
        while rest != 0 {
            length += 1
            rest >>= 7
        }
        return length
    }

    /// Decodes a varint starting at `index` and moves `index` past it.
    public static func decode(_ bytes: [UInt8], at index: inout Int) throws(WireError) -> UInt32 {
        var value: UInt64 = 0
        for i in 0..<ProtocolConstants.uvarintMaxBytes {
            guard index + i < bytes.count else { throw .truncated }
            let byte = bytes[index + i]
            value |= UInt64(byte & 0x7F) << (7 * UInt64(i))
            if byte & 0x80 == 0 {
                if i > 0 && byte == 0 { throw .varintOverlong }
                guard value <= UInt64(UInt32.max) else { throw .varintOverflow }
                index += i + 1
                return UInt32(value)
            }
        }
        throw .varintTooLong
    }

    /// Decodes `bytes` as exactly one varint.
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> UInt32 {
        var index = 0
        let value = try decode(bytes, at: &index)
        guard index == bytes.count else { throw .trailingBytes }
        return value
    }
}
