import Foundation
import ThrumPattern

/// Edits an AHAP file's text in place: a changed value replaces only its own characters, an
/// added member or event is inserted beside its neighbours in their indentation, a deleted event
/// takes its element and one comma with it. Everything the user did not touch — other keys,
/// their order, number spellings, whitespace, comments-like metadata — stays byte for byte.
public struct AHAPTextEdit: Sendable {
    /// One change to one event (index among the file's `Event` elements, in document order).
    public struct Change: Sendable, Equatable {
        public var event: Int
        public var time: Double?
        public var duration: Double?
        public var intensity: Double?
        public var sharpness: Double?

        /// Creates a change; nil fields stay as they are.
        public init(event: Int, time: Double? = nil, duration: Double? = nil, intensity: Double? = nil, sharpness: Double? = nil) {
            self.event = event
            self.time = time
            self.duration = duration
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    /// A change to one control point of a parameter curve (`curve`: index among the file's
    /// `ParameterCurve` elements in document order; `point`: index in its control points; `time`
    /// relative to the curve's start, as the file holds it).
    public struct PointChange: Sendable, Equatable {
        public var curve: Int
        public var point: Int
        public var time: Double?
        public var value: Double?

        /// Creates a change; nil fields stay as they are.
        public init(curve: Int, point: Int, time: Double? = nil, value: Double? = nil) {
            self.curve = curve
            self.point = point
            self.time = time
            self.value = value
        }
    }

    /// A new event to append.
    public struct NewEvent: Sendable, Equatable {
        public var type: String
        public var time: Double
        public var duration: Double?
        public var intensity: Double
        public var sharpness: Double

        /// Creates a new event (`type` is an AHAP EventType: HapticTransient or HapticContinuous).
        public init(type: String, time: Double, duration: Double? = nil, intensity: Double, sharpness: Double) {
            self.type = type
            self.time = time
            self.duration = duration
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    /// Why an edit could not be made.
    public struct Failure: Error, LocalizedError, CustomStringConvertible, Equatable {
        public var message: String
        public var description: String { message }
        public var errorDescription: String? { message }
    }

    private let bytes: [UInt8]
    private let root: JSONNode
    private let lineStarts: [Int]

    /// Reads `text` (it must parse as JSON; lenient trailing commas allowed).
    public init(text: Data) throws(Failure) {
        bytes = Array(text)
        do {
            root = try JSONParser(options: .lenient).parse(bytes)
        } catch {
            throw Failure(message: "the file is not JSON (\(error)): fix it before editing here")
        }
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
        lineStarts = starts
    }

    /// The number of `Event` elements.
    public var eventCount: Int { eventNodes.count }

    /// The index of the event a diagnostic's path (`Pattern[3].Event.Time`) names, nil when it
    /// names no event.
    public func eventIndex(atPath path: String) -> Int? {
        guard path.hasPrefix("Pattern["), let close = path.firstIndex(of: "]"),
            let element = Int(path[path.index(path.startIndex, offsetBy: 8)..<close])
        else { return nil }
        let items = root["Pattern"]?.elements ?? []
        guard items.indices.contains(element), items[element]["Event"] != nil else { return nil }
        return items[..<element].filter { $0["Event"] != nil }.count
    }

    /// The text with `changes`, `deletions` (event indices) and `additions` applied.
    public func applying(
        _ changes: [Change], deleting deletions: [Int] = [], adding additions: [NewEvent] = [], points: [PointChange] = []
    ) throws(Failure) -> Data {
        let events = eventNodes
        var patches: [(range: Range<Int>, text: String)] = []
        let curves = (root["Pattern"]?.elements ?? []).compactMap { $0["ParameterCurve"] }
        for change in points {
            guard curves.indices.contains(change.curve),
                let list = curves[change.curve]["ParameterCurveControlPoints"]?.elements, list.indices.contains(change.point)
            else { throw Failure(message: "no control point \(change.point) of curve \(change.curve)") }
            let point = list[change.point]
            for (key, value) in [("Time", change.time), ("ParameterValue", change.value)] {
                guard let value, let node = point[key] else { continue }
                if node.numberValue != value { patches.append((try numberRange(node), Self.format(value))) }
            }
        }
        for change in changes {
            guard events.indices.contains(change.event) else { throw Failure(message: "no event \(change.event) (the file has \(events.count))") }
            guard !deletions.contains(change.event) else { continue }
            let event = events[change.event].event
            if let t = change.time {
                guard let node = event["Time"] ?? event["EventTime"] else { throw Failure(message: "event \(change.event) has no Time") }
                if node.numberValue != t { patches.append((try numberRange(node), Self.format(t))) }
            }
            if let d = change.duration {
                if let node = event["EventDuration"] {
                    if node.numberValue != d { patches.append((try numberRange(node), Self.format(d))) }
                } else {
                    patches.append(try insertMember(in: event, text: "\"EventDuration\": \(Self.format(d))"))
                }
            }
            for (id, value) in [("HapticIntensity", change.intensity), ("HapticSharpness", change.sharpness)] {
                guard let value else { continue }
                patches.append(try parameterPatch(event: event, id: id, value: value, index: change.event))
            }
        }
        for k in Set(deletions) {
            guard events.indices.contains(k) else { throw Failure(message: "no event \(k) to delete (the file has \(events.count))") }
            patches.append((try elementRemoval(events[k].element), ""))
        }
        if !additions.isEmpty { patches.append(try appendElements(additions)) }
        // Insertions at one place (two members into one empty object or list) become one.
        var merged: [(range: Range<Int>, text: String)] = []
        for p in patches {
            if p.range.isEmpty, let k = merged.firstIndex(where: { $0.range == p.range }) {
                let a = merged[k].text, b = p.text
                merged[k].text = a.hasPrefix(", ") ? a + b : " " + a.trimmingCharacters(in: .whitespaces) + ", "
                    + b.trimmingCharacters(in: .whitespaces) + " "
            } else {
                merged.append(p)
            }
        }
        patches = merged
        // Apply from the end so earlier offsets stay valid; overlapping patches are a bug here.
        patches.sort { $0.range.lowerBound > $1.range.lowerBound }
        var out = bytes
        var floor = Int.max
        for p in patches {
            guard p.range.upperBound <= floor else { throw Failure(message: "two changes touch the same text") }
            out.replaceSubrange(p.range, with: Array(p.text.utf8))
            floor = p.range.lowerBound
        }
        return Data(out)
    }

    /// A number as the studio writes it: at most 6 decimals, the shortest text that reads back.
    public static func format(_ value: Double) -> String {
        let rounded = (value * 1e6).rounded() / 1e6
        return JSONNumberFormat.text(rounded == 0 ? 0 : rounded)
    }

    // MARK: Locating

    private var eventNodes: [(element: JSONNode, event: JSONNode)] {
        (root["Pattern"]?.elements ?? []).compactMap { item in
            // The decoder takes the last `Event` member of an element, as JSONNode's lookup does.
            item["Event"].map { (item, $0) }
        }
    }

    /// The byte offset of a parsed value's first character.
    private func offset(of node: JSONNode) throws(Failure) -> Int {
        let line = node.position.line, column = node.position.column
        guard line >= 1, line <= lineStarts.count else { throw Failure(message: "no position for a value") }
        var i = lineStarts[line - 1]
        var scalars = 1
        while scalars < column && i < bytes.count {
            i += 1
            while i < bytes.count && bytes[i] & 0xC0 == 0x80 { i += 1 }
            scalars += 1
        }
        return i
    }

    /// Where the value starting at `start` ends (one past its last byte).
    private func valueEnd(from start: Int) -> Int {
        var i = start
        guard i < bytes.count else { return i }
        switch bytes[i] {
        case UInt8(ascii: "\""):
            i += 1
            while i < bytes.count && bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            return min(i + 1, bytes.count)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    i = valueEnd(from: i) - 1
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return i
        default:
            let token = Set("+-0123456789.eEtruefalsn".utf8)
            while i < bytes.count && token.contains(bytes[i]) { i += 1 }
            return i
        }
    }

    private func numberRange(_ node: JSONNode) throws(Failure) -> Range<Int> {
        guard node.numberValue != nil else { throw Failure(message: "expected a number at \(node.position)") }
        let start = try offset(of: node)
        return start..<valueEnd(from: start)
    }

    private func parameterPatch(event: JSONNode, id: String, value: Double, index: Int) throws(Failure) -> (range: Range<Int>, text: String) {
        let entry = "{ \"ParameterID\": \"\(id)\", \"ParameterValue\": \(Self.format(value)) }"
        guard let parameters = event["EventParameters"] else {
            return try insertMember(in: event, text: "\"EventParameters\": [ \(entry) ]")
        }
        guard let list = parameters.elements else { throw Failure(message: "event \(index): EventParameters is not an array") }
        if let found = list.last(where: { $0["ParameterID"]?.stringValue == id }), let v = found["ParameterValue"] {
            let range = try numberRange(v)
            return v.numberValue == value ? (range, String(decoding: bytes[range], as: UTF8.self)) : (range, Self.format(value))
        }
        if let last = list.last {
            let end = valueEnd(from: try offset(of: last))
            return (end..<end, ", " + entry)
        }
        let open = try offset(of: parameters)
        return (open + 1..<open + 1, " " + entry + " ")
    }

    /// Inserts `"Key": value` after the last member of `object` (or into an empty one).
    private func insertMember(in object: JSONNode, text: String) throws(Failure) -> (range: Range<Int>, text: String) {
        if let last = object.members?.last {
            let end = valueEnd(from: try offset(of: last.value))
            return (end..<end, ", " + text)
        }
        let open = try offset(of: object)
        return (open + 1..<open + 1, " " + text + " ")
    }

    /// The bytes to remove with a pattern element: the element and the comma after it (or the one
    /// before it, for the last element), with the whitespace between.
    private func elementRemoval(_ element: JSONNode) throws(Failure) -> Range<Int> {
        let start = try offset(of: element)
        let end = valueEnd(from: start)
        var after = end
        while after < bytes.count && Self.isSpace(bytes[after]) { after += 1 }
        if after < bytes.count && bytes[after] == UInt8(ascii: ",") {
            after += 1
            while after < bytes.count && Self.isSpace(bytes[after]) { after += 1 }
            return start..<after
        }
        var before = start
        while before > 0 && Self.isSpace(bytes[before - 1]) { before -= 1 }
        if before > 0 && bytes[before - 1] == UInt8(ascii: ",") { return (before - 1)..<end }
        return start..<end
    }

    private func appendElements(_ additions: [NewEvent]) throws(Failure) -> (range: Range<Int>, text: String) {
        guard let pattern = root["Pattern"], let items = pattern.elements else { throw Failure(message: "the file has no Pattern array") }
        let texts = additions.map { e in
            var fields = "\"Time\": \(Self.format(e.time)), \"EventType\": \"\(e.type)\""
            if let d = e.duration { fields += ", \"EventDuration\": \(Self.format(d))" }
            fields +=
                ", \"EventParameters\": [ { \"ParameterID\": \"HapticIntensity\", \"ParameterValue\": \(Self.format(e.intensity)) }, "
                + "{ \"ParameterID\": \"HapticSharpness\", \"ParameterValue\": \(Self.format(e.sharpness)) } ]"
            return "{ \"Event\": { \(fields) } }"
        }
        guard let last = items.last else {
            let open = try offset(of: pattern)
            return (open + 1..<open + 1, " " + texts.joined(separator: ", ") + " ")
        }
        let start = try offset(of: last)
        let lineStart = lineStarts.last(where: { $0 <= start }) ?? 0
        let indent = String(decoding: bytes[lineStart..<start].prefix(while: { Self.isSpace($0) }), as: UTF8.self)
        let separator = lineStart == start - indent.utf8.count && lineStart > 0 ? ",\n" + indent : ", "
        let end = valueEnd(from: start)
        return (end..<end, texts.map { separator + $0 }.joined())
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}
