import Foundation

/// Writes machine-readable output: one JSON document on standard output, keys sorted so that
/// output is stable from run to run.
enum JSONOutput {
    static func print(_ object: Any) {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]),
            let text = String(data: data, encoding: .utf8)
        else {
            printError("internal error: could not encode JSON output")
            return
        }
        Swift.print(text)
    }

    /// `object` as ``print(_:)`` writes it, with `numbers` as the array under the top-level
    /// `key`, without boxing and casting each element for JSONSerialization (about 1 s per
    /// million: `render --json`'s `event_times_s` of 10⁶ events).
    ///
    /// The top level is laid out here as JSONSerialization lays it out (`"key" : value`, two
    /// spaces a level, keys in order); every other member's value is JSONSerialization's own
    /// text, indented one level; the numbers are written as it writes a `Double`.
    static func print(_ object: [String: Any], numbers: [Double], at key: String) {
        var out = "{"
        // JSONSerialization's `.sortedKeys` order.
        let names = Set(object.keys).union([key]).sorted {
            $0.compare($1, options: [.numeric, .caseInsensitive, .forcedOrdering], locale: Locale(identifier: "")) == .orderedAscending
        }
        for (i, name) in names.enumerated() {
            out += i == 0 ? "\n  " : ",\n  "
            guard let quoted = fragment(name) else { return printError("internal error: could not encode JSON output") }
            out += quoted
            out += " : "
            if name == key {
                writeNumbers(numbers, into: &out)
            } else {
                guard let value = object[name].flatMap(fragment) else {
                    return printError("internal error: could not encode JSON output")
                }
                // A member's continuation lines sit one level deeper than on their own; an empty
                // line (JSONSerialization's empty array or object) stays empty.
                out += value.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                    .map { $0.offset == 0 || $0.element.isEmpty ? String($0.element) : "  " + $0.element }
                    .joined(separator: "\n")
            }
        }
        out += "\n}"
        Swift.print(out)
    }

    /// One value (or a key, as a string) as JSONSerialization writes it in ``print(_:)``.
    private static func fragment(_ value: Any) -> String? {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// `numbers` as a top-level member's array, laid out as JSONSerialization lays it out: an
    /// empty array `[\n\n  ]`, else one element a line, four spaces in, `]` two spaces in.
    private static func writeNumbers(_ numbers: [Double], into out: inout String) {
        guard !numbers.isEmpty else {
            out += "[\n\n  ]"
            return
        }
        out.reserveCapacity(out.utf8.count + numbers.count * 24 + 8)
        out += "[\n"
        for (i, value) in numbers.enumerated() {
            if i > 0 { out += ",\n" }
            out += "    "
            out += number(value)
        }
        out += "\n  ]"
    }

    /// A number as JSONSerialization writes it: Swift's shortest round-trip text, `1` for `1.0`.
    private static func number(_ value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// One JSON object on one line (JSON lines: progress reports a reader takes line by line).
    static func printLine(_ object: Any) {
        guard
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
            let text = String(data: data, encoding: .utf8)
        else {
            printError("internal error: could not encode JSON output")
            return
        }
        Swift.print(text)
    }

    /// Seconds rounded to whole microseconds (the device clock's resolution), so that output
    /// reads `0.16` rather than `0.16000000000000003`.
    static func seconds(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 + 0.0 }

    /// `value` or JSON null.
    static func orNull(_ value: Any?) -> Any { value ?? NSNull() }
}
