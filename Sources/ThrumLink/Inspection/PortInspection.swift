// What the system says about a serial port without talking to the device behind it: its USB ids
// and bridge from sysfs, the processes that have it open (from /proc), whether ModemManager runs
// and what udev told it about the port. `thrum doctor` reads these; Linux only (elsewhere each
// answer is "unknown").
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The USB-serial bridge (or native USB) a port is behind, from its USB vendor id and driver.
public enum USBSerialBridge: String, Sendable, Equatable {
    /// An FTDI FT232R-class bridge (vendor 0403, driver `ftdi_sio`): old Nanos and many clones.
    case ftdi
    /// A WCH CH340/CH341 bridge (vendor 1a86, driver `ch341`): most Nano and Uno clones.
    case ch340
    /// A Silicon Labs CP210x bridge (vendor 10c4, driver `cp210x`).
    case cp210x
    /// A USB CDC-ACM device (driver `cdc_acm`): the Uno's ATmega16U2, or a board with native USB.
    case nativeCDC = "native-cdc"
    /// Anything else.
    case other

    /// What a person calls it.
    public var displayName: String {
        switch self {
        case .ftdi: return "FTDI USB-serial bridge"
        case .ch340: return "CH340 USB-serial bridge"
        case .cp210x: return "CP210x USB-serial bridge"
        case .nativeCDC: return "USB CDC-ACM (native USB, or the Uno's ATmega16U2)"
        case .other: return "USB serial device"
        }
    }

    /// Classifies a device by its vendor id (four lower-case hex digits) and kernel driver name.
    public static func classify(vendorID: String, driver: String?) -> USBSerialBridge {
        switch (vendorID.lowercased(), driver) {
        case ("0403", _), (_, "ftdi_sio"): return .ftdi
        case ("1a86", _), (_, "ch341"): return .ch340
        case ("10c4", _), (_, "cp210x"): return .cp210x
        case (_, "cdc_acm"): return .nativeCDC
        default: return .other
        }
    }
}

/// A USB serial port's identity as sysfs shows it.
public struct USBSerialIdentity: Sendable, Equatable {
    /// `idVendor`, four lower-case hex digits (`1a86`).
    public var vendorID: String
    /// `idProduct`, four lower-case hex digits (`7523`).
    public var productID: String
    /// The kernel driver bound to the port's interface (`ch341`, `ftdi_sio`, `cdc_acm`), if known.
    public var driver: String?
    /// The USB `manufacturer` and `product` strings, when the device has them.
    public var manufacturer: String?
    public var product: String?
    /// An FTDI port's `latency_timer` in milliseconds (the chip holds received bytes up to this
    /// long before sending a short packet; 16 by default), nil for other bridges.
    public var latencyTimerMilliseconds: Int?
    /// The sysfs file to write the latency timer through (`…/ttyUSB0/latency_timer`), for the fix line.
    public var latencyTimerPath: String?

    /// What the ids say.
    public var bridge: USBSerialBridge { USBSerialBridge.classify(vendorID: vendorID, driver: driver) }
    /// `VID:PID` as `lsusb` prints it.
    public var usbID: String { "\(vendorID):\(productID)" }
}

/// A process that has a port open.
public struct PortHolder: Sendable, Equatable {
    /// Its process id.
    public var pid: Int32
    /// Its command name (`/proc/PID/comm`), empty when unreadable.
    public var command: String
    /// Whether it also holds a pseudo-terminal master (`/dev/ptmx`): for a pty, the program that
    /// serves the line (`thrum sim`, socat), not a competitor for it.
    public var servesPseudoTerminals: Bool
    /// Whether it holds the advisory lock every Thrum opener takes.
    public var locks: Bool

    /// `PID 1234 (screen)`.
    public var description: String { command.isEmpty ? "PID \(pid)" : "PID \(pid) (\(command))" }
}

/// Read-only questions about a port and the system around it (no byte is sent to the port).
public struct PortInspection: Sendable {
    /// Where sysfs, procfs and udev's database are (the real ones by default; a tree in a
    /// temporary directory in tests).
    public var sysfsRoot: String
    public var procRoot: String
    public var udevDataRoot: String

    public init(sysfsRoot: String = "/sys", procRoot: String = "/proc", udevDataRoot: String = "/run/udev/data") {
        self.sysfsRoot = sysfsRoot
        self.procRoot = procRoot
        self.udevDataRoot = udevDataRoot
    }

    /// The USB identity of the tty behind `path` (symlinks such as /dev/serial/by-id resolved):
    /// `sysfs/class/tty/NAME/device` is the interface (or usb-serial port); the USB device is the
    /// first directory above it with an `idVendor` file. Nil for a pty, a native UART or a port
    /// sysfs does not know.
    public func usbIdentity(ofPort path: String) -> USBSerialIdentity? {
        let name = basename(of: Platform.resolve(path))
        let device = "\(sysfsRoot)/class/tty/\(name)/device"
        guard let interface = resolvedDirectory(device) else { return nil }
        var directory = interface
        while directory.count > sysfsRoot.count {
            if let vendor = readLine("\(directory)/idVendor"), let product = readLine("\(directory)/idProduct") {
                let driver = resolvedDirectory("\(device)/driver").map(basename(of:))
                let latencyPath = "\(device)/latency_timer"
                let latency = readLine(latencyPath).flatMap { Int($0) }
                return USBSerialIdentity(
                    vendorID: vendor.lowercased(), productID: product.lowercased(), driver: driver,
                    manufacturer: readLine("\(directory)/manufacturer"), product: readLine("\(directory)/product"),
                    latencyTimerMilliseconds: latency,
                    latencyTimerPath: latency == nil ? nil : "/sys/class/tty/\(name)/device/latency_timer")
            }
            guard let slash = directory.lastIndex(of: "/") else { break }
            directory = String(directory[..<slash])
        }
        return nil
    }

    /// The processes other than this one that have `path` open (from `procRoot/PID/fd`, readable
    /// for one's own processes and, as root, for all), with whether each also serves
    /// pseudo-terminals and whether it holds the port's advisory lock.
    public func holders(of path: String) -> [PortHolder] {
        #if os(Linux)
        let target = Platform.resolve(path)
        let lockers = Set(Platform.processesLocking(path).compactMap { Int32($0.split(separator: " ").dropFirst().first ?? "") })
        var found: [PortHolder] = []
        for pid in processIDs() where pid != getpid() {
            let open = openFiles(of: pid)
            guard open.contains(target) else { continue }
            found.append(
                PortHolder(
                    pid: pid, command: command(of: pid), servesPseudoTerminals: open.contains("/dev/ptmx")
                        || open.contains("/dev/pts/ptmx"), locks: lockers.contains(pid)))
        }
        return found.sorted { $0.pid < $1.pid }
        #else
        return []
        #endif
    }

    /// The process ids of running processes whose command is `name` (`ModemManager`).
    public func processes(named name: String) -> [Int32] {
        processIDs().filter { command(of: $0) == name }
    }

    /// udev's properties of the character device at `path` (`E:KEY=VALUE` lines of
    /// `udevDataRoot/cMAJOR:MINOR`), empty when udev has no record of it.
    public func udevProperties(ofPort path: String) -> [String: String] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [:] }
        let rdev = UInt64(info.st_rdev)
        let major = ((rdev >> 8) & 0xFFF) | ((rdev >> 32) & ~UInt64(0xFFF))
        let minor = (rdev & 0xFF) | ((rdev >> 12) & ~UInt64(0xFF))
        var properties: [String: String] = [:]
        for line in readLines("\(udevDataRoot)/c\(major):\(minor)") where line.hasPrefix("E:") {
            let pair = line.dropFirst(2).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { properties[pair[0]] = pair[1] }
        }
        return properties
    }

    // MARK: - Reading the trees

    func processIDs() -> [Int32] {
        guard let dir = opendir(procRoot) else { return [] }
        defer { closedir(dir) }
        var pids: [Int32] = []
        while let entry = readdir(dir) {
            if let pid = Int32(entryName(entry)) { pids.append(pid) }
        }
        return pids
    }

    func openFiles(of pid: Int32) -> Set<String> {
        guard let dir = opendir("\(procRoot)/\(pid)/fd") else { return [] }
        defer { closedir(dir) }
        var targets: Set<String> = []
        while let entry = readdir(dir) {
            let fd = entryName(entry)
            guard Int(fd) != nil else { continue }
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("\(procRoot)/\(pid)/fd/\(fd)", &buffer, buffer.count - 1)
            if n > 0 { targets.insert(String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        }
        return targets
    }

    func command(of pid: Int32) -> String { readLine("\(procRoot)/\(pid)/comm") ?? "" }

    private func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private func resolvedDirectory(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func basename(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The first line of a small text file, trimmed; nil when it cannot be read or is empty.
    private func readLine(_ path: String) -> String? {
        readLines(path).first.flatMap { $0.isEmpty ? nil : $0 }
    }

    private func readLines(_ path: String) -> [String] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 1024)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            lines.append(line.trimmingTrailingNewline())
        }
        return lines
    }
}

extension String {
    fileprivate func trimmingTrailingNewline() -> String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == "\r" || last == " " { s = s.dropLast() }
        return String(s)
    }
}
