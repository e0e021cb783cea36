import ThrumLink
import ThrumTime
import XCTest

/// ACK departures (DEPARTURE, PROTOCOL.md §3.7) in the clock model, on synthetic samples with the
/// physics of the `usb-fs` link model: OUT data goes in the next 1 ms frame and lands 100–400 µs
/// into it, the ACK written as it lands waits for the next frame's IN poll, and the host reads it
/// 0.5–8 ms after that. The device crystal is off by ±100 ppm.
final class ClockModelDepartureTests: XCTestCase {
    struct Device {
        var ppm: Double
        var start: Double
        /// Device µs at host µs `t`.
        func clock(_ t: Double) -> Double { start + t * (1 + ppm * 1e-6) }
    }

    /// One round trip: the host's send and receive (µs), the device's rx_time and the device
    /// time at which the IN poll took the ACK.
    struct Trip {
        var send: Double
        var receive: Double
        var rx: DeviceTime
        var departure: DeviceTime
    }

    /// Round trips every 3–9 ms for `seconds`.
    func trips(_ device: Device, seconds: Double, seed: UInt64) -> [Trip] {
        var rng = SplitMix64(seed: seed)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() >> 11) / Double(1 << 53) }
        var t = 1_000_000.0 + uniform(0, 1_000)
        var result: [Trip] = []
        while t < 1_000_000 + seconds * 1e6 {
            let frame = (t / 1_000).rounded(.down) * 1_000 + 1_000
            let landing = frame + uniform(100, 400)
            let poll = frame + 1_000
            result.append(Trip(
                send: t, receive: poll + uniform(500, 8_000),
                rx: DeviceTime(microseconds: Int64(device.clock(landing).rounded(.down))),
                departure: DeviceTime(microseconds: Int64(device.clock(poll).rounded(.down)))))
            t += uniform(3_000, 9_000)
        }
        return result
    }

    /// A model fed `trips`; with `departures`, each ACK's departure is reported right after it.
    func model(_ trips: [Trip], departures: Bool) -> ClockModel {
        var model = ClockModel()
        for trip in trips {
            model.addSample(ClockSample(
                hostSend: HostTime(nanoseconds: Int64(trip.send * 1_000)), hostReceive: HostTime(nanoseconds: Int64(trip.receive * 1_000)),
                deviceReceive: trip.rx))
            if departures {
                XCTAssertTrue(model.addDeparture(ofReceive: trip.rx.wire, wait: trip.departure - trip.rx))
            }
        }
        return model
    }

    func testDeparturesNarrowTheBracketAndMoveTheEstimateToTheTruth() {
        for (seed, ppm) in [(1, 100.0), (2, -100.0)] {
            let device = Device(ppm: ppm, start: 2_000_000_000 + Double(seed) * 7_777)
            let run = trips(device, seconds: 2, seed: UInt64(seed))
            let plain = model(run, departures: false), departed = model(run, departures: true)
            let end = run.last!.receive
            for ahead in [0.0, 20_000, 100_000] {
                let t = end + ahead
                let host = HostTime(nanoseconds: Int64(t * 1_000))
                let truth = device.clock(t)
                // Both brackets hold the truth; the departures take the ACK's wait for the poll
                // (600–900 µs) off the return leg.
                for (name, m) in [("plain", plain), ("departed", departed)] {
                    let bounds = m.bounds(at: host)
                    XCTAssertLessThanOrEqual(Double(bounds.lowerBound.microseconds), truth + 3, "\(name) seed \(seed)")
                    XCTAssertGreaterThanOrEqual(Double(bounds.upperBound.microseconds), truth - 3, "\(name) seed \(seed)")
                }
                let plainWidth = plain.bounds(at: host).upperBound - plain.bounds(at: host).lowerBound
                let departedWidth = departed.bounds(at: host).upperBound - departed.bounds(at: host).lowerBound
                XCTAssertLessThan(departedWidth.microseconds, plainWidth.microseconds - 500, "seed \(seed), \(ahead) µs ahead")
                // The middle of the bracket was off by half the legs' asymmetry; now by half of
                // the rest (the landing against the fastest read).
                let plainError = Double(plain.deviceTime(at: host).microseconds) - truth
                let departedError = Double(departed.deviceTime(at: host).microseconds) - truth
                XCTAssertGreaterThan(abs(plainError), 450, "seed \(seed)")
                XCTAssertLessThan(abs(departedError), 250, "seed \(seed), \(ahead) µs ahead")
            }
            XCTAssertEqual(departed.driftPPM, ppm, accuracy: 60)
        }
    }

    func testADepartureGoesToTheOldestSampleWithItsReceiveTime() {
        var model = ClockModel()
        // Two frames stamped in the same µs (written together), their ACKs read 1 ms apart; the
        // device reports the first ACK's departure.
        let rx = DeviceTime(microseconds: 5_000_300)
        model.addSample(ClockSample(
            hostSend: HostTime(nanoseconds: 4_000_000_000), hostReceive: HostTime(nanoseconds: 4_003_000_000), deviceReceive: rx))
        model.addSample(ClockSample(
            hostSend: HostTime(nanoseconds: 4_000_000_000), hostReceive: HostTime(nanoseconds: 4_004_000_000), deviceReceive: rx))
        let before = model.bounds(at: HostTime(nanoseconds: 4_003_000_000)).lowerBound
        XCTAssertEqual(before.microseconds, 5_000_300, accuracy: 3, "the first ACK's rx_time")
        XCTAssertTrue(model.addDeparture(ofReceive: rx.wire, wait: .microseconds(1_200)))
        XCTAssertEqual(model.samples[0].deviceDeparture, rx + .microseconds(1_200))
        XCTAssertNil(model.samples[1].deviceDeparture)
        XCTAssertEqual(model.samples[0].deviceTimeAtReturn, rx + .microseconds(1_200))
        XCTAssertEqual(model.samples[1].deviceTimeAtReturn, rx)
        // The bracket's lower edge at the first ACK's arrival is now its departure.
        XCTAssertEqual(model.bounds(at: HostTime(nanoseconds: 4_003_000_000)).lowerBound.microseconds, 5_001_500, accuracy: 3)
    }

    func testADepartureOfNoSampleChangesNothing() {
        var model = ClockModel()
        let rx = DeviceTime(microseconds: 9_000_000)
        model.addSample(ClockSample(
            hostSend: HostTime(nanoseconds: 1_000_000_000), hostReceive: HostTime(nanoseconds: 1_004_000_000), deviceReceive: rx))
        let before = model.bounds(at: HostTime(nanoseconds: 1_004_000_000))
        XCTAssertFalse(model.addDeparture(ofReceive: (rx + .microseconds(1)).wire, wait: .microseconds(500)))
        XCTAssertFalse(model.addDeparture(ofReceive: rx.wire, wait: .microseconds(-1)))
        XCTAssertEqual(model.bounds(at: HostTime(nanoseconds: 1_004_000_000)), before)
        XCTAssertNil(model.samples[0].deviceDeparture)
    }
}
