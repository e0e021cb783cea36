import Foundation
import ThrumEngine
import ThrumBench
import ThrumHarness
import ThrumLink
import ThrumTime
import XCTest

/// Prepared start latency on the AVR binary: a HapticEngine on the simavr harness's pty, the
/// transient prepared (preloaded program, driver awake), then `start(atTime: HapticTimeImmediate)`
/// trials. The host runs on the simulation's clock (``SimulationClock``, as `thrum bench --device
/// avr` does), so the figure — the call to the first non-zero RTP_INPUT write in the harness's
/// trace — is a difference of simulated times, mapped exactly: simavr's lag behind the wall clock
/// does not enter it. What still does is the host's own scheduling (a host descheduled for 10 ms
/// while the simulation runs starts 10 ms late, as on hardware), so the test holds the median to
/// 10 ms and each start to 500 ms, and prints the figures for docs/avr-simulation.md.
final class AVRStartLatencyTests: XCTestCase {
    func testPreparedStartsDriveOnTheAVRBinary() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf, publishingClock: true)
        let clock = try SimulationClock(path: XCTUnwrap(simulator.clockURL).path, origin: AVRBench.hostOrigin, driftPPM: AVRBench.hostDriftPPM)
        let transport = try openTransport(path: simulator.ptyPath, baud: 115_200)
        let pump = TransportPump(transport: transport, clock: clock)
        // The harness drives the engine's loop itself (one thread), as the `thrum` CLI does.
        let engine = HapticEngine(session: DeviceSession(pump: pump, endpointName: simulator.ptyPath), runMode: .manual)
        let pattern = BenchSetup.transients(count: 1, spacing: 0.1)
        try engine.start()
        engine.run(for: 1)
        try engine.prepare(pattern)
        engine.run(for: 0.3)
        var calls: [HostTime] = []
        let trials = 10
        for k in 0..<trials {
            engine.run(for: 0.05 + 0.013 * Double(k))
            calls.append(clock.now())
            let player = try engine.makePlayer(with: pattern)
            try player.start(atTime: HapticTimeImmediate)
            _ = engine.runUntilPlayersFinished(timeout: 1)
            engine.run(for: 0.05)
        }
        let goStarts = engine.preparedStarts
        engine.stop()
        transport.close()
        let trace = try simulator.stop()
        XCTAssertEqual(goStarts, trials, "every prepared start should be a GO of the preloaded program")

        var latencies: [Double] = []
        for call in calls {
            let callSim = clock.simulatedMicros(host: call)
            guard let write = trace.rtpWrites.first(where: { $0.value != 0 && $0.timeMicros >= callSim }) else {
                XCTFail("no drive after the start called at \(callSim) µs of simulated time")
                continue
            }
            // On the host's clock: the call → the drive write's last bit.
            let latency = clock.hostMicros(simulatedMicros: write.timeMicros) - Double(call.nanoseconds) / 1e3
            latencies.append(latency)
            // At least the GO's bytes at 115 200 baud and one I²C write.
            XCTAssertGreaterThan(latency, 500, "prepared start took \(latency) µs")
            XCTAssertLessThan(latency, 500_000, "prepared start took \(latency) µs")
        }
        let sorted = latencies.sorted()
        XCTAssertLessThan(sorted.dropFirst(sorted.count / 2).first ?? .infinity, 10_000, "median prepared start latency: \(sorted)")
        if let median = sorted.dropFirst(sorted.count / 2).first, let worst = sorted.last {
            print(String(format: "AVR prepared start latency (simulation's clock): median %.2f ms, max %.2f ms over %d starts",
                         median / 1e3, worst / 1e3, sorted.count))
        }
    }
}
