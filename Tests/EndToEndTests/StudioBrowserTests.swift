import Foundation
import XCTest

/// Thrum Studio driven in a real browser (Debian's chromium, chromedriver and python3-selenium):
/// tools/studio-browser-test.py starts `thrum studio` on a scratch copy of the heartbeat and
/// checks the refused requests, the timeline's marks against the file's times, the onsets of a
/// play (each with its bound, the true onset inside it), a drag saved with every other byte
/// kept, and the reload after an external edit. Screenshots go to .build/studio-screenshots.
/// Real time: listed among the serial tests (all EndToEndTests are, unless named virtual).
final class StudioBrowserTests: XCTestCase {
    func testStudioInChromium() throws {
        let thrum = try TestPaths.thrumBinary
        let needs = ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/python3"]
        let selenium = Process()
        selenium.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        selenium.arguments = ["-c", "import selenium"]
        selenium.standardError = FileHandle.nullDevice
        var hasSelenium = false
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
            try selenium.run()
            selenium.waitUntilExit()
            hasSelenium = selenium.terminationStatus == 0
        }
        guard needs.allSatisfy({ FileManager.default.isExecutableFile(atPath: $0) }), hasSelenium else {
            let message = "chromium, chromium-driver and python3-selenium are needed (tools/ensure-deps.sh installs them)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { return XCTFail(message) }
            throw XCTSkip(message)
        }
        let root = TestPaths.packageRoot
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            root.appendingPathComponent("tools/studio-browser-test.py").path, "--thrum", thrum.path,
            "--screenshots", root.appendingPathComponent(".build/studio-screenshots").path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        nonisolated(unsafe) var data = Data()
        let reading = DispatchGroup()
        reading.enter()
        DispatchQueue.global().async {
            data = output.fileHandleForReading.readDataToEndOfFile()
            reading.leave()
        }
        if reading.wait(timeout: .now() + 600) == .timedOut {
            process.terminate()
            XCTFail("the browser test did not finish within 600 s")
        }
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        print(text)
        for line in text.split(separator: "\n") where line.hasPrefix("FAIL: ") { XCTFail(String(line)) }
        XCTAssertEqual(process.terminationStatus, 0, "tools/studio-browser-test.py failed:\n\(text.suffix(3000))")
        XCTAssertTrue(text.contains(" passed, 0 failed"), "the script ran its checks")
    }
}
