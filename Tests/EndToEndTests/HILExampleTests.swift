import Foundation
import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import XCTest

/// The Swift half of docs/hil.md, as it is printed there: a hardware-in-the-loop test that plays
/// a pattern on a rig through the API and asserts on what the device reported, with
/// `PlaybackExpectations` (the rules `thrum play --expect-…` applies). Here the rig is `thrum sim`
/// on a pseudo-terminal (in CI: set THRUM_HIL_PORT to a real board's port instead).
final class HILExampleTests: XCTestCase {
    // docs/hil.md: begin
    /// Plays `file` on the device at `port` and returns what the device reported.
    func play(_ file: String, port: String) throws -> PlaybackReport {
        let transport = try openTransport(path: port, baud: 115_200)
        defer { transport.close() }
        let device = ThrumDevice(pump: TransportPump(transport: transport), endpointName: port)
        let engine = HapticEngine(device: device, profile: .default)
        try engine.start()
        defer { engine.stop() }
        let pattern = try HapticPattern(contentsOf: file)
        let player = try engine.makeAdvancedPlayer(with: pattern)
        let before = engine.counters
        let start = engine.currentTime + engine.leadTime.seconds + 0.02
        try player.start(atTime: start)
        _ = engine.runUntilPlayersFinished(timeout: pattern.duration + 5)
        engine.waitForOnsetReports(of: player)
        return engine.playbackReport(
            for: player, pattern: pattern, startTime: start, duration: pattern.duration, since: before)
    }

    func testHeartbeatLandsWithinTwoMilliseconds() throws {
        let report = try play(heartbeat, port: try rigPort())
        // Every onset within 2 ms of its request, bound included, and all four reported.
        let outcome = PlaybackExpectations(maxError: 2e-3, onsets: 4).check(report)
        XCTAssertTrue(outcome.passed, outcome.summary ?? "")
    }

    func testATenMicrosecondLimitFailsAndSaysWhy() throws {
        let report = try play(heartbeat, port: try rigPort())
        let outcome = PlaybackExpectations(maxError: 10e-6).check(report)
        XCTAssertFalse(outcome.passed)
        XCTAssertTrue(
            outcome.summary?.hasPrefix("event 0 at 0.000 ms: |error| + bound = ") == true, outcome.summary ?? "")
    }
    // docs/hil.md: end

    let heartbeat = TestPaths.example("heartbeat.ahap").path
    var simulator: SimulatorProcess?

    /// THRUM_HIL_PORT, or a `thrum sim` started for the test.
    func rigPort() throws -> String {
        if let port = ProcessInfo.processInfo.environment["THRUM_HIL_PORT"], !port.isEmpty { return port }
        let sim = try SimulatorProcess()
        simulator = sim
        addTeardownBlock { sim.stop() }
        return sim.ptyPath
    }
}

/// docs/hil.md quotes the example above verbatim.
final class HILDocumentTests: XCTestCase {
    func testTheDocumentQuotesTheExample() throws {
        let source = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent("Tests/EndToEndTests/HILExampleTests.swift"),
            encoding: .utf8)
        let doc = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/hil.md"), encoding: .utf8)
        let begin = try XCTUnwrap(source.range(of: "    // docs/hil.md: begin\n"))
        let end = try XCTUnwrap(source.range(of: "    // docs/hil.md: end\n"))
        let quoted = source[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }.joined(separator: "\n")
        XCTAssertTrue(
            doc.contains("```swift\n" + quoted + "```"),
            "docs/hil.md no longer quotes HILExampleTests.swift; paste the block between the markers again")
    }
}
