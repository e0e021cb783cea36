import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT, SIGTERM or SIGQUIT while a command talks to a device (`play`, `calibrate`, `info`, `studio`,
/// `flash`, `monitor`): noted, so that the command stops the actuator (or lets a step it cannot
/// cut short end), releases the device and reports, instead of dying with the drive on and the
/// device's session left to its watchdog.
enum Interrupt {
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0

    static var requested: Bool { flag != 0 }
    /// The signal that arrived (SIGINT 2, SIGQUIT 3, SIGTERM 15), nil before any.
    static var signalNumber: Int32? { flag == 0 ? nil : Int32(flag) }

    /// The signal's name (`SIGINT`, `SIGTERM`, `SIGQUIT`; `signal N` for another).
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGQUIT: return "SIGQUIT"
        default: return "signal \(signal)"
        }
    }

    static func install() {
        signal(SIGINT) { Interrupt.flag = sig_atomic_t($0) }
        signal(SIGTERM) { Interrupt.flag = sig_atomic_t($0) }
        signal(SIGQUIT) { Interrupt.flag = sig_atomic_t($0) }
    }

    /// The failure of a command that a signal ended: `interrupted (signal 2)` and what became of
    /// the device (`detail`), exit status 128 + the signal (130, 143, 131) as a shell reports a
    /// process the signal killed. Nil while no signal arrived.
    static func failure(_ detail: String) -> CommandFailure? {
        guard let signal = signalNumber else { return nil }
        return CommandFailure(message: "interrupted (signal \(signal)): \(detail)", exitCode: 128 + signal)
    }
}
