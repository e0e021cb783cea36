import Foundation
import ThrumLink

#if canImport(Glibc)
import Glibc
#endif

/// The checks of `thrum doctor` that need no device: the tools Thrum runs, and the port as the
/// system sees it (exists, opens, who else has it, ModemManager, USB ids).
struct HostChecks {
    var environment: [String: String]
    var inspection = PortInspection()

    /// A program Thrum runs, with the Debian package that brings it.
    struct Tool {
        var program: String
        var package: String
    }

    static let flashingTools = [Tool(program: "avrdude", package: "avrdude"), Tool(program: "stm32flash", package: "stm32flash")]
    static let buildTools = [
        Tool(program: "make", package: "make"), Tool(program: "avr-gcc", package: "gcc-avr"),
        Tool(program: "arm-none-eabi-gcc", package: "gcc-arm-none-eabi"),
    ]

    /// The full path of `program` on PATH, nil when it is not there.
    func find(_ program: String) -> String? {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    func tools() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        checks.append(.pass("tools.libserialport", "serial library", "libserialport is loaded (thrum is linked against it)"))
        for (id, title, tools, use) in [
            ("tools.flashing", "flashing tools", Self.flashingTools, "flash the firmware"),
            ("tools.build", "firmware build", Self.buildTools, "build the firmware images"),
        ] {
            let missing = tools.filter { find($0.program) == nil }
            if missing.isEmpty {
                checks.append(.pass(id, title, tools.map(\.program).joined(separator: ", ") + " found"))
            } else {
                checks.append(
                    .fail(
                        id, title,
                        "not on PATH: " + missing.map(\.program).joined(separator: ", ") + " (needed to \(use))",
                        fix: "sudo apt-get install " + missing.map(\.package).joined(separator: " ")
                            + " (or tools/ensure-deps.sh)"))
            }
        }
        return checks
    }

    /// What the port checks found, and whether talking to the device is worth trying.
    struct PortFindings {
        var checks: [DoctorCheck]
        var usable: Bool
        var usb: USBSerialIdentity?
    }

    func port(_ path: String) -> PortFindings {
        if path.hasPrefix("tcp://") || path.hasPrefix("rfc2217://") {
            return PortFindings(
                checks: [
                    .skipped(
                        "port", "port", "\(path) is a network port (ser2net): its port checks belong on the machine that serves it")
                ], usable: true, usb: nil)
        }
        var checks: [DoctorCheck] = []
        var info = stat()
        guard stat(path, &info) == 0 else {
            checks.append(
                .fail(
                    "port.exists", "port exists", "no such file: \(path)",
                    fix: "plug the board in and run `thrum devices` to list the serial ports (a pty from `thrum sim` is printed on its first line)"))
            return PortFindings(checks: checks, usable: false, usb: nil)
        }
        let kind = (try? transportKind(forPath: path)) ?? .serialPort
        let isPseudoTerminal = kind == .pseudoTerminal
        guard (info.st_mode & S_IFMT) == S_IFCHR else {
            checks.append(
                .fail(
                    "port.exists", "port exists", "\(path) is not a serial port (not a character device)",
                    fix: "give the board's serial port: `thrum devices` lists them (a pty from `thrum sim` is printed on its first line)"))
            return PortFindings(checks: checks, usable: false, usb: nil)
        }
        checks.append(
            .pass(
                "port.exists", "port exists",
                "\(path): " + (!isPseudoTerminal ? "a serial port" : realPath(path).hasPrefix("/dev/pts/") ? "a pseudo-terminal" : "a character device")))

        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        let openErrno = errno
        var usable = true
        if fd >= 0, isatty(fd) == 0 {
            close(fd)
            checks.append(
                .fail(
                    "port.opens", "port opens", "\(path) opens but is not a terminal",
                    fix: "give the board's serial port: `thrum devices` lists them"))
            return PortFindings(checks: checks, usable: false, usb: nil)
        } else if fd >= 0 {
            close(fd)
            checks.append(.pass("port.opens", "port opens", "opened for reading and writing"))
        } else if openErrno == EACCES || openErrno == EPERM {
            let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "dialout"
            if info.st_mode & 0o060 == 0o060 {
                checks.append(
                    .fail(
                        "port.opens", "port opens", "permission denied: \(path) belongs to the group \(group), which you are not in",
                        fix: "add yourself to the \(group) group: sudo usermod -aG \(group) $USER, then log in again"))
            } else {
                checks.append(
                    .fail(
                        "port.opens", "port opens", "permission denied: only the owner of \(path) may open it",
                        fix: "give it to the dialout group with a udev rule: SUBSYSTEM==\"tty\", KERNEL==\"\((path as NSString).lastPathComponent)\", "
                            + "GROUP=\"dialout\", MODE=\"0660\"; then sudo usermod -aG dialout $USER and log in again"))
            }
            usable = false
        } else if openErrno == EBUSY {
            checks.append(
                .fail(
                    "port.opens", "port opens", "the port is in exclusive use by another program",
                    fix: "close the program that holds it (see below)"))
            usable = false
        } else {
            checks.append(
                .fail(
                    "port.opens", "port opens", "cannot open: " + String(cString: strerror(openErrno)).lowercased(),
                    fix: "unplug and replug the board; check `dmesg` for the USB-serial driver's messages"))
            usable = false
        }

        let holders = inspection.holders(of: path)
        let servers = holders.filter { isPseudoTerminal && $0.servesPseudoTerminals && !$0.locks }
        let others = holders.filter { h in !servers.contains(h) }
        let named = others.prefix(5).map(\.description).joined(separator: ", ")
            + (others.count > 5 ? " and \(others.count - 5) more" : "")
        if others.isEmpty {
            checks.append(
                .pass(
                    "port.free", "not held", "no other process has it open"
                        + (servers.isEmpty ? "" : " (served by " + servers.map(\.description).joined(separator: ", ") + ")")))
        } else {
            checks.append(
                .fail(
                    "port.free", "not held", "held by " + named
                        + (others.contains { $0.locks }
                            ? ": it locks the port, so thrum cannot open it" : ": it would read the device's replies"),
                    fix: "close " + named + " (a serial monitor, another thrum, screen or minicom), or stop it: kill "
                        + others.prefix(5).map { "\($0.pid)" }.joined(separator: " ")))
        }

        let usb = isPseudoTerminal ? nil : inspection.usbIdentity(ofPort: path)
        checks.append(modemManager(path: path, isPseudoTerminal: isPseudoTerminal, usb: usb))
        checks.append(usbCheck(path: path, isPseudoTerminal: isPseudoTerminal, usb: usb))
        return PortFindings(checks: checks, usable: usable, usb: usb)
    }

    func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func modemManager(path: String, isPseudoTerminal: Bool, usb: USBSerialIdentity?) -> DoctorCheck {
        let title = "ModemManager"
        if isPseudoTerminal {
            return .skipped("port.modemmanager", title, "a pseudo-terminal: ModemManager probes only USB and serial ports")
        }
        let running = inspection.processes(named: "ModemManager")
        guard let pid = running.first else { return .pass("port.modemmanager", title, "not running: nothing probes the port") }
        if inspection.udevProperties(ofPort: path)["ID_MM_DEVICE_IGNORE"] == "1" {
            return .pass("port.modemmanager", title, "running (PID \(pid)), but udev tells it to leave this port alone")
        }
        let match = usb.map { "ATTRS{idVendor}==\"\($0.vendorID)\", ATTRS{idProduct}==\"\($0.productID)\", " } ?? "KERNEL==\"\((path as NSString).lastPathComponent)\", "
        return .fail(
            "port.modemmanager", title,
            "running (PID \(pid)) and may probe this port with AT commands when it appears",
            fix: "echo '\(match)ENV{ID_MM_DEVICE_IGNORE}=\"1\"' | sudo tee /etc/udev/rules.d/99-thrum.rules, then replug"
                + " (or: sudo systemctl disable --now ModemManager)")
    }

    func usbCheck(path: String, isPseudoTerminal: Bool, usb: USBSerialIdentity?) -> DoctorCheck {
        let title = "USB ids"
        if isPseudoTerminal { return .skipped("port.usb", title, "a pseudo-terminal has no USB ids") }
        guard let usb else {
            return .skipped("port.usb", title, "no USB device behind \(path) in sysfs (a native UART?)")
        }
        var detail = "\(usb.usbID): \(usb.bridge.displayName)" + (usb.driver.map { ", driver \($0)" } ?? "")
        if let product = usb.product { detail += ", \"\(product)\"" }
        if let latency = usb.latencyTimerMilliseconds {
            detail += "; latency timer \(latency) ms"
            if latency > 1, let file = usb.latencyTimerPath {
                return .pass(
                    "port.usb", title, detail,
                    hint: "replies wait up to \(latency) ms in the FTDI chip; thrum asks the driver for 1 ms when it opens the port, "
                        + "or set it yourself: echo 1 | sudo tee \(file)")
            }
        }
        return .pass("port.usb", title, detail)
    }
}
