import Foundation

/// A port that `thrum studio` holds for its life: a small file in the runtime directory names the
/// holder's pid, so another `thrum` command that opens the port says who holds it instead of
/// fighting over the device ("held by thrum studio (pid N)"). A file left by a process that
/// died is ignored.
struct PortHold {
    /// The holder's file for `port` (its real path, so two spellings of one port agree).
    static func file(for port: String) -> String {
        let real = realpath(port, nil).map { p in defer { free(p) }; return String(cString: p) } ?? port
        let directory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        let name = real.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return (directory as NSString).appendingPathComponent("thrum-port-\(String(name)).pid")
    }

    /// Who else holds `port` (its pid and program), nil when nobody alive does.
    static func holder(of port: String) -> (pid: Int32, program: String)? {
        guard let text = try? String(contentsOfFile: file(for: port), encoding: .utf8) else { return nil }
        let fields = text.split(separator: "\n")
        guard let first = fields.first, let pid = Int32(first), pid != getpid(), kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return (pid, fields.dropFirst().first.map(String.init) ?? "thrum")
    }

    /// Records that this process (`program`) holds `port`; ``release(_:)`` forgets it.
    static func claim(_ port: String, program: String) {
        try? "\(getpid())\n\(program)\n".write(toFile: file(for: port), atomically: true, encoding: .utf8)
    }

    static func release(_ port: String) {
        guard let text = try? String(contentsOfFile: file(for: port), encoding: .utf8), text.hasPrefix("\(getpid())\n") else { return }
        try? FileManager.default.removeItem(atPath: file(for: port))
    }

    /// Throws the one-line failure when another live process holds `port`.
    static func refuseIfHeld(_ port: String) throws(CommandFailure) {
        if let holder = holder(of: port) {
            throw CommandFailure(message: "\(port) is held by \(holder.program) (pid \(holder.pid)): play it from the studio's page, or stop the studio first")
        }
    }
}
