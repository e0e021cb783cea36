import Foundation

extension HapticPattern {
    /// Indentation of written AHAP.
    public enum AHAPIndent: Int, Sendable {
        case twoSpaces = 2
        case fourSpaces = 4
    }

    /// The pattern as AHAP JSON (UTF-8, pretty-printed, final newline). Numbers are written
    /// without any locale, in the shortest form that reads back exactly; `Metadata` is written
    /// as stored. Reading the result gives an equal pattern; writing that again gives the same bytes.
    public func ahapData(indent: AHAPIndent = .twoSpaces) -> [UInt8] {
        JSONWriter(indentWidth: indent.rawValue).bytes(AHAPEncoder.encode(self))
    }

    /// The pattern as AHAP text (see `ahapData(indent:)`).
    public func ahapString(indent: AHAPIndent = .twoSpaces) -> String {
        String(decoding: ahapData(indent: indent), as: UTF8.self)
    }

    /// The AHAP tree as a `JSONValue` (keys in written order).
    public func ahapJSONValue() -> JSONValue {
        AHAPEncoder.encode(self)
    }

    /// Whether the pattern can be written as AHAP, as `CHHapticPattern.exportDictionary()` checks:
    /// an event playing a registered audio resource (``HapticEvent/audioResourceID``) has no file
    /// path AHAP could carry. The writers above leave such an event's sound out; call this first.
    /// - Throws: ``PatternError`` `operationNotPermitted` (−4806) naming the first such event.
    public func checkExportable() throws(PatternError) {
        guard let k = events.firstIndex(where: { $0.audioResourceID != nil }) else { return }
        throw PatternError(
            code: .operationNotPermitted, file: "<api>", line: 0, column: 0, path: "events[\(k)].audioResourceID",
            message: "event \(k) plays registered audio resource \(events[k].audioResourceID!); AHAP can only name a file (EventWaveformPath)")
    }

    /// The AHAP-shaped dictionary, like `CHHapticPattern.exportDictionary()`: numbers as
    /// `Double`, booleans as `Bool`, JSON null as `NSNull`. `HapticPattern(dictionary:)` reads it back.
    public func exportDictionary() -> [String: Any] {
        (AHAPEncoder.encode(self).anyValue as? [String: Any]) ?? [:]
    }
}

extension JSONValue {
    /// The value as Foundation-style `Any`: `[String: Any]`, `[Any]`, `String`, `Double`, `Bool`, `NSNull`.
    public var anyValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .number(let d): return d
        case .string(let s): return s
        case .array(let a): return a.map(\.anyValue)
        case .object(let m):
            var d: [String: Any] = [:]
            for (k, v) in m { d[k] = v.anyValue }
            return d
        }
    }
}
