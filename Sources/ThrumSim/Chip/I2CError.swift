/// An I²C transaction the virtual DRV2605L did not acknowledge. Mirrors the negative errno the
/// firmware HAL returns (`thrum_hal_t.i2c_write` / `i2c_read`).
public enum I2CError: Error, Equatable, Sendable {
    /// Nobody answered at this 7-bit address (the DRV2605L is fixed at 0x5A).
    case noDevice(address: UInt8)
    /// A write with no register byte, or a read of zero or negative length.
    case invalidTransfer

    /// The negative errno a C HAL returns for this error: −ENXIO (6) or −EINVAL (22).
    public var errno: Int32 {
        switch self {
        case .noDevice: return -6
        case .invalidTransfer: return -22
        }
    }
}
