import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumWire

/// Connecting to a device the way `play`, `calibrate` and `info` do: identify, configure the
/// driver for the profile, and decide about calibration from what the device says
/// (CAPABILITIES `calibrated`) and what this user's calibration store holds for it.
struct DeviceConnection {
    let target: PlaybackTarget
    /// The device (the engine's public way onto it before an engine plays).
    let device: ThrumDevice
    let profile: ActuatorProfile
    let registers: DriverRegisters
    /// The store, nil for the in-process virtual device (a new device every run) or without a
    /// config directory.
    let store: CalibrationStore?
    /// The device's file name in the store.
    let key: String?

    /// How calibration was settled at connect.
    enum CalibrationSource: String {
        /// The device still holds a stored calibration made for these inputs: not redone.
        case stored
        /// The device had lost it (a reset): the kept one was written back (RESTORE_CALIBRATION),
        /// not redone.
        case restored
        /// It ran this connection.
        case ran
        /// None: --no-calibrate, or the device cannot calibrate.
        case none
    }

    /// Opens the session and configures the driver (CONFIGURE_SAMPLE_TIME + CONFIGURE_DRIVER).
    /// - Throws: `CommandFailure` with the link's message when no device answers.
    /// `configure` false only identifies (for `info`, which changes nothing on the device).
    static func open(target: PlaybackTarget, profile: ActuatorProfile, configure: Bool = true) throws
        -> DeviceConnection
    {
        let device = ThrumDevice(pump: target.pump, endpointName: target.name)
        let identity: DeviceIdentity
        do {
            identity = try device.open()
        } catch {
            target.close()
            throw CommandFailure(message: error.description)
        }
        return attach(target: target, device: device, identity: identity, profile: profile, configure: configure)
    }

    /// The connection over a device already opened (`identity` is what it answered); with
    /// `configure`, sends the driver configuration for `profile`.
    static func attach(
        target: PlaybackTarget, device: ThrumDevice, identity: DeviceIdentity, profile: ActuatorProfile, configure: Bool
    ) -> DeviceConnection {
        let registers = DriverRegisters.derive(from: profile)
        if configure { device.configureDriver(registers) }
        let store = target.isVirtual ? nil : CalibrationStore.user()
        let connection = DeviceConnection(
            target: target, device: device, profile: profile, registers: registers, store: store,
            key: target.isVirtual
                ? nil
                : CalibrationStore.key(
                    deviceID: identity.deviceId, port: target.name,
                    usbSerial: identity.deviceId == 0 ? CalibrationStore.usbSerial(ofPort: target.name) : nil))
        connection.warnAboutAnUnreadableStore()
        // A round trip the device's queue does not cover in the default render chunk: said at
        // connect; later growth only while an engine plays (``makeEngine(configuration:)``).
        for warning in device.roundTripWarnings where warning.atConnect { printError("warning: \(warning.message)") }
        return connection
    }

    /// Says once, at connect, that the kept calibration cannot be used (one line: the file,
    /// line:column, field, what was expected and found); it is then treated as none.
    private func warnAboutAnUnreadableStore() {
        guard let store, let key else { return }
        do {
            _ = try store.load(key: key)
        } catch {
            printError("ignoring the kept calibration: \(error.description); treated as none (`thrum calibrate` writes it anew)")
        }
    }

    /// What the device said about itself and last reported (identity, calibration, power, faults).
    var status: DeviceStatus { device.status }

    /// An engine on this connection, run by the command's own loop (``SharedDevice/RunMode/manual``).
    /// From here on, a round trip that grows past what dense drive needs is said as the link finds
    /// it (first crossing, then growth: ``RoundTripWarning``); it matters only to drive, so commands
    /// that play nothing (`flash`, `info`: their own writes lengthen the round trip) do not say it.
    func makeEngine(configuration: HapticEngine.Configuration) -> HapticEngine {
        for warning in device.roundTripWarnings where !warning.atConnect { printError("warning: \(warning.message)") }
        device.onRoundTripWarning = { printError("warning: \($0.message)") }
        return HapticEngine(device: device, profile: profile, configuration: configuration, runMode: .manual)
    }

    /// The stored calibration of this device, if any (nil for a file that cannot be used: said
    /// at connect).
    var stored: StoredCalibration? {
        guard let store, let key else { return nil }
        return try? store.load(key: key)
    }

    /// Whether the device reports that its driver holds a passed calibration since reset
    /// (measured or restored).
    var deviceSaysCalibrated: Bool { status.calibratedSinceReset }

    /// What the device reports its driver holds since reset (CAPABILITIES `calibrated`): `none`,
    /// `measured`, `restored`, or `code-N` for a value this host does not know.
    var driverCalibration: String {
        guard let caps = status.programCapabilities else { return "none" }
        switch caps.calibration {
        case .none?: return "none"
        case .measured?: return "measured"
        case .restored?: return "restored"
        case nil: return "code-\(caps.calibrationCode)"
        }
    }

    /// The stored calibration when it is still valid: the device says its driver is calibrated
    /// since reset, and the stored one was made for the same calibration inputs.
    var stillValid: StoredCalibration? {
        guard deviceSaysCalibrated, let record = stored, record.matches(registers) else { return nil }
        return record
    }

    /// The kept calibration when it may be restored into this device's driver
    /// (``StoredCalibration/restorable(profile:registers:)``) and the device knows
    /// RESTORE_CALIBRATION; nil otherwise.
    var restorable: StoredCalibration? {
        guard status.canRestoreCalibration, let record = stored,
            record.restorable(profile: profile, registers: registers)
        else { return nil }
        return record
    }

    /// When the driver holds no calibration since reset (a power cycle lost it) and this user's
    /// store holds a restorable one for the device, writes it back (RESTORE_CALIBRATION) instead
    /// of calibrating again. Returns the record when the device then reports `restored`.
    func restoreIfLost() -> StoredCalibration? {
        guard !deviceSaysCalibrated, let record = restorable else { return nil }
        do {
            guard try device.restoreCalibration(record.words) == .restored else {
                printError("the device did not take the kept calibration back; calibrating instead")
                return nil
            }
            return record
        } catch {
            printError("restoring the kept calibration failed (\(error)); calibrating instead")
            return nil
        }
    }

    /// Keeps a passed (and, for the profile, plausible) result; forgets the device's record otherwise
    /// (a failed run leaves the driver uncalibrated).
    func remember(_ report: CalibrationReport) -> URL? {
        guard let store, let key, let identity = status.identity else { return nil }
        guard CalibrationDiagnosis(report: report, profile: profile).passed else {
            store.remove(key: key)
            return nil
        }
        let record = StoredCalibration(
            identity: identity, port: target.name, profile: profile, registers: registers, report: report, at: Date())
        do {
            try store.save(record, key: key)
            return store.file(for: key)
        } catch {
            printError("\(error)")
            return nil
        }
    }
}

extension CommandFailure {
    init(engine error: EngineError) { self.init(message: error.description) }
}
