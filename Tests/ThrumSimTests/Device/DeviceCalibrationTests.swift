import ThrumWire
import XCTest

@testable import ThrumSim

/// CALIBRATE on the virtual device: the firmware's non-blocking calibration state machine against
/// the DRV2605L model's auto-calibration (reference §2.4).
final class DeviceCalibrationTests: XCTestCase {
    /// The resonances of `ActuatorProfile.builtIn` (PMD C10-100 175 Hz, SEMCO 1030 205 Hz,
    /// Vybronics VG0832012 235 Hz and VG0840001D 170 Hz, LRA0825 240 Hz).
    static let resonances: [Double] = [170, 175, 205, 235, 240]

    /// A device for an LRA at `hz`, its board defaults set for it the way a profile would be
    /// (DRIVE_TIME ≈ half a period, OL_LRA_PERIOD one period).
    static func device(hz: Double) -> VirtualDevice {
        var actuator = LRAParameters.referenceExample
        actuator.resonanceHz = hz
        let halfPeriodMs = 500 / hz
        var board = VirtualDevice.BoardDefaults()
        board.driveTime = UInt8(((halfPeriodMs - 0.5) / 0.1).rounded())
        board.openLoopPeriod = UInt8((1e6 / hz / 98.46).rounded())
        return VirtualDevice(configuration: .init(actuator: actuator, board: board))
    }

    /// Fraction of trace samples spent braking while a constant amplitude plays.
    static func brakingFraction(_ device: VirtualDevice, host: DeviceHost, amplitude: UInt8) -> Double {
        let from = device.now + 50_000
        host.send([.segment(SegmentCommand(start: host.clock &+ 10_000, duration: 200_000, from: amplitude, to: amplitude))])
        host.run(to: device.now + 250_000)
        let samples = device.chip.trace.samples(from: from, to: from + 150_000)
        return Double(samples.filter { $0.activity == .braking }.count) / Double(max(1, samples.count))
    }

    func testCalibrationReportsTheResonanceOfEveryBuiltInActuator() {
        for hz in Self.resonances {
            let device = Self.device(hz: hz)
            let host = DeviceHost(device)
            host.run(to: 10_000)
            let before = Self.brakingFraction(device, host: host, amplitude: 200)
            host.send([.calibrate])
            host.run(to: device.now + 700_000)
            XCTAssertEqual(host.calibrations.count, 1, "\(hz) Hz")
            guard let result = host.calibrations.first else { continue }
            XCTAssertTrue(result.passed, "\(hz) Hz: \(result)")
            let expected = 1e6 / hz / 98.46
            XCTAssertEqual(Double(result.lraPeriod), expected, accuracy: 1.0, "\(hz) Hz: LRA_PERIOD")
            XCTAssertEqual(result.resonanceHz ?? 0, hz, accuracy: hz * 0.03, "\(hz) Hz")
            XCTAssertEqual(result.bemfGain, device.chip.peek(0x1A) & 3, "BEMF_GAIN kept in FEEDBACK_CONTROL")
            XCTAssertEqual(result.aCalBemf, device.chip.peek(0x19))
            XCTAssertEqual(device.chip.peek(0x01), 0x05, "back in RTP mode")
            XCTAssertEqual(host.states.map(\.knownState), [.calibrating, .ready])
            let after = Self.brakingFraction(device, host: host, amplitude: 200)
            print(String(format: "%.0f Hz: LRA_PERIOD %d (%.1f expected), A_CAL_BEMF %d, BEMF_GAIN %d, braking %.0f%% → %.0f%%",
                         hz, result.lraPeriod, expected, result.aCalBemf, result.bemfGain, before * 100, after * 100))
            XCTAssertLessThan(after, 0.05, "\(hz) Hz: steady drive after calibration is clean")
            XCTAssertGreaterThan(before, after)
        }
    }
}
