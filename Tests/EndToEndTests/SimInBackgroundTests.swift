import Foundation
import XCTest

/// `thrum sim --storage FILE &` as docs/library.md runs it: in the background of an interactive
/// shell the simulator keeps serving (it was stopped by SIGTTIN for reading its terminal), and
/// `--triggers FIFO` takes `trigger N` lines from a script.
final class SimInBackgroundTests: XCTestCase {
    func testInTheBackgroundOfAnInteractiveShellItKeepsServing() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("script(1) (bsdutils) is needed for a controlling terminal")
        }
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let thrum = try TestPaths.thrumBinary.path
        let storage = dir.appendingPathComponent("storage.bin").path
        let out = dir.appendingPathComponent("sim.out").path
        // An interactive bash on a pseudo-terminal of script(1): job control, a terminal to read.
        let command = "bash --norc -ic '\(thrum) sim --storage \(storage) > \(out) 2>&1 & sleep 2; jobs -l; kill -9 %1; wait'"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(text.contains("Running"), text)
        XCTAssertFalse(text.contains("Stopped"), text)
        let served = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        XCTAssertTrue(served.hasPrefix("pty: "), served)
    }

    func testTriggersFromAFIFO() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let fifo = dir.appendingPathComponent("triggers").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let trace = dir.appendingPathComponent("trace.csv").path
        let sim = try SimulatorProcess(arguments: [
            "--storage", dir.appendingPathComponent("storage.bin").path, "--triggers", fifo, "--trace", trace,
        ])
        defer { sim.stop() }
        // Standard input closed at once must not matter: the lines come from the FIFO.
        sim.input.fileHandleForWriting.closeFile()
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        writer.write(Data("trigger 0\n".utf8))
        writer.closeFile()
        // No library is stored, so the press plays nothing; the simulator says it took it.
        let deadline = Date().addingTimeInterval(5)
        var said = ""
        while Date() < deadline && !said.contains("trigger 0 pressed") {
            said += sim.availableOutput()
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertTrue(said.contains("trigger 0 pressed"), said)
        let missing = try ThrumProcess.run(["sim", "--triggers", dir.appendingPathComponent("nope").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.standardError.contains("--triggers: cannot open"), missing.standardError)
    }
}
