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
