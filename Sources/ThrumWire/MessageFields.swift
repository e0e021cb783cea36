/// A rule PROTOCOL.md §3 adds to a field beyond its type. A decoder refuses a value outside it
/// (``WireError/fieldOutOfRange(field:value:)``, or the ramp list's own error); an encoder writes
/// any value, and the device refuses it.
enum FieldRule {
    /// The type is the rule.
    case none
    /// A segment's duration, ``ProtocolConstants/segmentMinDurationMicroseconds`` ...
    /// ``ProtocolConstants/segmentMaxDurationMicroseconds``.
    case duration
    /// A program slot, below ``ProtocolConstants/programSlots``.
    case slot
    /// A ROM effect id, ``ProtocolConstants/romEffectMin`` ... ``ProtocolConstants/romEffectMax``.
    case romEffect
    /// A LIBRARY_READ length, 1 ... ``ProtocolConstants/libraryReadMax``.
    case readLength
    /// A shape id, below ``ProtocolConstants/streamShapes``.
    case shapeID
    /// SHAPE data: at most ``ProtocolConstants/streamShapeBytes`` bytes of a whole ramp list.
    case shapeData
    /// FOLLOW data: whole pairs, the first unflagged when the message's `event` field is not 0.
    case followData(event: UInt32)
    /// A FRAME_TIMES interval, at most ``ProtocolConstants/frameTimesMaxIntervalMilliseconds``.
    case frameTimesInterval
    /// A CLAIM's session (``HostMessage/isClaimable(_:)``).
    case session
    /// A USB frame number, at most ``ProtocolConstants/usbFrameMask``.
    case usbFrame
    /// A DEPARTURE wait, at most ``ProtocolConstants/departureMaxWait``.
    case departureWait
}

/// Walks a message's one description: its name, then its fields in wire order, each with its
/// type, its name in the text form and its rule. Every message describes itself once
/// (`visitFields(_:)` of ``HostMessage``, ``DeviceMessage`` and the library and stream enums), and
/// each job is a visitor: ``PayloadWriter`` encodes, ``PayloadReader`` decodes (and checks the
/// rules), ``FieldLength`` counts the bytes, ``FieldText`` writes the vector files' text form.
/// A visitor that reads (``reads``) changes the fields it is handed, and the message is rebuilt
/// from them; the others leave them alone, and the message is not.
protocol FieldVisitor {
    /// What visiting may throw: ``WireError`` when decoding, `Never` otherwise.
    associatedtype Failure: Error
    /// Whether visiting sets the fields (decoding).
    static var reads: Bool { get }
    /// The message's name (`SEGMENT`), before its fields.
    mutating func message(_ name: StaticString)
    /// A `u8` field.
    mutating func u8(_ value: inout UInt8, _ name: StaticString, _ rule: FieldRule) throws(Failure)
    /// A little-endian `u32` field.
    mutating func u32(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) throws(Failure)
    /// A `uv` (LEB128) field.
    mutating func uv(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) throws(Failure)
    /// A byte string: a `u8` length, then the bytes.
    mutating func bytes(_ value: inout [UInt8], _ name: StaticString, _ rule: FieldRule) throws(Failure)
}

extension FieldVisitor {
    mutating func u8(_ value: inout UInt8, _ name: StaticString) throws(Failure) { try u8(&value, name, .none) }
    mutating func u32(_ value: inout UInt32, _ name: StaticString) throws(Failure) { try u32(&value, name, .none) }
    mutating func uv(_ value: inout UInt32, _ name: StaticString) throws(Failure) { try uv(&value, name, .none) }
}

extension PayloadWriter: FieldVisitor {
    typealias Failure = Never
    static var reads: Bool { false }
    mutating func message(_ name: StaticString) {}
    mutating func u8(_ value: inout UInt8, _ name: StaticString, _ rule: FieldRule) { u8(value) }
    mutating func u32(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) { u32(value) }
    mutating func uv(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) { uv(value) }
    mutating func bytes(_ value: inout [UInt8], _ name: StaticString, _ rule: FieldRule) { byteString(value) }
}

extension PayloadReader: FieldVisitor {
    typealias Failure = WireError
    static var reads: Bool { true }
    mutating func message(_ name: StaticString) {}

    mutating func u8(_ value: inout UInt8, _ name: StaticString, _ rule: FieldRule) throws(WireError) {
        value = try u8()
        try Self.check(UInt32(value), name, rule)
    }

    mutating func u32(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) throws(WireError) {
        value = try u32()
        try Self.check(value, name, rule)
    }

    mutating func uv(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) throws(WireError) {
        value = try uv()
        try Self.check(value, name, rule)
    }

    mutating func bytes(_ value: inout [UInt8], _ name: StaticString, _ rule: FieldRule) throws(WireError) {
        value = try byteString()
        switch rule {
        case .shapeData:
            guard value.count <= ProtocolConstants.streamShapeBytes else {
                throw .fieldOutOfRange(field: "\(name)", value: UInt32(value.count))
            }
            _ = try StreamShape.decode(value)
        case .followData(let event):
            let pairs = try StreamShape.decodeFollow(value)
            guard event == 0 || !pairs[0].marked else { throw .fieldOutOfRange(field: "\(name)", value: 1) }
        default:
            break
        }
    }

    /// Refuses `value` when `rule` does.
    static func check(_ value: UInt32, _ name: StaticString, _ rule: FieldRule) throws(WireError) {
        let ok: Bool
        switch rule {
        case .none, .shapeData, .followData: return
        case .duration:
            ok = value >= ProtocolConstants.segmentMinDurationMicroseconds
                && value <= ProtocolConstants.segmentMaxDurationMicroseconds
        case .slot: ok = value < UInt32(ProtocolConstants.programSlots)
        case .romEffect: ok = value >= UInt32(ProtocolConstants.romEffectMin) && value <= UInt32(ProtocolConstants.romEffectMax)
        case .readLength: ok = value >= 1 && value <= UInt32(ProtocolConstants.libraryReadMax)
        case .shapeID: ok = value < UInt32(ProtocolConstants.streamShapes)
        case .frameTimesInterval: ok = value <= UInt32(ProtocolConstants.frameTimesMaxIntervalMilliseconds)
        case .session: ok = HostMessage.isClaimable(value)
        case .usbFrame: ok = value <= UInt32(ProtocolConstants.usbFrameMask)
        case .departureWait: ok = value <= UInt32(ProtocolConstants.departureMaxWait)
        }
        guard ok else { throw .fieldOutOfRange(field: "\(name)", value: value) }
    }
}

/// Counts the bytes the fields take on the wire.
struct FieldLength: FieldVisitor {
    typealias Failure = Never
    static var reads: Bool { false }
    var count: Int

    mutating func message(_ name: StaticString) {}
    mutating func u8(_ value: inout UInt8, _ name: StaticString, _ rule: FieldRule) { count += 1 }
    mutating func u32(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) { count += 4 }
    mutating func uv(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) { count += UVarint.encodedLength(value) }
    mutating func bytes(_ value: inout [UInt8], _ name: StaticString, _ rule: FieldRule) { count += 1 + value.count }
}

/// The vector files' text form: the name, then ` field=value` per field (byte strings in
/// lowercase hex, `.` for none).
struct FieldText: FieldVisitor {
    typealias Failure = Never
    static var reads: Bool { false }
    var text = ""

    mutating func message(_ name: StaticString) { text = Self.string(name) }
    mutating func u8(_ value: inout UInt8, _ name: StaticString, _ rule: FieldRule) { field(name, String(value)) }
    mutating func u32(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) { field(name, String(value)) }
    mutating func uv(_ value: inout UInt32, _ name: StaticString, _ rule: FieldRule) { field(name, String(value)) }
    mutating func bytes(_ value: inout [UInt8], _ name: StaticString, _ rule: FieldRule) { field(name, hexText(value)) }

    private mutating func field(_ name: StaticString, _ value: String) {
        text += " "
        text += Self.string(name)
        text += "="
        text += value
    }

    private static func string(_ name: StaticString) -> String {
        name.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}
