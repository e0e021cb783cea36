import XCTest

/// A usage error is one line saying what is wrong and a pointer to the command's help, not the
/// message buried above a screenful of usage (issue 23).
final class CLIUsageErrorTests: XCTestCase {
    func testAMistypedOptionIsOneLineAndTheHelpHint() throws {
        for (command, arguments) in [("play", ["play", "--bogus"]), ("render", ["render", "x.ahap", "--svg"]), ("sim", ["sim", "--link", "out=9-1ms"])] {
            let result = try ThrumProcess.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            let lines = result.standardError.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, result.standardError)
            XCTAssertTrue(lines.first?.hasPrefix("thrum: ") == true, result.standardError)
            XCTAssertEqual(lines.last.map(String.init), "Run 'thrum \(command) --help' for its options.")
            XCTAssertFalse(result.standardError.contains("Usage:"), result.standardError)
        }
    }

    /// A `--port` network address without a host or a port from 1 to 65535 is a usage error (exit
    /// 2, one line naming the option and what was expected), for `play`, `info` and `studio` alike;
    /// it was a failure to connect (exit 1). Nothing is connected to: the line is said first.
    func testAMalformedNetworkPortIsAUsageError() throws {
        let cases: [(String, String)] = [
            ("tcp://[::1]:99999", "port '99999': expected tcp://HOST:PORT with PORT a whole number from 1 to 65535"),
            ("tcp://:0", "no host: expected tcp://HOST:PORT"),
            ("tcp://rig:", "no port: expected tcp://HOST:PORT with PORT a whole number from 1 to 65535"),
            ("tcp://rig:abc", "port 'abc': expected tcp://HOST:PORT with PORT"),
            ("tcp://rig:0", "port '0': expected"),
            ("tcp://rig:+80", "port '+80': expected"),
            ("tcp://rig", "no port: expected tcp://HOST:PORT"),
            ("tcp://[::1", "no closing ']'"),
            ("rfc2217://[::1]:70000", "port '70000': expected rfc2217://HOST:PORT with PORT a whole number from 1 to 65535"),
            ("rfc2217://:2000", "no host: expected rfc2217://HOST:PORT"),
        ]
        for (port, expected) in cases {
            let result = try ThrumProcess.run(["play", "--port", port, "--no-plot", "preset:impact.light"])
            XCTAssertEqual(result.status, 2, "\(port): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 2, result.standardError)
            XCTAssertEqual(lines.first?.hasPrefix("thrum: --port '\(port)': "), true, result.standardError)
            XCTAssertTrue(result.standardError.contains(expected), "\(port): \(result.standardError)")
        }
        for arguments in [["info", "--port", "tcp://:0"], ["studio", "--port", "tcp://rig:99999"]] {
            let result = try ThrumProcess.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.standardError)")
            XCTAssertTrue(result.standardError.hasPrefix("thrum: --port '"), result.standardError)
        }
    }
}
