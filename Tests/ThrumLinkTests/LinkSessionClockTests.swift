import ThrumLink
import ThrumTime
import ThrumWire
import XCTest

final class LinkSessionClockTests: XCTestCase {
    private func modelError(_ harness: LinkHarness) -> Double {
        let model = Double(harness.session.clock.deviceTime(at: harness.now).microseconds)
        return model - Double(harness.device.deviceTime(at: harness.now))
    }

    private func assertConverges(driftPPM: Double, offset: UInt64, file: StaticString = #filePath, line: UInt = #line) {
        let device = FakeDevice(clockOffset: offset, driftPPM: driftPPM)
        let harness = LinkHarness(device: device)
        harness.hostToDeviceDelay = .microseconds(400)
        harness.deviceToHostDelay = .microseconds(400)
        harness.jitter = .microseconds(100)
        harness.connect()
        harness.run(for: .seconds(30))
        let clock = harness.session.clock
        XCTAssertTrue(clock.isConverged, file: file, line: line)
        XCTAssertLessThan(abs(modelError(harness)), 50, "µs off the true device clock", file: file, line: line)
        XCTAssertEqual(clock.driftPPM, driftPPM, accuracy: 10, file: file, line: line)
        XCTAssertLessThan(clock.errorEstimate, .microseconds(50), file: file, line: line)
        XCTAssertGreaterThanOrEqual(clock.sampleCount, 64, file: file, line: line)
        // Predictions a little ahead and behind stay accurate too, and the inverse maps back.
        for step in [-2_000, -500, 0, 300, 1_000] {
            let t = harness.now + .milliseconds(Int64(step))
            let truth = Double(device.deviceTime(at: t))
            XCTAssertLessThan(abs(Double(clock.deviceTime(at: t).microseconds) - truth), 60, file: file, line: line)
            let back = clock.hostTime(atDevice: clock.deviceTime(at: t))
            XCTAssertLessThan(abs((back - t).microseconds), 1.5, file: file, line: line)
        }
    }

    func testConvergesWithFastDeviceClockAndJitter() {
        assertConverges(driftPPM: 100, offset: 123_456_789)
    }

    func testConvergesWithSlowDeviceClockAndJitter() {
        assertConverges(driftPPM: -100, offset: 3_000_000_000)
    }

    func testDeviceClockWrapIsExtendedTo64Bits() {
        // The 32-bit device clock wraps about 19 s into the run, inside the final fit window.
        let device = FakeDevice(clockOffset: (1 << 32) - 20_000_000, driftPPM: 50)
        let harness = LinkHarness(device: device)
        harness.jitter = .microseconds(100)
        harness.connect()
        XCTAssertLessThan(harness.session.clock.deviceTime(at: harness.now), DeviceTime(microseconds: 1 << 32))
        harness.run(for: .seconds(30))
        let clock = harness.session.clock
        XCTAssertLessThan(clock.samples.first!.deviceReceive, DeviceTime(microseconds: 1 << 32), "the window spans the wrap")
        XCTAssertGreaterThan(clock.deviceTime(at: harness.now), DeviceTime(microseconds: 1 << 32))
        XCTAssertLessThan(abs(modelError(harness)), 50)
        XCTAssertEqual(clock.driftPPM, 50, accuracy: 10)
        let truth = DeviceTime(microseconds: Int64(device.deviceTime(at: harness.now)))
        XCTAssertEqual(clock.extend(truth.wire), truth)
        XCTAssertEqual(clock.deviceTime32(at: harness.now).rawValue, UInt32(truncatingIfNeeded: clock.deviceTime(at: harness.now).microseconds))
    }

    func testSingleSampleGivesOffsetOnly() {
        var model = ClockModel()
        XCTAssertEqual(model.sampleCount, 0)
        XCTAssertFalse(model.isConverged)
        model.addSample(hostSend: HostTime(nanoseconds: 10_000_000), hostReceive: HostTime(nanoseconds: 12_000_000),
                        deviceReceive: 500_000)
        // Matched to send + RTT/2 = 11 ms host.
        XCTAssertEqual(model.deviceTime(at: HostTime(nanoseconds: 11_000_000)), 500_000)
        XCTAssertEqual(model.deviceTime(at: HostTime(nanoseconds: 21_000_000)), 510_000)
        XCTAssertEqual(model.errorEstimate, .milliseconds(1))
        XCTAssertEqual(model.driftPPM, 0)
        XCTAssertFalse(model.isConverged)
    }

    func testExactSamplesGiveExactFit() {
        var model = ClockModel()
        // Device = 1_000 s + 1.0002 × host, RTT 200 µs, symmetric.
        for i in 0..<40 {
            let send = HostTime(nanoseconds: Int64(i) * 100_000_000)
            let arrive = send + .microseconds(100)
            let device = DeviceTime(microseconds: Int64(1_000_000_000 + (Double(arrive.nanoseconds) / 1e3 * 1.0002).rounded()))
            model.addSample(ClockSample(hostSend: send, hostReceive: send + .microseconds(200), deviceReceive: device))
        }
        XCTAssertEqual(model.driftPPM, 200, accuracy: 0.1)
        XCTAssertTrue(model.isConverged)
        XCTAssertLessThan(model.errorEstimate, .microseconds(2))
        let t = HostTime(nanoseconds: 5_000_000_000)
        XCTAssertEqual(Double(model.deviceTime(at: t).microseconds), 1_000_000_000 + 5_000_000 * 1.0002, accuracy: 1.5)
        XCTAssertEqual(model.pathDelay, .microseconds(100))
    }

    func testWindowDropsOldSamples() {
        var configuration = ClockModelConfiguration()
        configuration.windowSamples = 10
        var model = ClockModel(configuration: configuration)
        for i in 0..<25 {
            let send = HostTime(nanoseconds: Int64(i) * 1_000_000)
            model.addSample(ClockSample(hostSend: send, hostReceive: send + .microseconds(50),
                                        deviceReceive: DeviceTime(microseconds: Int64(i) * 1_000 + 25)))
        }
        XCTAssertEqual(model.sampleCount, 10)
        XCTAssertEqual(model.samples.first?.hostSend, HostTime(nanoseconds: 15_000_000))
    }

    func testDelayedSamplesBarelyMoveTheFit() {
        var model = ClockModel()
        for i in 0..<40 {
            let send = HostTime(nanoseconds: Int64(i) * 250_000_000)
            // Every third sample sat 2 ms in a queue on the way back: RTT inflated, device time true.
            let rtt: HostDuration = i % 3 == 0 ? .microseconds(2_200) : .microseconds(200)
            let device = DeviceTime(microseconds: send.nanoseconds / 1_000 + 100 + 7_000_000)
            model.addSample(ClockSample(hostSend: send, hostReceive: send + rtt, deviceReceive: device))
        }
        let t = HostTime(nanoseconds: 9_000_000_000)
        XCTAssertEqual(Double(model.deviceTime(at: t).microseconds), 9_000_000 + 7_000_000, accuracy: 2)
    }

    func testExtenderFollowsWrapsBothWays() {
        var extender = DeviceTimeExtender()
        XCTAssertEqual(extender.extend(0xFFFF_FF00), 0xFFFF_FF00)
        XCTAssertEqual(extender.extend(0x0000_0100), 0x1_0000_0100)
        XCTAssertEqual(extender.extend(0xFFFF_FFF0), 0xFFFF_FFF0, "a reading just before the wrap stays in epoch 0")
        XCTAssertEqual(extender.extend(0x7000_0000), 0x1_7000_0000)
        XCTAssertEqual(DeviceTime(microseconds: 0x2_0000_0000).extending(5), 0x2_0000_0005)
        XCTAssertEqual(DeviceTime(microseconds: 0x2_0000_0000).extending(0xFFFF_FFFF), 0x1_FFFF_FFFF)
        XCTAssertEqual(DeviceTime(microseconds: 100).extending(0xFFFF_FFF0), 0xFFFF_FFF0, "nothing before the origin: the first lap")
    }
}
