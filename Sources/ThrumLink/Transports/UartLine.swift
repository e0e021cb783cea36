/// What the host can know about the line between its port and the device: whether it is a UART
/// whose rate the host set, so that every byte takes at least 10 bit times (8N1) each way.
///
/// A native UART (`/dev/ttyS0`, a Raspberry Pi's `ttyAMA0` wired to the microcontroller) is one;
/// so is a USB-serial bridge chip, which the host recognises by its USB ids. A native USB CDC
/// device (`ttyACM`, a microcontroller with its own USB) is not: it ignores the baud rate, so no
/// byte time can be assumed, and neither can one behind a network or Bluetooth port. Only the
/// bridges listed here are claimed — a CDC device taken for a bridge would make the clock model's
/// bound wrong, one left out only leaves the bound wider.
public enum UartLine {
    /// USB vendor and product ids of USB-serial bridge chips: FTDI FT232R, FT2232, FT4232, FT232H,
    /// FT-X; WCH CH340, CH341, CH9102; Silicon Labs CP210x; Prolific PL2303.
    public static let knownBridges: Set<USBID> = [
        USBID(0x0403, 0x6001), USBID(0x0403, 0x6010), USBID(0x0403, 0x6011), USBID(0x0403, 0x6014), USBID(0x0403, 0x6015),
        USBID(0x1A86, 0x7523), USBID(0x1A86, 0x7522), USBID(0x1A86, 0x5523), USBID(0x1A86, 0x55D4),
        USBID(0x10C4, 0xEA60), USBID(0x10C4, 0xEA70), USBID(0x10C4, 0xEA71), USBID(0x10C4, 0xEA63),
        USBID(0x067B, 0x2303), USBID(0x067B, 0x23A3),
    ]

    /// The bridges with a latency timer: FTDI's, which hold a partly filled packet back for up to
    /// 16 ms (the factory setting) before handing it to the host, unless the host lowers it.
    public static func hasLatencyTimer(_ port: SerialPortInfo) -> Bool {
        guard port.kind == .usb, let vendor = port.usbVendorID, let product = port.usbProductID else { return false }
        return vendor == 0x0403 && knownBridges.contains(USBID(vendor, product))
    }

    /// A USB vendor and product id.
    public struct USBID: Hashable, Sendable {
        public var vendor: Int
        public var product: Int
        public init(_ vendor: Int, _ product: Int) {
            self.vendor = vendor
            self.product = product
        }
    }

    /// The time one byte takes at `baud`, µs: 10 bits (start, 8 data, stop).
    public static func byteTime(baud: Int) -> Double { 10e6 / Double(baud) }

    /// The byte time of the line behind `port` opened at `baud`, or nil when the port is not
    /// known to be a UART (a USB CDC device, an unknown USB adapter, Bluetooth).
    public static func byteTime(of port: SerialPortInfo, baud: Int) -> Double? {
        switch port.kind {
        case .native:
            return byteTime(baud: baud)
        case .usb:
            guard let vendor = port.usbVendorID, let product = port.usbProductID,
                knownBridges.contains(USBID(vendor, product))
            else { return nil }
            return byteTime(baud: baud)
        case .bluetooth:
            return nil
        }
    }
}
