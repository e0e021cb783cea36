import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

/// The return leg on a serial line: the device stamps a frame (`rx_time`) and then sends its
/// reply over the same UART at the same baud rate, so every byte of the reply frame is
/// return-leg delay. The clock model takes `inboundBytes × byteTime` off the return leg as it
/// takes each write's own bytes off the outbound leg.
final class ClockModelReturnLegTests: XCTestCase {
    /// 8N1 at 115 200 baud.
    let byteTime = 10 / 115_200.0 * 1e6

    /// A line whose only asymmetry is the bytes: probes of 7 and 22 bytes every 8 ms (±20 %),
    /// each answered by a 15-byte reply; both legs add the same fixed 300 µs and 0–200 µs of
    /// jitter. Returns the model and the device clock (µs at host µs).
    private func run(byteTime: Double, tellsReplyBytes: Bool, seed: UInt64, ppm: Double = 80)
        -> (ClockModel, (Double) -> Double, last: Double)
    {
        var model = ClockModel()
        var rng = SplitMix64(seed: seed)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() >> 11) / Double(1 << 53) }
        let device = { (t: Double) in 7_000_000 + t * (1 + ppm * 1e-6) }
        var t = 1_000_000.0
        var k = 0
        while t < 2_500_000 {
            let bytes = k % 2 == 0 ? 7 : 22
            let arrival = t + 300 + uniform(0, 200) + Double(bytes) * byteTime
            let back = arrival + 300 + uniform(0, 200) + 15 * byteTime
            model.addSample(
                ClockSample(
                    hostSend: HostTime(nanoseconds: Int64(t * 1_000)), hostReceive: HostTime(nanoseconds: Int64(back * 1_000)),
                    deviceReceive: DeviceTime(microseconds: Int64(device(arrival).rounded(.down))), outboundBytes: bytes,
                    inboundBytes: tellsReplyBytes ? 15 : 0))
            t += 8_000 * uniform(0.8, 1.2)
            k += 1
        }
        return (model, device, t)
    }

    private func error(_ model: ClockModel, _ device: (Double) -> Double, at t: Double) -> Double {
        Double(model.deviceTime(at: HostTime(nanoseconds: Int64(t * 1_000))).microseconds) - device(t)
    }

    func testTheEstimateCentresWhenTheRepliesBytesAreTheOnlyAsymmetry() {
        for seed: UInt64 in 1...3 {
            let (model, device, t) = run(byteTime: byteTime, tellsReplyBytes: true, seed: seed)
            XCTAssertEqual(model.byteTimeMicros, byteTime, accuracy: 2, "seed \(seed)")
            XCTAssertLessThan(abs(error(model, device, at: t)), 10, "µs off the device clock, seed \(seed)")
        }
    }

    func testWithoutTheReplysBytesTheEstimateIsHalfItsSerialisationEarly() {
        // The same line, samples without the reply's byte count: the return leg's floor is 15 byte
        // times above the outbound one, and the middle sits half of that (651 µs) early.
        for seed: UInt64 in 1...3 {
            let (model, device, t) = run(byteTime: byteTime, tellsReplyBytes: false, seed: seed)
            XCTAssertEqual(error(model, device, at: t), -15 * byteTime / 2, accuracy: 15, "seed \(seed)")
        }
    }

    func testTheGuaranteedBracketStillHoldsTheTruth() throws {
        // The bracket (the reports' "±") takes nothing off for bytes: it holds whatever the learnt
        // byte time is.
        let (model, device, t) = run(byteTime: byteTime, tellsReplyBytes: true, seed: 4)
        for back in [0.0, 5_000, 50_000, 500_000] {
            let host = t - back
            let truth = DeviceTime(microseconds: Int64(device(host).rounded()))
            let interval = try XCTUnwrap(model.hostTimeBounds(atDevice: truth))
            XCTAssertTrue(interval.contains(HostTime(nanoseconds: Int64(host * 1_000))), "\(back) µs back")
        }
    }

    func testALinkThatDeliversFramesWholeDoesNotMove() {
        // Native USB: no time per byte is learnt, so the reply's bytes change nothing.
        for seed: UInt64 in 1...3 {
            let (with, device, t) = run(byteTime: 0, tellsReplyBytes: true, seed: seed)
            let (without, _, _) = run(byteTime: 0, tellsReplyBytes: false, seed: seed)
            XCTAssertLessThan(with.byteTimeMicros, 1, "seed \(seed)")
            XCTAssertEqual(error(with, device, at: t), error(without, device, at: t), accuracy: 15, "seed \(seed)")
            XCTAssertLessThan(abs(error(with, device, at: t)), 10, "seed \(seed)")
        }
    }

    /// A session on a 115 200 baud line both ways with like fixed delays.
    private func serialHarness(longProbePings: Int) -> LinkHarness {
        var configuration = LinkConfiguration()
        configuration.longProbePings = longProbePings
        let harness = LinkHarness(device: FakeDevice(clockOffset: 40_000_000, driftPPM: 60), configuration: configuration)
        harness.hostToDeviceDelay = .microseconds(400)
        harness.deviceToHostDelay = .microseconds(400)
        harness.hostToDeviceByteTime = HostDuration(nanoseconds: 86_806)
        harness.deviceToHostByteTime = HostDuration(nanoseconds: 86_806)
        harness.jitter = .microseconds(100)
        return harness
    }

    func testSamplesCarryTheReplyFramesLength() {
        let harness = serialHarness(longProbePings: 16)
        harness.connect()
        harness.run(for: .milliseconds(300))
        let samples = harness.session.clock.samples
        XCTAssertGreaterThan(samples.count, 20)
        let sent = Set(harness.deviceFrameLengths)
        for s in samples {
            XCTAssertTrue(sent.contains(s.inboundBytes), "\(s.inboundBytes) bytes: not a device frame's length")
        }
    }

    func testLongProbesTeachTheByteTimeBeforeTheFirstPattern() {
        // One second after connecting (dense probing), the byte time is known, and with it both
        // legs' serialisation: the estimate sits within the jitter of the truth.
        let harness = serialHarness(longProbePings: 16)
        harness.connect()
        harness.run(for: .seconds(1))
        let clock = harness.session.clock
        XCTAssertEqual(Set(clock.samples.map(\.outboundBytes)), [7, 22], "short and long probes")
        XCTAssertEqual(clock.byteTimeMicros, byteTime, accuracy: 5)
        let error = Double(clock.deviceTime(at: harness.now).microseconds) - Double(harness.device.deviceTime(at: harness.now))
        XCTAssertLessThan(abs(error), 60, "µs off the device clock")

        // Single-PING probes are all alike: nothing to learn the byte time from, and the middle
        // sits about half of the reply's extra bytes (8 × 86.8 µs) early.
        let plain = serialHarness(longProbePings: 1)
        plain.connect()
        plain.run(for: .seconds(1))
        XCTAssertEqual(plain.session.clock.byteTimeMicros, 0)
        let plainError = Double(plain.session.clock.deviceTime(at: plain.now).microseconds) - Double(plain.device.deviceTime(at: plain.now))
        XCTAssertLessThan(plainError, -250)
    }
}
