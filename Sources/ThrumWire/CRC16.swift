/// CRC-16/MCRF4XX (PROTOCOL.md §1.2): polynomial 0x1021 bit-reflected, initial 0xFFFF, reflected
/// in and out, no final XOR. Check value: ``ProtocolConstants/crcCheck``.
public enum CRC16 {
    /// Folds one byte into a running CRC.
    @inlinable
    public static func update(_ crc: UInt16, with byte: UInt8) -> UInt16 {
        var crc = crc ^ UInt16(byte)
        for _ in 0..<8 {
            crc = (crc & 1) != 0 ? (crc >> 1) ^ ProtocolConstants.crcPolynomialReflected : crc >> 1
        }
        return crc
    }

    /// The CRC of `bytes`, starting from ``ProtocolConstants/crcInitial``.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = ProtocolConstants.crcInitial
        for byte in bytes { crc = update(crc, with: byte) }
        return crc
    }
}
