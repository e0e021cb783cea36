import ThrumLink

/// `thrum devices`: list serial ports.
enum DevicesCommand: Subcommand {
    static let name = "devices"
    static let summary = "list serial ports, with USB vendor, product and serial number"
    static let usage = """
        Usage: thrum devices [--json]

        Lists the serial ports libserialport finds. USB ports show vendor:product ids, the
        manufacturer, the product and the serial number. Pseudo-terminals (such as `thrum sim`)
        are not listed: pass their path to --port directly.

        Options:
          --json    print a JSON array
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let json = arguments.flag("json")
        _ = try arguments.positionals().first.map { throw UsageError(message: "unexpected argument '\($0)'") }
        try arguments.finish()
        let ports: [SerialPortInfo]
        do {
            ports = try SerialPortEnumeration.list()
        } catch {
            throw CommandFailure(message: "cannot list serial ports: \(error)")
        }
        if json {
            JSONOutput.print(ports.map(\.jsonObject))
            return 0
        }
        if ports.isEmpty {
            print("no serial ports found")
            return 0
        }
        for port in ports {
            var line = port.name
            if let usb = port.usb {
                line += "  USB \(usb.vendorIDHex):\(usb.productIDHex)"
                if let product = usb.product { line += "  \(product)" }
                if let manufacturer = usb.manufacturer { line += "  (\(manufacturer))" }
                if let serial = usb.serialNumber { line += "  serial \(serial)" }
            } else if let description = port.description {
                line += "  \(description)"
            }
            print(line)
        }
        return 0
    }
}
