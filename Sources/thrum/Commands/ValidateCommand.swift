import Foundation
import ThrumPattern

/// `thrum validate`: check AHAP files with Core Haptics' rules and report every problem with its
/// place in the file.
enum ValidateCommand: Subcommand {
    static let name = "validate"
    static let summary = "check AHAP files; errors and warnings as file:line:column diagnostics"
    static let usage = """
        Usage: thrum validate <file.ahap>... [options]

        Reads each file with Core Haptics' rules. Errors (with CHHapticError codes) and warnings
        are printed as `file:line:column: error[-4822]: message (at path)`, followed by a summary.
        Exit code 0 when every file is valid, 1 when any is not. Warnings do not fail a file.

        Options:
          --lenient   accept trailing commas (Core Haptics itself does not)
          --json      print a JSON array: one object per file with file, valid, errors, warnings
        """

    /// The outcome for one file.
    struct Outcome {
        var file: String
        var error: PatternError?
        var warnings: [PatternWarning]
        var pattern: HapticPattern?
        var valid: Bool { error == nil }
    }

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let lenient = arguments.flag("lenient")
        let asJSON = arguments.flag("json")
        let files = try arguments.positionals()
        try arguments.finish()
        guard !files.isEmpty else { throw UsageError(message: "give one or more AHAP files to validate") }

        let reader = AHAPReader(options: AHAPReader.Options(lenient: lenient))
        let outcomes = files.map { validate($0, with: reader) }
        if asJSON {
            JSONOutput.print(outcomes.map { json($0) })
        } else {
            // A name or value of more than 200 characters (a 100 kB argument) is shown by its
            // first 80 and its length, as in every other message.
            for outcome in outcomes { print(TextEscaping.shorteningLongRuns(text(outcome))) }
            print(summaryLine(outcomes))
        }
        return outcomes.allSatisfy(\.valid) ? 0 : 1
    }

    /// Reads one file; diagnostics are renamed to the path as given, so that they can be opened.
    static func validate(_ path: String, with reader: AHAPReader) -> Outcome {
        do {
            let document = try reader.read(contentsOf: path)
            let warnings = document.warnings.map { warning in
                var w = warning
                w.file = path
                return w
            }
            return Outcome(file: path, error: nil, warnings: warnings, pattern: document.pattern)
        } catch {
            var e = error
            e.file = path
            return Outcome(file: path, error: e, warnings: [], pattern: nil)
        }
    }

    /// The diagnostics of one file, or `file: ok (…)` when it has none.
    static func text(_ outcome: Outcome) -> String {
        var lines = outcome.warnings.map(\.description)
        if let error = outcome.error {
            lines.append(error.description)
        } else if let pattern = outcome.pattern {
            let haptic = pattern.events.reduce(0) { $0 + ($1.type.isHaptic ? 1 : 0) }
            let audio = pattern.events.count - haptic
            var detail = "\(haptic) haptic event\(haptic == 1 ? "" : "s")"
            if audio > 0 { detail += ", \(audio) audio" }
            detail += String(format: ", %.3f s", pattern.duration)
            if !outcome.warnings.isEmpty {
                detail += ", \(outcome.warnings.count) warning\(outcome.warnings.count == 1 ? "" : "s")"
            }
            lines.append("\(TextEscaping.escaped(outcome.file)): ok (\(detail))")
        }
        return lines.joined(separator: "\n")
    }

    /// `3 files: 2 valid, 1 invalid; 4 warnings`.
    static func summaryLine(_ outcomes: [Outcome]) -> String {
        let valid = outcomes.filter(\.valid).count
        let warnings = outcomes.reduce(0) { $0 + $1.warnings.count }
        let files = outcomes.count == 1 ? "1 file" : "\(outcomes.count) files"
        return "\(files): \(valid) valid, \(outcomes.count - valid) invalid; "
            + "\(warnings) warning\(warnings == 1 ? "" : "s")"
    }

    /// One file as JSON: `file`, `valid`, `errors` and `warnings` (each with `code`, `line`,
    /// `column`, `path`, `message`; a warning's `code` is its kind). A run of more than 200
    /// characters in the file's name or a message is shown by its first 80 and its length.
    static func json(_ outcome: Outcome) -> [String: Any] {
        var errors: [[String: Any]] = []
        if let error = outcome.error {
            errors.append([
                "code": error.code.rawValue,
                "name": error.code.name,
                "line": error.line,
                "column": error.column,
                "path": error.path,
                "message": TextEscaping.shorteningLongRuns(error.message),
            ])
        }
        return [
            "file": TextEscaping.shorteningLongRuns(outcome.file),
            "valid": outcome.valid,
            "errors": errors,
            "warnings": outcome.warnings.map(json),
        ]
    }

    /// One warning as JSON; `code` is the warning's kind (warnings have no CHHapticError code).
    static func json(_ warning: PatternWarning) -> [String: Any] {
        [
            "code": warning.kind.rawValue,
            "line": warning.line,
            "column": warning.column,
            "path": warning.path,
            "message": TextEscaping.shorteningLongRuns(warning.message),
        ]
    }
}
