import Foundation

/// The generated tables of the docs: `thrum dev table NAME` prints one, `tools/docs-tables.sh`
/// writes each into its place (between `<!-- generated: thrum dev table NAME -->` and
/// `<!-- end generated -->`), and `DocTablesTests` fails when the docs and the code disagree.
public enum DocTable: String, CaseIterable, Sendable {
    /// docs/presets.md: the DRV2605L ROM effects, one full row each.
    case presetsROM = "presets-rom"
    /// docs/presets.md: the Apple presets' name, envelope and duration cells (the rationale
    /// column is prose kept in the docs, so these rows are checked as row prefixes).
    case presetsApple = "presets-apple"
    /// docs/semantics.md §7: the compiler's felt-onset pre-shift per profile.
    case preShift = "preshift"
    /// docs/semantics.md §7: the felt-onset error on the whole virtual stack per profile.
    case feltGrid = "felt-grid"

    /// The docs file (relative to the package root) the table belongs in.
    public var docsFile: String {
        switch self {
        case .presetsROM, .presetsApple: return "docs/presets.md"
        case .preShift, .feltGrid: return "docs/semantics.md"
        }
    }

    /// Whether the table is a whole block between markers (false: rows checked one by one).
    public var isBlock: Bool { self != .presetsApple }

    /// The marker line before the block.
    public var startMarker: String { "<!-- generated: thrum dev table \(rawValue) -->" }
    /// The marker line after every block.
    public static let endMarker = "<!-- end generated -->"

    /// The table's markdown lines.
    public func lines() throws -> [String] {
        switch self {
        case .presetsROM: return PresetDocTables.romTable()
        case .presetsApple: return PresetDocTables.appleRows()
        case .preShift: return PreShiftTable.lines()
        case .feltGrid: return try FeltOnsetGridTable.lines()
        }
    }

    /// The block between the markers of `docs` (the docs file's text), nil when the markers are
    /// missing.
    public func block(in docs: String) -> [String]? {
        let all = docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = all.firstIndex(of: startMarker),
            let end = all[(start + 1)...].firstIndex(of: Self.endMarker)
        else { return nil }
        return Array(all[(start + 1)..<end])
    }

    /// `docs` with the block between this table's markers replaced by `lines`; nil when the
    /// markers are missing.
    public func replacingBlock(in docs: String, with lines: [String]) -> String? {
        var all = docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = all.firstIndex(of: startMarker),
            let end = all[(start + 1)...].firstIndex(of: Self.endMarker)
        else { return nil }
        all.replaceSubrange((start + 1)..<end, with: lines)
        return all.joined(separator: "\n")
    }
}

/// Numbers as the docs write them.
enum DocNumber {
    /// `0.1` style, at most three decimals, no trailing zeros.
    static func short(_ x: Double) -> String {
        var s = fixed(x, 3)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// `x` with `decimals` decimals.
    static func fixed(_ x: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", x) }

    /// One decimal with a typographic sign: `−0.7`, `+0.9`, `+0.0`.
    static func signed(_ x: Double) -> String {
        let text = fixed(abs(x), 1)
        return (x < 0 && text != "0.0" ? "−" : "+") + text
    }
}
