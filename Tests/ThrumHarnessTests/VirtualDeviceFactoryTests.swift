import ThrumCompiler
import ThrumSim
import XCTest

@testable import ThrumHarness

final class VirtualDeviceFactoryTests: XCTestCase {
    func testEveryBuiltInProfileBuildsAMatchingVirtualDevice() {
        for profile in ActuatorProfile.builtIn {
            let configuration = VirtualDeviceFactory.configuration(for: profile)
            let registers = DriverRegisters.derive(from: profile)
            XCTAssertEqual(configuration.actuator.resonanceHz, profile.physical.resonanceHz, profile.id)
            XCTAssertEqual(configuration.actuator.movingMass, profile.physical.movingMassGrams / 1000, accuracy: 1e-12)
            XCTAssertEqual(configuration.board.ratedVoltage, registers.ratedVoltage, profile.id)
            XCTAssertEqual(configuration.board.overdriveClamp, registers.overdriveClamp, profile.id)
            XCTAssertEqual(configuration.board.driveTime, registers.driveTime, profile.id)
        }
    }

    func testTheVirtualDeviceResonatesAtTheProfilesFrequency() {
        // Drive the chip directly at full RTP and read back the resonance period it tracked.
        for profile in ActuatorProfile.builtIn {
            let device = VirtualDevice(configuration: VirtualDeviceFactory.configuration(for: profile))
            XCTAssertEqual(device.chip.peek(DRV2605LRegister.mode.rawValue) & 0x07, 5, "\(profile.id): RTP mode after set-up")
            _ = device.chip.write(bytes: [DRV2605LRegister.rtpInput.rawValue, 255], at: device.now)
            device.advance(to: device.now + 100_000)
            let period = Double(device.chip.peek(DRV2605LRegister.lraPeriod.rawValue)) * 98.46e-6
            XCTAssertEqual(1 / period, profile.physical.resonanceHz, accuracy: profile.physical.resonanceHz * 0.05, profile.id)
        }
    }
}
