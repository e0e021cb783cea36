import Foundation

/// `thrum play` on the virtual device, on a terminal: while a long play passes in virtual time
/// (a pattern whose events are minutes or hours apart: a day's wait takes about a quarter of a
/// minute), one line on standard error says how far it is — `virtual time 43200 s of 86400 s` —
/// redrawn at most once a second of wall time, and cleared at the end. Off when standard error
/// is not a terminal, and for plays shorter than ``shortestShown``.
final class VirtualWaitProgress {
    /// Plays shorter than this (s of pattern time) pass too fast to need a line.
    static let shortestShown = 600.0
    private let enabled: Bool
    private let start: Double, length: Double
    private var lastDrawn = Date()
    private var shown = false

    /// A line for a play from engine time `start` lasting `length` s; `enabled` when standard
    /// error is a terminal and the target is the virtual device.
    init(enabled: Bool, start: Double, length: Double) {
        self.enabled = enabled && length >= Self.shortestShown
        self.start = start
        self.length = length
    }

    /// Redraws the line when a second of wall time has passed; `now` gives the engine time (read
    /// only then).
    func update(now: () -> Double) {
        guard enabled, Date().timeIntervalSince(lastDrawn) >= 1 else { return }
        lastDrawn = Date()
        let done = min(length, max(0, now() - start))
        var stream = StandardError()
        print(String(format: "\rvirtual time %.0f s of %.0f s ", done, length), terminator: "", to: &stream)
        shown = true
    }

    /// Clears the line, if one was drawn.
    func finish() {
        guard shown else { return }
        var stream = StandardError()
        print("\r\u{1B}[K", terminator: "", to: &stream)
        shown = false
    }
}
