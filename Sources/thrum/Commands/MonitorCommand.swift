import Foundation
import ThrumLink
import ThrumTime
import ThrumWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `thrum monitor`: a live, full-screen view of a device's link, clock, queue and driver while
/// another process plays on it through the monitor's bridge.
enum MonitorCommand: Subcommand {
    static let name = "monitor"
    static let summary = "live view of a device's link, clock, queue, driver and onsets (a bridge for players)"
    static let usage = """
        Usage: thrum monitor --port PATH [--link PATH] [--baud N] [--rate HZ]

        Opens the device's port and a bridge: a pseudo-terminal that players use instead of the port
        (`thrum play --port BRIDGE`, or the Swift API on it). Every byte is forwarded both ways as
        it comes; the monitor decodes the frames without taking part in the protocol and shows,
        refreshed --rate times a second (default 10): link statistics (frames, retransmissions,
        CRC errors), its own clock model of the device (offset, its bound, drift, from the ACKs of
        the frames it forwarded), the segment queue depth (from the credits), the driver's power
        state and calibration, faults and the recent onsets. Onsets of patterns the device starts
        by itself appear as they are reported. q or Ctrl-C quits.

        Options:
          --port PATH    the device: serial port, pseudo-terminal, tcp:// or rfc2217://
          --link PATH    also make PATH a symbolic link to the bridge (removed on exit)
          --baud N       baud rate of a real serial port (default 115200)
          --rate HZ      screen refreshes per second, 1…60 (default 10)
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let address = try DeviceAddressOptions.take(from: &arguments)
        guard let port = address.port else { throw UsageError(message: "give the device's --port") }
        let link = try arguments.option("link")
        let rate =
            try arguments.option(
                "rate", as: { Double($0).flatMap { $0.isFinite && $0 >= 1 && $0 <= 60 ? $0 : nil } },
                expected: "a number from 1 to 60")
            ?? 10
        if let extra = try arguments.positionals().first { throw UsageError(message: "unexpected argument '\(extra)'") }
        try arguments.finish()

        try PortHold.refuseIfHeld(port)
        let device: any ByteTransport
        let bridge: PseudoTerminal
        do {
            device = try openTransport(path: port, baud: address.baud)
            bridge = try PseudoTerminal()
        } catch {
            throw CommandFailure(message: error.description)
        }
        defer { device.close() }
        if let link { try makeLink(link, to: bridge.devicePath) }
        defer { if let link { unlink(link) } }

        let clock = MonotonicClock()
        let shared = MonitorBridge(clock: clock)
        shared.start(device: device, client: bridge.master)

        Interrupt.install()
        let keyboard = Keyboard()
        let screen = Screen()
        try screen.begin()
        defer {
            screen.end()
            keyboard.restore()
        }
        let started = clock.now()
        var refreshes = 0
        var cpuWindow = (since: started, cpu: cpuSeconds())
        var cpuShown: Double?
        let period = HostDuration.microseconds(Int64(1e6 / rate))
        var next = started
        while !Interrupt.requested && !keyboard.quitPressed() {
            let now = clock.now()
            if now >= next {
                refreshes += 1
                let elapsed = (now - started).seconds
                let hz = elapsed > 0.5 ? Double(refreshes - 1) / elapsed : rate
                let (width, height) = Screen.size()
                var lines = shared.snapshot.screen(
                    port: port, bridge: link ?? bridge.devicePath, now: now, refreshHz: hz, width: width,
                    onsetLines: max(1, height - 14))
                if now - cpuWindow.since >= .seconds(2) {
                    let cpu = cpuSeconds()
                    cpuShown = (cpu - cpuWindow.cpu) / (now - cpuWindow.since).seconds * 100
                    cpuWindow = (now, cpu)
                }
                lines.insert(
                    String(
                        format: "refreshes %d, up %.1f s, cpu %@ of a core (last 2 s)", refreshes, elapsed,
                        cpuShown.map { String(format: "%.2f %%", $0) } ?? "…"), at: 1)
                if let failure = shared.failure { lines.append("stopped: \(failure)") }
                try screen.draw(lines, height: height)
                // Keep the average rate through a late wake-up; start afresh after a long stall.
                next = next + period
                if now - next > .seconds(1) { next = now + period }
            }
            if shared.failure != nil { break }
            let wait = next - clock.now()
            if wait > .zero { usleep(useconds_t(min(wait.nanoseconds / 1000, 50_000))) }
        }
        if let failure = shared.failure {
            screen.end()
            throw CommandFailure(message: failure)
        }
        return 0
    }

    /// CPU time this process has used (user + system, all threads), s (`getrusage`).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
            usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func makeLink(_ path: String, to target: String) throws {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFLNK else {
                throw CommandFailure(
                    message: "--link \(path): a file is already there (only a symbolic link is replaced)")
            }
            unlink(path)
        }
        guard symlink(target, path) == 0 else {
            throw CommandFailure(message: "--link \(path): cannot make the link: \(String(cString: strerror(errno)))")
        }
    }
}

/// The full-screen view: the alternate screen, cursor hidden, each frame drawn from the top.
/// A frame that cannot be written (standard output on a full disk, `> /dev/full`) ends the
/// monitor with that error.
struct Screen {
    func begin() throws(CommandFailure) { try emit("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J") }
    func end() { try? emit("\u{1B}[?25h\u{1B}[?1049l") }

    func draw(_ lines: [String], height: Int) throws(CommandFailure) {
        var text = "\u{1B}[H"
        for line in lines.prefix(height) { text += line + "\u{1B}[K\r\n" }
        text += "\u{1B}[J"
        try emit(text)
    }

    private func emit(_ text: String) throws(CommandFailure) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            throw ProcessStreams.standardOutputFailure(error)
        }
    }

    /// Columns and rows of the terminal (100 × 30 when standard output is not one).
    static func size() -> (Int, Int) {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            return (Int(size.ws_col), Int(size.ws_row))
        }
        return (100, 30)
    }
}

/// Standard input in non-canonical mode without echo, so a single q quits (when it is a terminal).
final class Keyboard {
    private var saved = termios()
    private let active: Bool

    init() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else {
            active = false
            return
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutablePointer(to: &raw.c_cc) { pointer in
            pointer.withMemoryRebound(to: cc_t.self, capacity: Int(NCCS)) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
        }
        active = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0
    }

    /// Whether q was typed since the last call.
    func quitPressed() -> Bool {
        guard active else { return false }
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") { return true }
        }
        return false
    }

    func restore() {
        if active { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }
}
