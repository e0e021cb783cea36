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
    /// `key`: written here, byte for byte as JSONSerialization writes an array of numbers (its
    /// indentation, a whole number without `.0`), but without boxing and casting each element,
    /// which costs about 1 s per million (`render --json`'s `event_times_s` of 10⁶ events).
    static func print(_ object: [String: Any], numbers: [Double], at key: String) {
        guard !numbers.isEmpty else {
            var whole = object
            whole[key] = numbers
            return print(whole)
        }
        let placeholder = "thrum-numbers-\(UUID().uuidString)"
        var outline = object
        outline[key] = placeholder
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: outline, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]),
            let text = String(data: data, encoding: .utf8),
            let slot = text.range(of: "\"\(placeholder)\"")
        else {
            printError("internal error: could not encode JSON output")
            return
        }
        // A top-level member's elements sit two levels deep (4 spaces), its closing bracket one.
        var array = "[\n"
        array.reserveCapacity(numbers.count * 24 + 8)
        for (i, value) in numbers.enumerated() {
            if i > 0 { array += ",\n" }
            array += "    "
            array += number(value)
        }
        array += "\n  ]"
        var out = String(text[..<slot.lowerBound])
        out += array
        out += text[slot.upperBound...]
        Swift.print(out)
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
