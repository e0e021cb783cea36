import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire
import XCTest

/// USB start-of-frame times (FRAME_TIME, protocol version 3) from the C firmware on the simulated
/// links, against the simulation's truth: the device crystal and the host controller's frame grid.
final class FrameTimeTests: XCTestCase {
    /// Counts the FRAME_TIMES requests the host writes, on top of any link.
    final class RequestCounter: @unchecked Sendable {
        var requests = 0
        var decoder = FrameDecoder(direction: .hostToDevice)
    }

    struct CountingLink: LinkModel {
        var base: any LinkModel
        let counter: RequestCounter

        mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
            if direction == .hostToDevice {
                // byte by byte: a CLAIM changes the key of the frames right behind it
                for byte in bytes {
                    for frame in counter.decoder.push([byte]) {
                        let messages = (try? HostMessage.parsePayload(frame.payload)) ?? []
                        counter.requests += messages.filter { if case .frameTimes = $0 { true } else { false } }.count
                        // the host's frames after its CLAIM are in its session's key (PROTOCOL.md §3.8)
                        for case .claim(let session) in messages { counter.decoder.keys = [CRC16.sessionKey(session)] }
                    }
                }
            }
            return base.deliver(&bytes, writtenAt: time, direction: direction)
        }
        mutating func hostWakeLatency(at time: UInt64) -> UInt64 { base.hostWakeLatency(at: time) }
        func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? { base.startOfFrame(atOrBefore: time) }
    }

    private func rig(_ profile: LinkProfile, seed: UInt64, counter: RequestCounter) -> VirtualRig {
        let counting = LinkProfile(name: profile.name, summary: profile.summary) { seed in
            CountingLink(base: profile.make(seed), counter: counter)
        }
        return VirtualRig(link: counting, seed: seed)
    }

    func testOnNativeUsbTheLinkCountsTheCrystalAgainstTheFrameGridWithinAFractionOfAPpmInASecondAndAHalf() throws {
        for seed: UInt64 in [1, 2] {
            let counter = RequestCounter()
            let rig = rig(LinkCatalogue.usbFullSpeed, seed: seed, counter: counter)
            try rig.connect(calibrate: false)
            // a second and a half of reports, the first asked at the device's IDENTIFY_REPLY (with
            // the device clock counted in whole µs, a second of them resolves about 1 ppm: the
            // phase of the connection decided whether 0.5 was met)
            let deadline = rig.clock.now() + .seconds(2)
            while rig.clock.now() < deadline, (rig.session.link.frameClock.samples.last?.frame ?? 0) < 1_500 {
                try rig.pump.run(rig.session.link, until: min(deadline, rig.clock.now() + .milliseconds(1)))
            }

            let frames = rig.session.link.frameClock
            XCTAssertEqual(counter.requests, 1, "asked once: the reports came")
            XCTAssertTrue(frames.isFitted, "seed \(seed)")
            XCTAssertGreaterThanOrEqual(frames.samples.count, 4, "a report per 200 ms")
            // The truth: a frame lasts 1 ms of the host controller's clock, 25 ppm fast against the
            // host's (true) time; the device's crystal counts it at its own rate.
            let perFrame = 1_000 / (1 + LinkCatalogue.usbFrameClockPPM * 1e-6) * (1 + rig.device.configuration.crystalErrorPPM * 1e-6)
            XCTAssertEqual(try XCTUnwrap(frames.deviceMicrosPerFrame), perFrame, accuracy: 0.0005, "seed \(seed): within 0.5 ppm")
            // A device time maps to the frame under way then, to a few µs.
            let t = rig.pump.trueTime
            let sof = try XCTUnwrap(rig.pump.link.startOfFrame(atOrBefore: t))
            let device = rig.session.link.clock.extend(DeviceTime32(rawValue: rig.device.deviceClock(atTrueTime: t)))
            let position = try XCTUnwrap(frames.frame(atDevice: device))
            let truth = Double(sof.number) + Double(t - sof.time) / 1_000
            let apart = (position - truth).truncatingRemainder(dividingBy: 2_048)
            XCTAssertLessThan(abs(apart) * 1_000, 3, "seed \(seed): µs off the true grid")

            // After the startup probing the link asks for a report a second (7 B/s).
            let settled = rig.clock.now() + .seconds(2)
            while rig.clock.now() < settled { try rig.pump.run(rig.session.link, until: settled) }
            let before = rig.session.link.frameClock.samples.count
            let later = rig.clock.now() + .seconds(3)
            while rig.clock.now() < later { try rig.pump.run(rig.session.link, until: later) }
            XCTAssertEqual(counter.requests, 2, "seed \(seed)")
            XCTAssertEqual(rig.session.link.frameClock.samples.count - before, 3, "seed \(seed): a report a second")
        }
    }

    func testBehindASerialBridgeNoReportsComeAndTheLinkStopsAskingAfterThree() throws {
        let counter = RequestCounter()
        let rig = rig(try XCTUnwrap(LinkCatalogue.profile(named: "ftdi-1m-1ms")), seed: 3, counter: counter)
        try rig.connect(calibrate: false)
        let deadline = rig.clock.now() + .seconds(3)
        while rig.clock.now() < deadline { try rig.pump.run(rig.session.link, until: deadline) }
        XCTAssertEqual(rig.session.identity?.protocolVersion, ProtocolConstants.protocolVersion)
        XCTAssertTrue(rig.session.link.frameClock.samples.isEmpty)
        XCTAssertEqual(counter.requests, 3)
    }

    func testOnNativeUsbTheRhythmIsTheDevicesFromTheFirstEvent() throws {
        // As `thrum play` does: the pattern starts as soon as the engine has connected (0.7 s),
        // when round trips know the drift only to ≈ 100 ppm; the frame count knows it to < 1 ppm.
        let pattern = HapticPattern(
            events: (0..<30).map { k in
                HapticEvent(
                    eventType: .hapticTransient, parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                    relativeTime: Double(k) * 0.12)
            }, parameters: [], parameterCurves: [])
        var errors: [Double] = []
        for seed: UInt64 in [1, 2, 3] {
            let rig = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: seed)
            let report = try rig.play(pattern)
            let truth = report.events.compactMap { e in e.trueOnsetTime.map { (e.requestedTime, $0) } }
            XCTAssertEqual(truth.count, 30, "seed \(seed)")
            for (a, b) in zip(truth, truth.dropFirst()) { errors.append(abs((b.1 - a.1) - (b.0 - a.0))) }
        }
        errors.sort()
        let p99 = errors[min(errors.count - 1, Int(Double(errors.count) * 0.99))]
        // Crystals 100 ppm off: at the nominal rate a 120 ms interval would be 12 µs off.
        XCTAssertLessThanOrEqual(p99, 8e-6, "inter-onset error p99 from the first event")
    }
}
