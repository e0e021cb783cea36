import Foundation

// Dictionaries handed to `HapticPattern(dictionary:)` become position-less JSON trees.
extension JSONNode {
    /// Converts Foundation/Swift property-list-like values (`[String: Any]` or
    /// `[HapticPattern.Key: Any]`, `[Any]`, `String`, numbers, `Bool`, `NSNull`, and the event
    /// type / parameter ID types, written as their AHAP strings) to a tree; anything else is `invalidPatternDictionary` (−4814).
    init(anyValue value: Any, path: String) throws(PatternError) {
        switch value {
        case let b as Bool where type(of: value) == Bool.self:
            self.init(.bool(b))
        case let s as String:
            self.init(.string(s))
        case let t as HapticEvent.EventType:
            self.init(.string(t.rawValue))
        case let id as HapticEvent.ParameterID:
            self.init(.string(id.rawValue))
        case let id as HapticDynamicParameter.ID:
            self.init(.string(id.rawValue))
        case let k as HapticPattern.Key:
            self.init(.string(k.rawValue))
        case let d as Double:
            self.init(.number(d))
        case let f as Float:
            self.init(.number(JSONNumberFormat.double(fromFloat: f)))
        case let i as Int:
            self.init(.number(Double(i)))
        case let i as any BinaryInteger:
            self.init(.number(Double(i)))
        case let x as any BinaryFloatingPoint:
            self.init(.number(Double(x)))
        case let n as NSNumber:
            self.init(isBoolean(n) ? .bool(n.boolValue) : .number(n.doubleValue))
        case is NSNull:
            self.init(.null)
        case let dict as [String: Any]:
            var members: [JSONMember] = []
            for key in dict.keys.sorted() {
                let childPath = path.isEmpty ? key : path + "." + key
                members.append(JSONMember(key: key, value: try JSONNode(anyValue: dict[key]!, path: childPath)))
            }
            self.init(.object(members))
        case let dict as [HapticPattern.Key: Any]:
            var plain: [String: Any] = [:]
            for (k, v) in dict { plain[k.rawValue] = v }
            try self.init(anyValue: plain, path: path)
        case let array as [Any]:
            var elements: [JSONNode] = []
            for (i, e) in array.enumerated() {
                elements.append(try JSONNode(anyValue: e, path: "\(path)[\(i)]"))
            }
            self.init(.array(elements))
        default:
            throw PatternError(
                code: .invalidPatternDictionary, file: "<dictionary>", line: 0, column: 0, path: path,
                message: "value of type \(type(of: value)) is not JSON-like: expected a dictionary, array, string, number, Bool or NSNull")
        }
    }
}

/// Whether an `NSNumber` holds a Boolean (its Objective-C type is `char`, as for `NSNumber(value: true)`).
private func isBoolean(_ n: NSNumber) -> Bool {
    String(cString: n.objCType) == "c"
}
