import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumWire

/// Connecting to a device the way `play`, `calibrate` and `info` do: identify, configure the
/// driver for the profile, and decide about calibration from what the device says
/// (CAPABILITIES `calibrated`) and what this user's calibration store holds for it.
struct DeviceConnection {
    let target: PlaybackTarget
    let session: DeviceSession
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
        let session = DeviceSession(pump: target.pump, endpointName: target.name)
        let identity: DeviceIdentity
        do {
            identity = try session.open()
        } catch {
            target.close()
            throw CommandFailure(message: error.description)
        }
        let registers = DriverRegisters.derive(from: profile)
        if configure { session.configureDriver(registers) }
        let store = target.isVirtual ? nil : CalibrationStore.user()
        return DeviceConnection(
            target: target, session: session, profile: profile, registers: registers, store: store,
            key: target.isVirtual
                ? nil
                : CalibrationStore.key(
                    deviceID: identity.deviceId, port: target.name,
                    usbSerial: identity.deviceId == 0 ? CalibrationStore.usbSerial(ofPort: target.name) : nil))
    }

    /// The stored calibration of this device, if any.
    var stored: StoredCalibration? {
        guard let store, let key else { return nil }
        return store.load(key: key)
    }

    /// Whether the device reports that its driver holds a passed calibration since reset.
    var deviceSaysCalibrated: Bool { session.programCapabilities?.calibrated ?? false }

    /// The stored calibration when it is still valid: the device says its driver is calibrated
    /// since reset, and the stored one was made for the same calibration inputs.
    var stillValid: StoredCalibration? {
        guard deviceSaysCalibrated, let record = stored, record.matches(registers) else { return nil }
        return record
    }

    /// Keeps a passed (and, for the profile, plausible) result; forgets the device's record otherwise
    /// (a failed run leaves the driver uncalibrated).
    func remember(_ report: CalibrationReport) -> URL? {
        guard let store, let key, let identity = session.identity else { return nil }
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
