/// Reads fixed-width fields and varints from a payload, front to back (PROTOCOL.md §3).
struct PayloadReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func u8() throws(WireError) -> UInt8 {
        guard index < bytes.count else { throw .truncated }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u32() throws(WireError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .truncated }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[index + i]) << (8 * UInt32(i)) }
        index += 4
        return value
    }

    mutating func uv() throws(WireError) -> UInt32 {
        try UVarint.decode(bytes, at: &index)
    }

    /// A byte string: a `u8` length, then that many bytes (§3 type `bytes`).
    mutating func byteString() throws(WireError) -> [UInt8] {
        let count = Int(try u8())
        guard index + count <= bytes.count else { throw .truncated }
        defer { index += count }
        return Array(bytes[index..<(index + count)])
    }
}

/// Appends fields to a payload under construction.
struct PayloadWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    mutating func uv(_ value: UInt32) { UVarint.encode(value, into: &bytes) }

    /// A byte string (at most 255 bytes): its length, then the bytes.
    mutating func byteString(_ data: [UInt8]) {
        precondition(data.count <= 255, "a byte string holds at most 255 bytes")
        bytes.append(UInt8(data.count))
        bytes += data
    }
}
