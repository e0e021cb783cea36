import Foundation

/// One finding of `thrum doctor`: what was checked, whether it passed, and one line of fix.
struct DoctorCheck {
    enum Status: String {
        case pass
        case fail
        /// Not checked: it does not apply, or an earlier failure makes it moot.
        case skipped
    }

    /// Stable identifier for `--json` (`port.opens`).
    var id: String
    /// What a person calls the check.
    var title: String
    var status: Status
    /// What was found, in words.
    var detail: String
    /// What to do: for a failure the fix; for a pass, an optional hint.
    var fix: String?

    static func pass(_ id: String, _ title: String, _ detail: String, hint: String? = nil) -> DoctorCheck {
        DoctorCheck(id: id, title: title, status: .pass, detail: detail, fix: hint)
    }
    static func fail(_ id: String, _ title: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(id: id, title: title, status: .fail, detail: detail, fix: fix)
    }
    static func skipped(_ id: String, _ title: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(id: id, title: title, status: .skipped, detail: detail, fix: nil)
    }

    /// Two columns and the fix indented below: `fail     port opens        …` / `         fix: …`.
    var text: String {
        let head =
            status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
            + title.padding(toLength: 18, withPad: " ", startingAt: 0) + DoctorCheck.plain(detail)
        guard let fix else { return head }
        return head + "\n" + String(repeating: " ", count: 9) + (status == .fail ? "fix: " : "hint: ") + DoctorCheck.plain(fix)
    }

    var json: [String: Any] {
        ["id": id, "title": title, "status": status.rawValue, "detail": DoctorCheck.plain(detail), "fix": JSONOutput.orNull(fix.map(DoctorCheck.plain))]
    }

    /// `text` without the `(errno N)` the transports append to `strerror` texts: a person reads the words.
    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: #"\s*\(errno -?\d+\)"#, with: "", options: .regularExpression)
    }
}

/// The closing line: how many checks passed, failed and were skipped.
struct DoctorSummary {
    var checks: [DoctorCheck]
    var failed: Int { checks.filter { $0.status == .fail }.count }
    var passed: Int { checks.filter { $0.status == .pass }.count }
    var skipped: Int { checks.filter { $0.status == .skipped }.count }
    var exitCode: Int32 { failed == 0 ? 0 : 1 }

    var text: String {
        let checked = passed + failed
        return (failed == 0 ? "all \(checked) checks passed" : "\(failed) of \(checked) checks failed")
            + (skipped > 0 ? ", \(skipped) skipped" : "")
    }
}
