import Foundation
import ThrumEngine
import ThrumLink
import ThrumPattern
import XCTest

/// An engine on real time runs by itself over a pseudo-terminal to `thrum sim`: after `start()`
/// nothing drives its loop, the completion handler arrives on the run thread, and every onset is
/// reported on time by the device. (The check is the device's own report; the wait for the
/// handler is bounded and generous.)
final class SelfRunningOverPseudoTerminalTests: XCTestCase {
    func testTheRunThreadPlaysAMetronomeWithoutACallerLoop() throws {
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let transport = try openTransport(path: simulator.ptyPath, baud: 115_200)
        let engine = HapticEngine(session: DeviceSession(pump: TransportPump(transport: transport), endpointName: simulator.ptyPath))
        XCTAssertEqual(engine.device.runMode, .realTime)
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: try HapticPattern(contentsOf: TestPaths.example("metronome.ahap").path))
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var onRunThread = false }
        let box = Box()
        player.completionHandler = { _ in
            box.onRunThread = SharedDevice.isRunThread
            done.signal()
        }
        try player.start(atTime: HapticTimeImmediate)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the metronome never finished")
        XCTAssertTrue(box.onRunThread)
        engine.waitForOnsetReports(of: player)
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.count, 8, "\(onsets.map { ($0.patternIndex, $0.requestedTime, $0.status) })")
        XCTAssertEqual(onsets.map(\.status), Array(repeating: .onTime, count: onsets.count))
        engine.stop()
    }
}
