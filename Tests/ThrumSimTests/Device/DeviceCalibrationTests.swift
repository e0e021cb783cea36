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

    /// Steady drive at `amplitude`: the braking fraction and the mean acceleration envelope (g)
    /// over 150 ms of a 200 ms segment.
    static func steadyDrive(_ device: VirtualDevice, host: DeviceHost, amplitude: UInt8) -> (braking: Double, envelopeG: Double) {
        let from = device.now + 50_000
        let braking = brakingFraction(device, host: host, amplitude: amplitude)
        return (braking, SimTestSupport.meanEnvelope(device.chip, from: from, to: from + 150_000))
    }

    /// CAPABILITIES `calibrated` as the device reports it now.
    static func calibratedCode(_ host: DeviceHost) -> UInt8? {
        host.sendAnyLane([.identify])
        for (_, message) in host.received.reversed() {
            if case .capabilities(let c) = message { return c.calibrationCode }
        }
        return nil
    }

    /// RESTORE_CALIBRATION on a fresh device (as after a power cycle) with the words another
    /// device's calibration found: no calibration runs (no MODE 7, no buzz), the chip holds the
    /// words, CAPABILITIES says restored (2), and the drive is the calibrated one, not the reset
    /// one. A reset loses it again (the firmware's DEV_RESET at boot).
    func testRestoredCalibrationDrivesLikeTheMeasuredOne() throws {
        let measured = Self.device(hz: 175)
        let measuredHost = DeviceHost(measured)
        measuredHost.run(to: 10_000)
        measuredHost.send([.calibrate])
        measuredHost.run(to: measured.now + 700_000)
        let result = try XCTUnwrap(measuredHost.calibrations.first)
        XCTAssertTrue(result.passed)
        XCTAssertEqual(Self.calibratedCode(measuredHost), 1, "measured")
        let measuredDrive = Self.steadyDrive(measured, host: measuredHost, amplitude: 200)

        let uncalibrated = Self.device(hz: 175)
        let uncalibratedHost = DeviceHost(uncalibrated)
        uncalibratedHost.run(to: 10_000)
        let resetDrive = Self.steadyDrive(uncalibrated, host: uncalibratedHost, amplitude: 200)

        let device = Self.device(hz: 175)
        let host = DeviceHost(device)
        host.run(to: 10_000)
        XCTAssertEqual(Self.calibratedCode(host), 0)
        XCTAssertNotEqual(device.chip.peek(0x19), result.aCalBemf, "the fresh chip holds its reset words")
        let writesBefore = device.chip.trace.registerWrites.count
        host.send([.restoreCalibration(result.words)])
        host.run(to: device.now + 5_000)
        let writes = device.chip.trace.registerWrites[writesBefore...]
        XCTAssertEqual(writes.map(\.register), [0x18, 0x19, 0x1A], "three register writes, nothing else")
        XCTAssertEqual(device.chip.peek(0x18), result.aCalComp)
        XCTAssertEqual(device.chip.peek(0x19), result.aCalBemf)
        XCTAssertEqual(device.chip.peek(0x1A), measured.chip.peek(0x1A), "FEEDBACK_CONTROL as the calibration left it")
        XCTAssertEqual(device.chip.backEMFFullScale, measured.chip.backEMFFullScale)
        XCTAssertTrue(host.calibrations.isEmpty)
        XCTAssertFalse(host.states.contains { $0.knownState == .calibrating }, "no calibration ran")
        XCTAssertEqual(Self.calibratedCode(host), 2, "restored")

        let restoredDrive = Self.steadyDrive(device, host: host, amplitude: 200)
        print(String(format: "steady drive at 200: braking %.0f%% / %.0f%% / %.0f%%, envelope %.3f / %.3f / %.3f g (reset words / measured / restored)",
                     resetDrive.braking * 100, measuredDrive.braking * 100, restoredDrive.braking * 100,
                     resetDrive.envelopeG, measuredDrive.envelopeG, restoredDrive.envelopeG))
        XCTAssertLessThan(restoredDrive.braking, 0.05, "clean steady drive, as after a calibration")
        XCTAssertEqual(restoredDrive.envelopeG, measuredDrive.envelopeG, accuracy: measuredDrive.envelopeG * 0.02)
        XCTAssertGreaterThan(abs(resetDrive.envelopeG - measuredDrive.envelopeG), measuredDrive.envelopeG * 0.05,
                             "the reset words drive differently: restoring matters")

        // A reset of the microcontroller resets the driver (DEV_RESET at boot): the words are lost.
        device.reset()
        host.run(to: device.now + 5_000)
        XCTAssertEqual(device.chip.peek(0x19), uncalibrated.chip.peek(0x19), "A_CAL_BEMF back to its reset value")
        XCTAssertEqual(Self.calibratedCode(host), 0)
    }
}
