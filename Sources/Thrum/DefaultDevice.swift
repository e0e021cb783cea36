import Foundation
import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumSim

/// The device `HapticEngine()` plays on when the code names none, as an app's `CHHapticEngine()`
/// plays on the phone it runs on.
///
/// Chosen in this order: the port in the environment variable `THRUM_PORT`; else the first line
/// of `$XDG_CONFIG_HOME/thrum/default-port` (`~/.config/thrum/default-port` without XDG); else
/// the built-in virtual device (the same simulated board, chip and LRA as `thrum sim`, in
/// virtual time, so `run(for:)` returns at once). ``description`` says which, for a log line.
public enum DefaultDevice: Hashable, Sendable, CustomStringConvertible {
    /// A serial port, pty, `tcp://` or `rfc2217://` address, and where the choice came from.
    case port(String, source: String)
    /// The built-in virtual device.
    case virtual

    /// The baud rate used for a real serial port (ignored by ptys and TCP).
    public static let baud = 115_200

    /// The choice for `environment` (the process's by default).
    public static func choose(environment: [String: String] = ProcessInfo.processInfo.environment) -> DefaultDevice {
        if let port = environment["THRUM_PORT"]?.trimmingCharacters(in: .whitespaces), !port.isEmpty {
            return .port(port, source: "THRUM_PORT")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let file = config + "/thrum/default-port"
        if let text = try? String(contentsOfFile: file, encoding: .utf8),
            let line = text.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: .whitespaces), !line.isEmpty
        {
            return .port(line, source: file)
        }
        return .virtual
    }

    public var description: String {
        switch self {
        case .port(let port, let source): return "\(port) (from \(source))"
        case .virtual: return "the virtual device (no THRUM_PORT, no default-port file)"
        }
    }
}

extension HapticEngine {
    /// An engine on the default device (``DefaultDevice/choose(environment:)``), as
    /// `CHHapticEngine()`: the port in `THRUM_PORT` or the config file, else the virtual device.
    /// Which one it chose is ``DefaultDevice/description`` of `DefaultDevice.choose()`.
    /// - Throws: `serverInitFailed` (−4810) when the port cannot be opened, with the reason.
    public convenience init() throws {
        self.init(device: try DeviceRegistry.process.defaultDevice())
    }

    /// An engine on `device`. Every engine (and feedback generator) of the process on the same
    /// device shares one connection to it (``DeviceRegistry``): their drive is mixed, each gets its
    /// own players and onset reports. The built-in virtual device runs paced to real time
    /// (``ThrumEngine/SharedDevice/RunMode/paced``), so it plays "live" like hardware.
    /// - Throws: `serverInitFailed` (−4810) when the port cannot be opened, with the reason.
    public convenience init(device: DefaultDevice) throws {
        self.init(device: try DeviceRegistry.process.device(for: device))
    }
}

/// The devices this process has opened for ``HapticEngine/init(device:)`` and the generators'
/// `init()`: one ``ThrumEngine/SharedDevice`` (one connection) per port, and one built-in
/// virtual device. The only process-wide state of Thrum, behind a lock, as the system's haptic
/// server is on Apple's platforms; devices stay open for the life of the process.
public final class DeviceRegistry: @unchecked Sendable {
    /// The process's registry.
    public static let process = DeviceRegistry()

    private let lock = NSLock()
    private var devices: [DefaultDevice: SharedDevice] = [:]
    private var standIn: SharedDevice?

    /// The device `HapticEngine()` and the generators' `init()` play on: the stand-in when one is
    /// set, else the device ``DefaultDevice/choose(environment:)`` names.
    public func defaultDevice() throws -> SharedDevice {
        lock.lock()
        let standIn = self.standIn
        lock.unlock()
        return try standIn ?? device(for: DefaultDevice.choose())
    }

    /// Plays what code creates with `HapticEngine()` and the generators' `init()` on `device`
    /// instead of the default device, until set back to nil: a test runs unmodified app code on a
    /// `VirtualRig`'s device, in virtual time, and reads the truth from its chip.
    public var defaultStandIn: SharedDevice? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return standIn
        }
        set {
            lock.lock()
            standIn = newValue
            lock.unlock()
        }
    }

    /// The shared device for `choice`, opened on first use.
    /// - Throws: `serverInitFailed` (−4810) when the port cannot be opened, with the reason.
    public func device(for choice: DefaultDevice) throws -> SharedDevice {
        // Ports are keyed by path, whatever said to use them.
        let key: DefaultDevice
        switch choice {
        case .virtual: key = .virtual
        case .port(let port, _): key = .port(port, source: "")
        }
        lock.lock()
        defer { lock.unlock() }
        if let device = devices[key] { return device }
        let device: SharedDevice
        switch choice {
        case .virtual:
            let rig = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 1, crystalErrorPPM: 0)
            device = SharedDevice.of(session: rig.session, profile: rig.profile, runMode: .paced)
        case .port(let port, _):
            let transport: any ByteTransport
            do {
                transport = try openTransport(path: port, baud: DefaultDevice.baud)
            } catch {
                throw HapticError(.serverInitFailed, "cannot open \(port): \(error)")
            }
            device = SharedDevice.of(session: DeviceSession(pump: TransportPump(transport: transport), endpointName: port))
        }
        devices[key] = device
        return device
    }
}

extension HapticEngine {
    /// What the default device (``DefaultDevice/choose(environment:)``) can play, as
    /// `CHHapticEngine.capabilitiesForHardware()`: connects to it, asks, and lets it go. A device
    /// that cannot be reached supports nothing.
    public static func capabilitiesForHardware() -> HapticDeviceCapability {
        guard let engine = try? HapticEngine(), (try? engine.start()) != nil else {
            return HapticDeviceCapability(supportsHaptics: false, supportsAudio: false, device: nil)
        }
        defer { engine.stop() }
        return engine.capabilitiesForHardware()
    }
}
