/// Why a library image was refused (reading it, or checking it against a device) or could not be
/// written. Every case says what was found and what was expected, with the byte offset or the
/// field where it applies.
public enum LibraryImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the header or the image size says.
    case truncated(expected: Int, got: Int)
    /// The first four bytes are not `THRL`.
    case notALibrary
    /// Written by a newer Thrum: format `found`, this code reads up to `supported`.
    case newerFormat(found: UInt8, supported: UInt8)
    /// The CRC-32 trailer does not match the bytes.
    case badCRC(stored: UInt32, computed: UInt32)
    /// A field is out of range or points outside the image.
    case malformed(field: String, offset: Int, reason: String)
    /// Compiled for another actuator profile than the device's.
    case wrongProfile(image: String, device: String)
    /// Larger than the device's library slot.
    case doesNotFit(size: Int, capacity: Int)
    /// Building: a value the format cannot hold.
    case cannotEncode(field: String, reason: String)

    public var description: String {
        switch self {
        case .truncated(let expected, let got):
            return "truncated library image: \(got) bytes, expected \(expected)"
        case .notALibrary:
            return "not a Thrum library image (it must start with the bytes 'THRL'; build one with `thrum library build`)"
        case .newerFormat(let found, let supported):
            return "library image format \(found) is newer than this Thrum reads (up to \(supported)); update Thrum"
        case .badCRC(let stored, let computed):
            return "library image CRC-32 mismatch: stored \(hex(stored)), computed \(hex(computed)) (the file is damaged)"
        case .malformed(let field, let offset, let reason):
            return "malformed library image at byte \(offset) (\(field)): \(reason)"
        case .wrongProfile(let image, let device):
            return "library compiled for actuator profile '\(image)', but the device is set up for '\(device)' (rebuild it with --actuator \(device))"
        case .doesNotFit(let size, let capacity):
            return "library image of \(size) bytes does not fit the device's library slot of \(capacity) bytes"
        case .cannotEncode(let field, let reason):
            return "cannot encode \(field): \(reason)"
        }
    }
}

func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
