import Foundation

/// The per-file facts SOURCES.md states: event counts by type and the quirks noted.
struct SourcesEntry {
    var events: [String: Int] = [:]
    var notes = ""

    /// A count from the notes such as "14 curves whose first point Time >= curve Time > 0".
    func noted(_ phrase: String) -> Int {
        guard let range = notes.range(of: phrase) else { return 0 }
        let before = notes[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
        let digits = before.reversed().prefix(while: \.isNumber)
        return Int(String(digits.reversed())) ?? 0
    }
}

enum SourcesManifest {
    /// Parses the tables of SOURCES.md: `## owner__repo` headings, then rows
    /// `| \`file\` | source | bytes | events | notes | dup |`.
    static func load(from corpus: URL) throws -> [String: SourcesEntry] {
        let text = try String(contentsOf: corpus.appendingPathComponent("SOURCES.md"), encoding: .utf8)
        var folder = ""
        var result: [String: SourcesEntry] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                folder = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 6 else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            var entry = SourcesEntry()
            for part in cells[4].split(separator: ",") {
                let pieces = part.trimmingCharacters(in: .whitespaces).split(separator: "×")
                if pieces.count == 2, let n = Int(pieces[1]) { entry.events[String(pieces[0]), default: 0] += n }
            }
            entry.notes = cells[5]
            result[folder + "/" + name] = entry
        }
        return result
    }
}
