import Foundation
import ThrumEngine

/// A run the user's signal (Ctrl-C, SIGTERM, SIGQUIT) stopped, the same on every play path
/// (`play FILE`, `play FILE --port A --port B`, `play id:N`): when, in pattern seconds, so that
/// the events due from then on read `stopped` (``PlaybackReport/markStopped(at:)``), not
/// `not_reported` as if the link or the device had lost them, and the lines that say so.
struct UserStop {
    /// Pattern seconds of the stop (`-infinity`: before the run started).
    let at: Double
    /// The signal that stopped it.
    let signal: Int32

    /// The stop of a run whose pattern time zero is host time `start`, now at host time `now`,
    /// when a signal has arrived (nil otherwise); noted in `settings` (`interrupted_by_signal`).
    static func noted(now: Double, start: Double, settings: inout [PlayOutput.Settings]) -> UserStop? {
        guard let signal = Interrupt.signalNumber else { return nil }
        for k in settings.indices { settings[k].interruptedBy = signal }
        return UserStop(at: now - start, signal: signal)
    }

    /// ``noted(now:start:settings:)`` for one device's settings.
    static func noted(now: Double, start: Double, settings: inout PlayOutput.Settings) -> UserStop? {
        var all = [settings]
        defer { settings = all[0] }
        return noted(now: now, start: start, settings: &all)
    }

    /// Marks `stopped` the events of `report` due from the stop on.
    func mark(_ report: inout PlaybackReport) { report.markStopped(at: at) }

    /// The one line that says which events of `report` the user's signal stopped (nil when none):
    /// `2 events from 0.900 s on: stopped: the run was stopped (SIGINT) before them (not played,
    /// as asked)`.
    static func line(report: PlaybackReport, settings: PlayOutput.Settings) -> String? {
        let stopped = report.events.filter { $0.type.isHaptic && $0.status == .stopped }
        guard let first = stopped.first else { return nil }
        let name = settings.interruptedBy.map { " (\(Interrupt.name(of: $0)))" } ?? ""
        return "\(counted(stopped.count, "event")) from \(String(format: "%.3f s", first.requestedTime)) on: stopped: "
            + "the run was stopped\(name) before \(stopped.count == 1 ? "it" : "them") (not played, as asked)"
    }
}
