import Foundation

/// Where `thrum` finds the files it does not compile in (the AVR simulation harness, the
/// simulated boards' bootloader, the firmware images and sources): the `hardware/` tree of the
/// checkout it runs in, or the copy `tools/install.sh` puts beside an installed binary
/// (`PREFIX/share/thrum/hardware/…` for `PREFIX/bin/thrum`), so that an installed `thrum sim --mcu`
/// and `thrum firmware list | flash` work from any directory.
enum ResourceRoot {
    /// The directory the repository-relative paths start from, with a trailing slash; empty in a
    /// checkout (the working directory holds hardware/firmware/Makefile or hardware/avrsim/Makefile),
    /// and when nothing is installed beside the binary either (messages then name the checkout).
    static let prefix: String = {
        let fm = FileManager.default
        if fm.fileExists(atPath: "hardware/firmware/Makefile") || fm.fileExists(atPath: "hardware/avrsim/Makefile") {
            return ""
        }
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return "" }
        let share = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/thrum")
        return fm.fileExists(atPath: share.appendingPathComponent("hardware").path) ? share.path + "/" : ""
    }()

    /// `relative` (a path inside the repository, e.g. `hardware/avrsim/build/avrsim`) where this
    /// `thrum` finds it.
    static func path(_ relative: String) -> String { prefix + relative }

    /// True when the files come from an installation rather than a checkout.
    static var installed: Bool { !prefix.isEmpty }
}
