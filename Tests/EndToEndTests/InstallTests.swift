import Foundation
import XCTest

/// `tools/install.sh` into a temporary prefix: the man page and the completions in place, then
/// the installed `thrum` run from a directory outside the checkout, finding what it needs beside
/// itself (PREFIX/share/thrum), not in the checkout. The install takes the debug binary the suite
/// already built (`--no-build`, THRUM_BINARY): a release build would not fit the suite's time; the
/// script's other steps are the same. Real time: the installed `thrum sim --mcu` runs the AVR
/// binary in simavr.
final class InstallTests: XCTestCase {
    func testInstalledThrumRunsOutsideTheCheckout() throws {
        try BootloaderBoard.prepare()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "thrum-install-\(UUID().uuidString)")
        let prefix = scratch.appendingPathComponent("prefix"), elsewhere = scratch.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let install = try ChildProcess.run(
            "/bin/bash",
            [
                TestPaths.packageRoot.appendingPathComponent("tools/install.sh").path, "--prefix", prefix.path,
                "--no-build",
            ],
            environment: ProcessInfo.processInfo.environment.merging(["THRUM_BINARY": try TestPaths.thrumBinary.path]) {
                $1
            })
        let said = install.output
        XCTAssertEqual(install.status, 0, said)
        XCTAssertTrue(said.contains("and the AVR simulation and firmware images in \(prefix.path)/share/thrum"), said)
        XCTAssertTrue(said.hasPrefix("installed thrum "), said)
        // The man page and the completions where `man` and the shells look, as the binary makes them.
        for (file, arguments) in [
            ("share/man/man1/thrum.1", ["dev", "man"]),
            ("share/bash-completion/completions/thrum", ["dev", "completions", "bash"]),
            ("share/zsh/site-functions/_thrum", ["dev", "completions", "zsh"]),
            ("share/fish/vendor_completions.d/thrum.fish", ["dev", "completions", "fish"]),
        ] {
            let made = try ThrumProcess.run(arguments)
            XCTAssertEqual(made.status, 0, made.standardError)
            XCTAssertEqual(
                try String(contentsOf: prefix.appendingPathComponent(file), encoding: .utf8), made.standardOutput, file)
        }

        let thrum = prefix.appendingPathComponent("bin/thrum")
        func installed(_ arguments: [String]) throws -> ThrumProcess.Result {
            try ThrumProcess.run(arguments, executable: thrum, directory: elsewhere)
        }
        let version = try installed(["--version"])
        XCTAssertEqual(version.status, 0, version.standardError)
        XCTAssertEqual(version.standardOutput, try ThrumProcess.run(["--version"]).standardOutput)

        // The images listed are the installed ones: the checkout's files, byte for byte.
        func unoImages(_ result: ThrumProcess.Result) throws -> [[String: Any]] {
            XCTAssertEqual(result.status, 0, result.standardError)
            let object = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let uno = try XCTUnwrap((object["boards"] as? [[String: Any]])?.first { $0["id"] as? String == "uno" })
            return try XCTUnwrap(uno["images"] as? [[String: Any]])
        }
        let listed = try unoImages(try installed(["firmware", "list", "--json"]))
        let checkout = try unoImages(try ThrumProcess.run(["firmware", "list", "--json"]))
        XCTAssertEqual(listed.count, 2)
        for (image, original) in zip(listed, checkout) {
            let relative = try XCTUnwrap(original["path"] as? String)
            XCTAssertEqual(image["path"] as? String, "\(prefix.path)/share/thrum/\(relative)")
            XCTAssertNotNil(image["size"] as? Int, "\(relative): the installed image is found")
            XCTAssertEqual(image["size"] as? Int, original["size"] as? Int)
            XCTAssertEqual(
                try Data(contentsOf: prefix.appendingPathComponent("share/thrum/\(relative)")),
                try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent(relative)))
        }

        // The AVR binary in simavr, from the installed harness and ELF, answers `thrum info`.
        let simulator = try SimulatorProcess(
            arguments: ["--mcu", "atmega328p"], executable: thrum, directory: elsewhere)
        defer { simulator.stop() }
        let info = try installed(["info", "--port", simulator.ptyPath, "--json"])
        let banner = simulator.availableOutput()
        XCTAssertTrue(banner.contains("ELF \(prefix.path)/share/thrum/hardware/firmware/build/avr/thrum.elf"), banner)
        XCTAssertEqual(info.status, 0, info.standardError)
        let device = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(info.standardOutput.utf8)) as? [String: Any])?["device"]
                as? [String: Any],
            info.standardOutput)
        XCTAssertEqual(device["firmware_version"] as? String, "0.1.0")
        XCTAssertEqual(device["protocol_version"] as? Int, 0)
    }
}
