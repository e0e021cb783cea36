import Foundation
import ThrumBench
import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumTestSupport
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
///
/// The same run then plays an event whose first segment reaches the binary after its end (the
/// host's writes held by ``HeldTransport``): the chip drives the rest of the event, and the
/// firmware reports it `late_trimmed` where that drive began (THRUM_FW_CARRY_MARKS, PROTOCOL.md
/// §4.2), judged by the harness's trace (before the streaming image had room for it: `dropped`).
final class AVRStartLatencyTests: XCTestCase {
    func testPreparedStartsDriveOnTheAVRBinary() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf, publishingClock: true)
        let clock = try SimulationClock(path: XCTUnwrap(simulator.clockURL).path, origin: AVRBench.hostOrigin, driftPPM: AVRBench.hostDriftPPM)
        let transport = HeldTransport(try openTransport(path: simulator.ptyPath, baud: 115_200), clock: clock)
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
        let carried = try playWithItsFirstSegmentHeldPastItsEnd(engine, transport: transport, clock: clock)
        engine.stop()
        transport.close()
        let trace = try simulator.stop()
        XCTAssertEqual(goStarts, trials, "every prepared start should be a GO of the preloaded program")
        judgeCarriedMark(carried, trace: trace, clock: clock)

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

    /// A continuous event started now whose bytes reach the binary 3 ms after its first segment's
    /// end; returns its onset record and that end (simulated µs).
    private func playWithItsFirstSegmentHeldPastItsEnd(_ engine: HapticEngine, transport: HeldTransport,
                                                       clock: SimulationClock) throws -> (onset: OnsetRecord?, firstEnd: Double) {
        let pattern = HapticPattern(events: [TestPatterns.continuous(at: 0, duration: 0.15, intensity: 0.8)], parameters: [], parameterCurves: [])
        let program = PatternCompiler(profile: .default).compile(pattern)
        let first = program.segments[0]
        XCTAssertTrue(program.segments.count > 1 && program.segments[1].start == first.end && program.segments[1].end - first.end > 20_000,
                      "the event's drive goes on after its first segment: \(program.segments.prefix(3))")
        let player = try engine.makePlayer(with: pattern)
        let call = clock.now()
        let lead = engine.leadTime.seconds
        let firstEnd = clock.simulatedMicros(host: call) + lead * 1e6 + Double(first.duration)
        transport.holdUntil = HostTime(nanoseconds: call.nanoseconds + Int64((lead * 1e6 + Double(first.duration) + 3_000) * 1e3))
        try player.start(atTime: HapticTimeImmediate)
        _ = engine.runUntilPlayersFinished(timeout: pattern.duration + 2)
        engine.waitForOnsetReports(of: player)
        return (engine.onsets(for: player).first { $0.patternIndex == 0 }, firstEnd)
    }

    /// The event's first non-zero drive in the trace comes after its first segment's end, and the
    /// report names it: `late_trimmed`, its onset within its bound of that write.
    private func judgeCarriedMark(_ carried: (onset: OnsetRecord?, firstEnd: Double), trace: AVRTrace, clock: SimulationClock) {
        guard let event = carried.onset else { return XCTFail("the held event was not reported") }
        guard let write = trace.rtpWrites.first(where: { $0.value != 0 && $0.timeMicros >= carried.firstEnd - 1_000 }) else {
            return XCTFail("the chip did not drive the rest of the held event")
        }
        XCTAssertGreaterThan(write.timeMicros, carried.firstEnd, "its drive began after its first segment's end")
        XCTAssertEqual(event.status, .lateTrimmed, "the chip drove it, late (was: dropped on the streaming image)")
        guard let reported = event.driveOnsetTime, let bound = event.onsetBound else { return XCTFail("no reported onset: \(event)") }
        let truth = clock.hostMicros(simulatedMicros: write.timeMicros) / 1e6
        XCTAssertLessThanOrEqual(abs(reported - truth), bound + 1e-6, "the reported onset is the chip's first drive of the event")
    }
}

/// A transport whose writes wait until `holdUntil` (the host stalled before its bytes left);
/// otherwise the transport it wraps, its wait for input included.
final class HeldTransport: WakeableTransport {
    private let base: any ByteTransport
    private let clock: SimulationClock
    var holdUntil: HostTime?

    init(_ base: any ByteTransport, clock: SimulationClock) {
        self.base = base
        self.clock = clock
    }

    var endpointName: String { base.endpointName }
    var lineByteTime: Double? { base.lineByteTime }

    func write(_ bytes: [UInt8]) throws(TransportError) {
        if let until = holdUntil {
            while clock.now() < until {
                usleep(500)
            }
            holdUntil = nil
        }
        try base.write(bytes)
    }

    func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
        try base.read(maxCount: maxCount, timeout: timeout)
    }

    func close() { base.close() }

    var canWaitApart: Bool { (base as? WakeableTransport)?.canWaitApart ?? false }

    func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
        guard let wakeable = base as? WakeableTransport else { return false }
        return try wakeable.waitUntilReadable(timeout: timeout, orWoken: wake)
    }
}
