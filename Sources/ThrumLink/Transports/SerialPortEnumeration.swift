import CSerialPort

/// How a serial port is attached, as libserialport reports it (`sp_get_port_transport`).
public enum SerialPortKind: String, Codable, Sendable, Equatable {
    /// A native UART (`SP_TRANSPORT_NATIVE`).
    case native
    /// A USB-serial adapter or USB CDC device (`SP_TRANSPORT_USB`).
    case usb
    /// A Bluetooth serial port (`SP_TRANSPORT_BLUETOOTH`).
    case bluetooth
}

/// One serial port found on the system, with what libserialport knows about it; `Codable` for
/// `thrum ports --json`.
public struct SerialPortInfo: Codable, Sendable, Equatable {
    /// The device path, e.g. `/dev/ttyACM0` (`sp_get_port_name`).
    public var name: String
    /// A human-readable description (`sp_get_port_description`).
    public var description: String?
    /// How the port is attached (`sp_get_port_transport`).
    public var kind: SerialPortKind
    /// The USB vendor id (`sp_get_port_usb_vid_pid`), for USB ports.
    public var usbVendorID: Int?
    /// The USB product id (`sp_get_port_usb_vid_pid`), for USB ports.
    public var usbProductID: Int?
    /// The USB manufacturer string (`sp_get_port_usb_manufacturer`).
    public var manufacturer: String?
    /// The USB product string (`sp_get_port_usb_product`).
    public var product: String?
    /// The USB serial number (`sp_get_port_usb_serial`), stable across re-plugging.
    public var serialNumber: String?
    /// The Bluetooth MAC address (`sp_get_port_bluetooth_address`), for Bluetooth ports.
    public var bluetoothAddress: String?

    /// Creates a port description (for tests and for listings from other sources).
    public init(
        name: String, description: String? = nil, kind: SerialPortKind, usbVendorID: Int? = nil,
        usbProductID: Int? = nil, manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil,
        bluetoothAddress: String? = nil
    ) {
        self.name = name
        self.description = description
        self.kind = kind
        self.usbVendorID = usbVendorID
        self.usbProductID = usbProductID
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
        self.bluetoothAddress = bluetoothAddress
    }

    /// `VID:PID` in lower-case hex as `lsusb` prints it, e.g. `2341:0043`; nil unless USB.
    public var usbID: String? {
        guard let usbVendorID, let usbProductID else { return nil }
        return hex4(usbVendorID) + ":" + hex4(usbProductID)
    }
}

private func hex4(_ value: Int) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// Lists the serial ports on this system.
public enum SerialPortEnumeration {
    /// Lists every serial port libserialport finds (`sp_list_ports`, the `sp_get_port_*`
    /// getters, `sp_free_port_list`), sorted by name. Returns an empty list on a machine with
    /// no serial ports; pseudo-terminals are never listed.
    /// - Throws: ``TransportError/ioFailed(reason:)`` when the system cannot be queried.
    public static func listPorts() throws(TransportError) -> [SerialPortInfo] {
        var list: UnsafeMutablePointer<OpaquePointer?>? = nil
        let result = sp_list_ports(&list)
        guard result == SP_OK, let list else {
            throw .ioFailed(reason: SerialPortTransport.message(for: result, call: "sp_list_ports"))
        }
        defer { sp_free_port_list(list) }
        var ports: [SerialPortInfo] = []
        var index = 0
        while let port = list[index] {
            ports.append(info(of: port))
            index += 1
        }
        return ports.sorted { $0.name < $1.name }
    }

    private static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    static func info(of port: OpaquePointer) -> SerialPortInfo {
        let kind: SerialPortKind
        switch sp_get_port_transport(port) {
        case SP_TRANSPORT_USB: kind = .usb
        case SP_TRANSPORT_BLUETOOTH: kind = .bluetooth
        default: kind = .native
        }
        var info = SerialPortInfo(
            name: string(sp_get_port_name(port)) ?? "", description: string(sp_get_port_description(port)), kind: kind)
        switch kind {
        case .usb:
            var vid: CInt = 0
            var pid: CInt = 0
            if sp_get_port_usb_vid_pid(port, &vid, &pid) == SP_OK {
                info.usbVendorID = Int(vid)
                info.usbProductID = Int(pid)
            }
            info.manufacturer = string(sp_get_port_usb_manufacturer(port))
            info.product = string(sp_get_port_usb_product(port))
            info.serialNumber = string(sp_get_port_usb_serial(port))
        case .bluetooth:
            info.bluetoothAddress = string(sp_get_port_bluetooth_address(port))
        case .native:
            break
        }
        return info
    }
}
