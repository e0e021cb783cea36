import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import ThrumWire
import XCTest

/// ACK departures (DEPARTURE, protocol version 4) from the C firmware on the simulated links,
/// against the simulation's truth: each is when the host's IN transfer took the ACK, never later
/// than the device clock read when the host received it, and they bring the estimate within the
/// link's remaining asymmetry.
final class DepartureTests: XCTestCase {
    private func run(_ rig: VirtualRig, for duration: HostDuration) throws {
        let deadline = rig.clock.now() + duration
        while rig.clock.now() < deadline { try rig.pump.run(rig.session.link, until: deadline) }
    }

    /// Checks every departure in the window against the truth; returns how many samples had one.
    private func checkDepartures(_ rig: VirtualRig, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let clock = rig.session.link.clock
        var departed = 0
        for sample in clock.samples {
            guard let departure = sample.deviceDeparture else { continue }
            departed += 1
            let receivedAt = UInt64(sample.hostReceive.nanoseconds / 1_000)
            let truth = clock.extend(DeviceTime32(rawValue: rig.device.deviceClock(atTrueTime: receivedAt)))
            XCTAssertLessThanOrEqual(departure, truth, "a departure after the ACK was read", file: file, line: line)
            XCTAssertGreaterThan(departure, sample.deviceReceive, "the ACK left after its frame came", file: file, line: line)
        }
        return departed
    }

    func testOnNativeUsbMostSamplesCarryTheirDepartureAndEachPrecedesTheRead() throws {
        for seed: UInt64 in [1, 2] {
            let rig = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: seed)
            try rig.connect(calibrate: false)
            try run(rig, for: .seconds(4))
            XCTAssertEqual(rig.session.identity?.protocolVersion, ProtocolConstants.protocolVersion)
            let samples = rig.session.link.clock.sampleCount
            let departed = checkDepartures(rig)
            XCTAssertGreaterThan(departed, samples * 3 / 4, "seed \(seed): \(departed) of \(samples)")
            XCTAssertEqual(rig.session.link.statistics.departures, departed, "seed \(seed): none fell out of the window yet")
            // On this model the IN poll is at the start of a frame, 600–900 µs after the OUT landed.
            for sample in rig.session.link.clock.samples.suffix(50) {
                guard let departure = sample.deviceDeparture else { continue }
                let wait = (departure - sample.deviceReceive).microseconds
                XCTAssertTrue((550...1_950).contains(wait), "seed \(seed): waited \(wait) µs")
            }
        }
    }

    func testBehindABridgeOrWithoutTheFramesThereAreNone() throws {
        for profile in [try XCTUnwrap(LinkCatalogue.profile(named: "ftdi-1m-1ms")), LinkCatalogue.usbFullSpeed.withoutStartOfFrames] {
            let rig = VirtualRig(link: profile, seed: 5)
            try rig.connect(calibrate: false)
            try run(rig, for: .seconds(3))
            XCTAssertEqual(rig.session.link.statistics.departures, 0, profile.name)
            XCTAssertTrue(rig.session.link.clock.samples.allSatisfy { $0.deviceDeparture == nil }, profile.name)
        }
    }

    func testLostAndCorruptedRepliesNeverDateADepartureLate() throws {
        // Replies lost or damaged after the IN transfer took them: the device still counts their
        // bytes as taken, so no later transfer's completion is pinned on an earlier ACK.
        let lossy = LinkProfile(name: "usb-fs-lossy", summary: "usb-fs losing 10 % of replies, corrupting 5 %") { seed in
            LossyLink(base: AnyLinkModel(LinkCatalogue.usbFullSpeed.make(seed)), loss: 0.1, corruption: 0.05, directions: [.deviceToHost], seed: seed)
        }
        for seed: UInt64 in [3, 4] {
            let rig = VirtualRig(link: lossy, seed: seed)
            try rig.connect(calibrate: false)
            try run(rig, for: .seconds(3))
            XCTAssertGreaterThan(checkDepartures(rig), 50, "seed \(seed)")
        }
    }

    func testOnNativeUsbEventsLandWithinAQuarterMillisecondOfTheIntentFromTheFirst() throws {
        // As `thrum play` does: the pattern starts as soon as the engine has connected.
        let pattern = HapticPattern(
            events: (0..<30).map { TestPatterns.transient(at: Double($0) * 0.12, sharpness: nil) }, parameters: [], parameterCurves: [])
        var errors: [Double] = []
        for seed: UInt64 in [1, 2, 3] {
            let rig = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: seed)
            let report = try rig.play(pattern)
            for event in report.events {
                let truth = try XCTUnwrap(event.trueOnsetTime, "seed \(seed)")
                errors.append(abs(truth - event.requestedTime))
                let onset = try XCTUnwrap(event.onsetTime), bound = try XCTUnwrap(event.onsetBound)
                XCTAssertLessThanOrEqual(abs(truth - onset), bound + 1e-6, "seed \(seed): the bound holds the truth")
            }
        }
        errors.sort()
        let p99 = errors[min(errors.count - 1, Int(Double(errors.count) * 0.99))]
        // Without departures the ACK's wait for the IN poll put the truth 0.3–0.5 ms early.
        XCTAssertLessThanOrEqual(p99, 250e-6, "alignment p99 from the first event")
    }
}

/// A session learns from its port what the line is: the simulated bridges say they are UARTs at
/// the rate the host set, native USB and the ideal link say nothing.
final class LineByteTimeSessionTests: XCTestCase {
    func testTheSessionTakesTheLinesByteTimeFromThePort() throws {
        let expected: [String: Double?] = [
            "ideal": nil, "usb-fs": nil, "usb-fs-stalls": nil, "ftdi-115200-16ms": 1e7 / 115_200, "ftdi-115200-1ms": 1e7 / 115_200,
            "ftdi-1m-1ms": 10, "ch340": 1e7 / 115_200,
        ]
        for profile in LinkCatalogue.all {
            let rig = VirtualRig(link: profile, seed: 1)
            let known = rig.session.link.configuration.clock.lineByteTime
            switch try XCTUnwrap(expected[profile.name], profile.name) {
            case .some(let byteTime): XCTAssertEqual(try XCTUnwrap(known, profile.name), byteTime, accuracy: 1e-9, profile.name)
            case .none: XCTAssertNil(known, profile.name)
            }
        }
    }
}
