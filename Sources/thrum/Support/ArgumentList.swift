import ThrumPattern

/// A usage error: the command line does not fit the command. Printed with the command's usage; exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The arguments of one subcommand, consumed as the command reads them.
///
/// The toolchain ships no argument parser we may depend on, so this is a deliberately small one:
/// `--flag`, `--option value`, `--option=value`, positionals, and `--` to end options. Every
/// argument must be consumed; leftovers are reported as unknown.
struct ArgumentList {
    private var items: [String?]

    init(_ arguments: some Sequence<String>) { items = arguments.map { $0 } }

    /// Removes `--name` and returns whether it was present.
    mutating func flag(_ name: String) -> Bool {
        var found = false
        for i in items.indices where items[i] == "--\(name)" {
            items[i] = nil
            found = true
        }
        return found
    }

    /// Removes `--name value` (or `--name=value`) and returns the value (the last one given).
    mutating func option(_ name: String) throws(UsageError) -> String? {
        try options(name).last
    }

    /// The value of `--name value` (or `--name=value`, the last one given) without removing it.
    func peekOption(_ name: String) -> String? {
        var copy = self
        return try? copy.option(name)
    }

    /// Removes every `--name value` (or `--name=value`) and returns the values in order.
    mutating func options(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        var i = items.startIndex
        while i < items.endIndex {
            guard let item = items[i] else {
                i += 1
                continue
            }
            if item == "--\(name)" {
                guard i + 1 < items.endIndex, let next = items[i + 1], !next.hasPrefix("--") else {
                    throw UsageError(message: "--\(name) needs a value")
                }
                values.append(next)
                items[i] = nil
                items[i + 1] = nil
                i += 2
                continue
            }
            if item.hasPrefix("--\(name)=") {
                values.append(String(item.dropFirst(name.count + 3)))
                items[i] = nil
            }
            i += 1
        }
        // `--port "$UNSET_VARIABLE"`: said as what it is, not "no such port: ".
        if values.contains(where: \.isEmpty) { throw UsageError(message: "--\(name) needs a value (it was given an empty one)") }
        return values
    }

    /// Whether a positional argument starts with `prefix` (nothing is removed).
    func hasPositional(prefix: String) -> Bool {
        items.contains { item in item.map { $0.hasPrefix(prefix) && !$0.hasPrefix("-") } ?? false }
    }

    /// Removes `-x value` (a one-letter spelling, e.g. `-o FILE`) and returns the value (the last one given).
    mutating func shortOption(_ letter: String) throws(UsageError) -> String? {
        var value: String?
        var i = items.startIndex
        while i < items.endIndex {
            if items[i] == "-\(letter)" {
                guard i + 1 < items.endIndex, let next = items[i + 1], !next.hasPrefix("-") else {
                    throw UsageError(message: "-\(letter) needs a value")
                }
                value = next
                items[i] = nil
                items[i + 1] = nil
                i += 2
                continue
            }
            i += 1
        }
        return value
    }

    /// Like ``option(_:)`` but converts the value, naming the option in the error.
    mutating func option<T>(_ name: String, as convert: (String) -> T?, expected: String) throws(UsageError) -> T? {
        guard let text = try option(name) else { return nil }
        guard let value = convert(text) else {
            throw UsageError(message: "--\(name) expects \(expected), got \(TextEscaping.quotedExcerpt(text))")
        }
        return value
    }

    /// Like ``option(_:)`` for a number: a finite decimal within `range` (NaN and infinities are
    /// refused like any other value outside it), naming the option in the error.
    mutating func number(_ name: String, in range: ClosedRange<Double>, expected: String) throws(UsageError) -> Double? {
        try option(name, as: { Double($0).flatMap { $0.isFinite && range.contains($0) ? $0 : nil } }, expected: expected)
    }

    /// Removes and returns the remaining positional arguments (everything not starting with `--`,
    /// and everything after a bare `--`).
    mutating func positionals() throws(UsageError) -> [String] {
        var result: [String] = []
        var afterTerminator = false
        for i in items.indices {
            guard let item = items[i] else { continue }
            if afterTerminator {
                result.append(item)
            } else if item == "--" {
                afterTerminator = true
            } else if item.hasPrefix("--") {
                continue
            } else {
                result.append(item)
            }
            items[i] = nil
        }
        return result
    }

    /// Removes and returns the first argument when it is a word (not an option): the action of a
    /// command with sub-actions (`thrum actuator compute …`).
    mutating func leadingWord() -> String? {
        guard let i = items.firstIndex(where: { $0 != nil }), let word = items[i], !word.hasPrefix("-") else { return nil }
        items[i] = nil
        return word
    }

    /// Fails when an option was given that no one consumed.
    func finish() throws(UsageError) {
        let left = items.compactMap { $0 }
        if let first = left.first {
            throw UsageError(message: "unknown option '\(first)'")
        }
    }
}
