import Foundation
import ThrumPattern

/// A kept calibration file that cannot be used: where (file, line:column, field) and what was
/// expected against what was found, in one line.
struct StoredCalibrationError: Error, Equatable, LocalizedError, CustomStringConvertible {
    /// The file's path.
    var file: String
    /// Where the offending value starts (line 0 when not known: a missing field, an unreadable file).
    var position: SourcePosition
    /// The field (`a_cal_comp`; empty for the document as a whole).
    var field: String
    /// What was expected and what was found.
    var message: String

    /// `file:line:column: message (at field)`.
    var description: String {
        let place = position.line > 0 ? "\(TextEscaping.escaped(file)):\(position)" : TextEscaping.escaped(file)
        return "\(place): \(message)" + (field.isEmpty ? "" : " (at \(field))")
    }

    var errorDescription: String? { description }
}

extension StoredCalibration {
    /// Reads a kept calibration (the JSON ``CalibrationStore/save(_:key:)`` writes) from its
    /// bytes; unknown keys are ignored, as the decoder the file was once read with did.
    /// - Throws: ``StoredCalibrationError`` naming the file, line:column and field of the first
    ///   value that is missing, of the wrong type, or not JSON at all.
    init(bytes: [UInt8], file: String) throws(StoredCalibrationError) {
        let root: JSONNode
        do {
            root = try JSONParser().parse(bytes)
        } catch {
            throw StoredCalibrationError(
                file: file, position: error.position, field: error.path, message: "not a kept calibration: \(error.message)")
        }
        guard root.members != nil else {
            throw StoredCalibrationError(
                file: file, position: root.position, field: "",
                message: "expected an object (a kept calibration), found \(root.valueDescription)")
        }
        func string(_ key: String) throws(StoredCalibrationError) -> String {
            guard let node = root[key] else { throw Self.missing(key, "a string", in: root, file: file) }
            guard let value = node.stringValue else {
                throw StoredCalibrationError(
                    file: file, position: node.position, field: key, message: "expected a string, found \(node.valueDescription)")
            }
            return value
        }
        func integer(_ key: String) throws(StoredCalibrationError) -> Int {
            guard let node = root[key] else { throw Self.missing(key, "an integer", in: root, file: file) }
            guard let value = node.numberValue, value == value.rounded(), abs(value) < 9e15 else {
                throw StoredCalibrationError(
                    file: file, position: node.position, field: key, message: "expected an integer, found \(node.valueDescription)")
            }
            return Int(value)
        }
        deviceID = try string(CodingKeys.deviceID.rawValue)
        port = try string(CodingKeys.port.rawValue)
        firmware = try string(CodingKeys.firmware.rawValue)
        profile = try string(CodingKeys.profile.rawValue)
        ratedVoltage = try integer(CodingKeys.ratedVoltage.rawValue)
        odClamp = try integer(CodingKeys.odClamp.rawValue)
        driveTime = try integer(CodingKeys.driveTime.rawValue)
        sampleTime = try integer(CodingKeys.sampleTime.rawValue)
        aCalComp = try integer(CodingKeys.aCalComp.rawValue)
        aCalBemf = try integer(CodingKeys.aCalBemf.rawValue)
        bemfGain = try integer(CodingKeys.bemfGain.rawValue)
        lraPeriod = try integer(CodingKeys.lraPeriod.rawValue)
        resonanceHz = nil
        if let node = root[CodingKeys.resonanceHz.rawValue], !node.isNull {
            guard let value = node.numberValue else {
                throw StoredCalibrationError(
                    file: file, position: node.position, field: CodingKeys.resonanceHz.rawValue,
                    message: "expected a number or null, found \(node.valueDescription)")
            }
            resonanceHz = value
        }
        calibratedAt = try string(CodingKeys.calibratedAt.rawValue)
    }

    private static func missing(_ key: String, _ expected: String, in root: JSONNode, file: String) -> StoredCalibrationError {
        StoredCalibrationError(
            file: file, position: root.position, field: key, message: "missing field '\(key)' (expected \(expected))")
    }
}
