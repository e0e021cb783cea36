/// CRC-32 (IEEE 802.3, as zlib and PNG: polynomial 0x04C11DB7 bit-reflected = 0xEDB88320, initial
/// value 0xFFFFFFFF, final XOR 0xFFFFFFFF). The check value of the ASCII bytes `123456789` is
/// 0xCBF43926. A library image ends with the CRC-32 of every byte before it (docs/library.md).
public enum CRC32 {
    /// The CRC of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
