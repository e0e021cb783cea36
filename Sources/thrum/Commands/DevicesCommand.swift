import ThrumLink

/// `thrum devices`: list serial ports.
enum DevicesCommand: Subcommand {
    static let name = "devices"
    static let summary = "list serial ports, with USB vendor, product and serial number"
    static let usage = """
        Usage: thrum devices [--json]

        Lists the serial ports libserialport finds. USB ports show vendor:product ids, the
        manufacturer, the product and the serial number. Pseudo-terminals (such as `thrum sim`)
        are not listed: give their path to a command directly (`thrum play --port PATH`).

        Options:
          --json    print a JSON array
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let json = arguments.flag("json")
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()
        let ports: [SerialPortInfo]
        do {
            ports = try SerialPortEnumeration.listPorts()
        } catch {
            throw CommandFailure(message: "cannot list serial ports: \(error)")
        }
        if json {
            JSONOutput.print(ports.map(jsonObject))
            return 0
        }
        if ports.isEmpty {
            print("no serial ports found")
            return 0
        }
        for port in ports {
            var line = port.name + "  " + port.kind.rawValue
            if let id = port.usbID { line += "  \(id)" }
            if let product = port.product { line += "  \(product)" }
            if let manufacturer = port.manufacturer { line += "  (\(manufacturer))" }
            if let serial = port.serialNumber { line += "  serial \(serial)" }
            if port.kind != .usb, let description = port.description { line += "  \(description)" }
            print(line)
        }
        return 0
    }

    /// One port as JSON, with null for what the port does not report.
    static func jsonObject(_ port: SerialPortInfo) -> [String: Any] {
        [
            "name": port.name,
            "kind": port.kind.rawValue,
            "description": JSONOutput.orNull(port.description),
            "usb_vid_pid": JSONOutput.orNull(port.usbID),
            "usb_vendor_id": JSONOutput.orNull(port.usbVendorID),
            "usb_product_id": JSONOutput.orNull(port.usbProductID),
            "manufacturer": JSONOutput.orNull(port.manufacturer),
            "product": JSONOutput.orNull(port.product),
            "serial_number": JSONOutput.orNull(port.serialNumber),
            "bluetooth_address": JSONOutput.orNull(port.bluetoothAddress),
        ]
    }
}
