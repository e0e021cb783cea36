import ThrumLink
import ThrumTime
import XCTest

/// The clock model behind a USB-to-serial bridge: the device stamps a frame when its last byte
/// has crossed the UART, so the outbound delay floor grows with the bytes written up to the
/// frame's end, and the mix of short and long frames changes when playback starts. And the
/// sampling density changes too (a burst of probes after connecting, then sparse pings).
final class ClockModelSerialLineTests: XCTestCase {
    /// 8N1 at 115 200 baud.
    let byteTime = 10 / 115_200.0 * 1e6

    struct Scenario {
        var ppm: Double
        /// Phases of writes, each until a host time (µs), with its streams: a write of `bytes`
        /// every `interval` µs (±10 %).
        var phases: [(until: Double, streams: [(bytes: Int, interval: Double)])]
        /// Per-byte time of the line (0: frames arrive whole, as on native USB).
        var byteTime: Double
        /// Whether the samples say how many bytes each write held.
        var tellsBytes = true
    }

    /// Runs `scenario` and returns the model and the device clock (µs at host µs).
    private func run(_ scenario: Scenario, seed: UInt64) -> (ClockModel, (Double) -> Double) {
        var model = ClockModel()
        var rng = SplitMix64(seed: seed)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() >> 11) / Double(1 << 53) }
        let device = { (t: Double) in 5_000_000 + t * (1 + scenario.ppm * 1e-6) }
        var writes: [(time: Double, bytes: Int)] = []
        var phaseStart = 1_000_000.0
        for phase in scenario.phases {
            for stream in phase.streams {
                var t = phaseStart + uniform(0, stream.interval)
                while t < phase.until {
                    writes.append((t, stream.bytes))
                    t += stream.interval * uniform(0.9, 1.1)
                }
            }
            phaseStart = phase.until
        }
        var lineFree = 0.0
        for write in writes.sorted(by: { $0.time < $1.time }) {
            // The bridge takes the write in the next 1 ms USB frame, then shifts it out.
            let frame = (write.time / 1_000).rounded(.down) * 1_000 + 1_000
            let lastByte = max(frame, lineFree) + Double(write.bytes) * scenario.byteTime
            lineFree = lastByte
            // The ACK (14 bytes) crosses back, waits for the next frame and for the host to wake.
            let back = ((lastByte + 14 * scenario.byteTime) / 1_000).rounded(.down) * 1_000 + 1_000 + uniform(200, 2_000)
            model.addSample(
                ClockSample(
                    hostSend: HostTime(nanoseconds: Int64(write.time * 1_000)), hostReceive: HostTime(nanoseconds: Int64(back * 1_000)),
                    deviceReceive: DeviceTime(microseconds: Int64(device(lastByte).rounded(.down))), outboundBytes: scenario.tellsBytes ? write.bytes : 0))
        }
        return (model, device)
    }

    /// After connecting, two seconds of 7-byte probes every 10 ms while the first pattern's
    /// 60-byte writes start every 100 ms; then only the 60-byte writes, for eight seconds (no
    /// pings go out while frames flow).
    private func playback(ppm: Double, byteTime: Double, tellsBytes: Bool = true) -> Scenario {
        Scenario(
            ppm: ppm, phases: [(3_000_000, [(7, 10_000), (60, 100_000)]), (11_000_000, [(60, 100_000)])], byteTime: byteTime,
            tellsBytes: tellsBytes)
    }

    func testTheTimePerByteIsLearntAndTheDriftHoldsWhenLongFramesStart() {
        for (seed, ppm) in [(1, 100.0), (2, -100.0), (3, 40.0)] {
            let (model, _) = run(playback(ppm: ppm, byteTime: byteTime), seed: UInt64(seed))
            XCTAssertEqual(model.byteTimeMicros, byteTime, accuracy: 3, "seed \(seed)")
            // Eight seconds of sparse samples on two legs of like quality leave about ±20 ppm of
            // noise (without the byte counts the error is about twice that: the next test).
            XCTAssertEqual(model.driftPPM, ppm, accuracy: 25, "seed \(seed)")
        }
    }

    func testWithoutTheByteCountsTheFrameMixReadsAsDrift() {
        // The same line, samples without their byte counts: the floor rises by 4.6 ms when only
        // long frames are left, and the envelope tilts. This is what the byte counts are for.
        let (model, _) = run(playback(ppm: 100, byteTime: byteTime, tellsBytes: false), seed: 1)
        // Over 500 ppm when the drift came from runs of equal sample counts; 44 ppm with spans of
        // equal time (the step sits inside one span of eight), still beyond the 25 ppm above.
        XCTAssertEqual(model.byteTimeMicros, 0)
        XCTAssertGreaterThan(abs(model.driftPPM - 100), 30)
    }

    func testALinkThatDeliversFramesWholeLearnsNoByteTime() {
        for seed in 1...3 {
            let (model, _) = run(playback(ppm: -100, byteTime: 0), seed: UInt64(seed))
            XCTAssertLessThan(model.byteTimeMicros, 2, "seed \(seed)")
            XCTAssertEqual(model.driftPPM, -100, accuracy: 10, "seed \(seed)")
        }
    }

    func testADenseBurstOfProbesDoesNotTiltTheDrift() throws {
        // Native USB (no byte time), 10 ms probes for two seconds then one ping every 150 ms: the
        // burst's span holds many more samples, so its lowest delay sits lower than a sparse
        // span's. Each span gives the same quantile instead.
        for (seed, ppm) in [(4, 100.0), (5, -100.0)] {
            let scenario = Scenario(ppm: ppm, phases: [(3_000_000, [(7, 10_000)]), (21_000_000, [(7, 150_000)])], byteTime: 0)
            let (model, device) = run(scenario, seed: UInt64(seed))
            XCTAssertEqual(model.driftPPM, ppm, accuracy: 10, "seed \(seed)")
            // The hard bracket still holds the truth.
            let t = 21_200_000.0
            let truth = DeviceTime(microseconds: Int64(device(t).rounded()))
            let interval = try XCTUnwrap(model.hostTimeBounds(atDevice: truth))
            XCTAssertTrue(interval.contains(HostTime(nanoseconds: Int64(t * 1_000))), "seed \(seed)")
        }
    }
}
