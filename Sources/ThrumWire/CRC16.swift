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
        checksum(bytes, start: ProtocolConstants.crcInitial)
    }

    /// The CRC of `bytes`, starting from `start`: ``ProtocolConstants/crcInitial`` (a plain
    /// frame), or a session's key (``sessionKey(_:)``, a frame of that session, PROTOCOL.md §3.8).
    public static func checksum(_ bytes: some Sequence<UInt8>, start: UInt16) -> UInt16 {
        var crc = start
        for byte in bytes { crc = update(crc, with: byte) }
        return crc
    }

    /// The start a CRC must have had to end as `crc` over `bytes`: the key of the session a frame
    /// was sent in, whichever it was (the CRC is linear: the start's share of the end is the
    /// register advanced over as many zero bytes, a step that runs backwards exactly). Frames of
    /// one session all give its key; a corrupted frame gives an arbitrary value.
    public static func impliedStart(of crc: UInt16, over bytes: some Collection<UInt8>) -> UInt16 {
        var register = crc ^ checksum(bytes, start: 0)
        for _ in 0..<(8 * bytes.count) {
            // forward, a zero bit: (r >> 1) ^ poly when bit 0 was set (sets bit 15), else r >> 1
            register = register & 0x8000 != 0
                ? ((register ^ ProtocolConstants.crcPolynomialReflected) << 1) | 1 : register << 1
        }
        return register
    }

    /// The key of session `session` (PROTOCOL.md §3.8): the CRC state after its four bytes,
    /// little-endian, from ``ProtocolConstants/crcInitial``. A session's frames start their CRC
    /// from it; two different starts never give the same CRC over the same bytes.
    public static func sessionKey(_ session: UInt32) -> UInt16 {
        checksum((0..<4).map { UInt8(truncatingIfNeeded: session >> (8 * $0)) })
    }
}
