/// Which way a frame travels; selects the CTRL marker and the message set (PROTOCOL.md §1.1).
public enum Direction: Sendable, Hashable, CustomStringConvertible {
    /// Host → device (`h2d`): marker `0xA`, commands.
    case hostToDevice
    /// Device → host (`d2h`): marker `0xD`, acknowledgements and reports.
    case deviceToHost

    /// The high nibble of CTRL for this direction.
    public var marker: UInt8 {
        switch self {
        case .hostToDevice: return ProtocolConstants.ctrlMarkHost
        case .deviceToHost: return ProtocolConstants.ctrlMarkDevice
        }
    }

    /// The low-nibble CTRL bits that must be 0 in this direction: bits 3..2 for the host, and all
    /// four bits for the device (which has no flags).
    public var reservedMask: UInt8 {
        switch self {
        case .hostToDevice: return ProtocolConstants.ctrlReservedMask
        case .deviceToHost: return 0x0F
        }
    }

    /// Whether `ctrl` carries this direction's marker and no reserved bit.
    public func accepts(ctrl: UInt8) -> Bool {
        ctrl & ProtocolConstants.ctrlMarkMask == marker && ctrl & reservedMask == 0
    }

    public var description: String {
        switch self {
        case .hostToDevice: return "h2d"
        case .deviceToHost: return "d2h"
        }
    }
}
