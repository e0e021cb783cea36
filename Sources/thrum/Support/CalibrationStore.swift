import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumWire

/// One device's last passed auto-calibration, as kept in the user's config directory.
struct StoredCalibration: Codable, Equatable {
    /// The device's id as IDENTIFY_REPLY gave it (`0x…`).
    var deviceID: String
    /// The port it was reached on when calibrated.
    var port: String
    var firmware: String
    /// The actuator profile it was calibrated for.
    var profile: String
    /// The calibration inputs (CONFIGURE_DRIVER and SAMPLE_TIME) it ran with.
    var ratedVoltage: Int
    var odClamp: Int
    var driveTime: Int
    var sampleTime: Int
    /// The driver's results.
    var aCalComp: Int
    var aCalBemf: Int
    var bemfGain: Int
    var lraPeriod: Int
    var resonanceHz: Double?
    /// When (UTC, ISO 8601).
    var calibratedAt: String

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", port, firmware, profile
        case ratedVoltage = "rated_voltage", odClamp = "od_clamp", driveTime = "drive_time", sampleTime = "sample_time"
        case aCalComp = "a_cal_comp", aCalBemf = "a_cal_bemf", bemfGain = "bemf_gain", lraPeriod = "lra_period"
        case resonanceHz = "resonance_hz", calibratedAt = "calibrated_at"
    }

    init(
        identity: DeviceIdentity, port: String, profile: ActuatorProfile, registers: DriverRegisters,
        report: CalibrationReport, at date: Date
    ) {
        deviceID = DeviceDescription.hex(identity.deviceId)
        self.port = port
        firmware = DeviceDescription.firmware(identity)
        self.profile = profile.id
        ratedVoltage = Int(registers.ratedVoltage)
        odClamp = Int(registers.overdriveClamp)
        driveTime = Int(registers.driveTime)
        sampleTime = Int(registers.sampleTime)
        aCalComp = Int(report.aCalComp)
        aCalBemf = Int(report.aCalBemf)
        bemfGain = Int(report.bemfGain)
        lraPeriod = Int(report.lraPeriod)
        resonanceHz = report.resonanceHz.map { ($0 * 10).rounded() / 10 }
        calibratedAt = ISO8601DateFormatter().string(from: date)
    }

    /// Whether it was made with these calibration inputs (a calibration is only valid for the
    /// rated voltage, clamp, drive time and sample time it ran with).
    func matches(_ registers: DriverRegisters) -> Bool {
        ratedVoltage == Int(registers.ratedVoltage) && odClamp == Int(registers.overdriveClamp)
            && driveTime == Int(registers.driveTime) && sampleTime == Int(registers.sampleTime)
    }

    /// Whether it may be restored into a driver that lost it (RESTORE_CALIBRATION): made for this
    /// profile (the actuator the user says is mounted) with the same calibration inputs, and words
    /// that fit their registers (A_CAL_COMP and A_CAL_BEMF a byte, BEMF_GAIN two bits). It passed:
    /// only a passed, plausible result is ever kept.
    func restorable(profile: ActuatorProfile, registers: DriverRegisters) -> Bool {
        self.profile == profile.id && matches(registers) && (0...255).contains(aCalComp)
            && (0...255).contains(aCalBemf) && (0...3).contains(bemfGain)
    }

    /// The words RESTORE_CALIBRATION writes back.
    var words: CalibrationWords {
        CalibrationWords(
            aCalComp: UInt8(clamping: aCalComp), aCalBemf: UInt8(clamping: aCalBemf),
            bemfGain: UInt8(clamping: bemfGain))
    }
}

/// Calibration results per device in `$XDG_CONFIG_HOME/thrum/calibrations/` (fallback
/// `~/.config/thrum/calibrations/`), one JSON file per device: `id-0x74870001.json` by the id
/// the device reports; for a board without one (id 0), `usb-…` by its USB serial number or
/// `port-…` by its port.
struct CalibrationStore {
    let directory: URL

    /// The store of this user; nil when neither XDG_CONFIG_HOME (absolute) nor HOME is set.
    static func user(environment: [String: String] = ProcessInfo.processInfo.environment) -> CalibrationStore? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return CalibrationStore(directory: URL(fileURLWithPath: xdg).appendingPathComponent("thrum/calibrations"))
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return CalibrationStore(
                directory: URL(fileURLWithPath: home).appendingPathComponent(".config/thrum/calibrations"))
        }
        return nil
    }

    /// The file name (without `.json`) for a device: by the id it reports; for a board without
    /// one (id 0), by its USB serial number when the port is a USB serial port that has one,
    /// else by the port's name.
    static func key(deviceID: UInt32, port: String, usbSerial: String? = nil) -> String {
        if deviceID != 0 { return "id-" + DeviceDescription.hex(deviceID) }
        if let usbSerial, !usbSerial.isEmpty { return "usb-" + sanitized(usbSerial) }
        return "port-" + sanitized(port)
    }

    /// The USB serial number of a real serial port (libserialport's enumeration), nil otherwise.
    static func usbSerial(ofPort port: String) -> String? {
        guard port.hasPrefix("/"), let ports = try? SerialPortEnumeration.listPorts() else { return nil }
        let resolved = URL(fileURLWithPath: port).resolvingSymlinksInPath().path
        return ports.first { $0.name == port || $0.name == resolved }?.serialNumber
    }

    private static func sanitized(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber ? $0 : "-" }).trimmingCharacters(
            in: CharacterSet(charactersIn: "-"))
    }

    func file(for key: String) -> URL { directory.appendingPathComponent("\(key).json") }

    /// The stored calibration, nil when there is none.
    /// - Throws: ``StoredCalibrationError`` for a file that cannot be read or is not a kept
    ///   calibration (its path, line:column and field, what was expected and found).
    func load(key: String) throws(StoredCalibrationError) -> StoredCalibration? {
        let url = file(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: url))
        } catch {
            throw StoredCalibrationError(
                file: url.path, position: .unknown, field: "", message: "cannot be read: \(OutputFile.reason(for: error))")
        }
        return try StoredCalibration(bytes: bytes, file: url.path)
    }

    func save(_ record: StoredCalibration, key: String) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(record).write(to: file(for: key), options: .atomic)
        } catch {
            throw CommandFailure(
                message: "cannot keep the calibration in \(directory.path): \(error.localizedDescription)")
        }
    }

    func remove(key: String) {
        try? FileManager.default.removeItem(at: file(for: key))
    }
}
