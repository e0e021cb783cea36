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
}
