import ThrumCompiler
import ThrumSim

/// Builds virtual devices that match an actuator profile: the LRA model gets the profile's
/// physical parameters and the board defaults get the register values derived from its datasheet
/// numbers, as a real board built around that actuator would have.
public enum VirtualDeviceFactory {
    /// A virtual-device configuration for `profile`.
    public static func configuration(
        for profile: ActuatorProfile, crystalErrorPPM: Double = 0, clockStart: UInt32 = 0
    ) -> VirtualDevice.Configuration {
        let registers = DriverRegisters.derive(from: profile)
        return VirtualDevice.Configuration(
            actuator: lraParameters(for: profile),
            board: VirtualDevice.BoardDefaults(
                ratedVoltage: registers.ratedVoltage, overdriveClamp: registers.overdriveClamp,
                driveTime: registers.driveTime, openLoopPeriod: registers.openLoopPeriod),
            crystalErrorPPM: crystalErrorPPM, clockStart: clockStart)
    }

    /// The simulator's physical model of the profile's actuator.
    public static func lraParameters(for profile: ActuatorProfile) -> LRAParameters {
        let model = profile.physical
        return LRAParameters(
            resonanceHz: model.resonanceHz, mechanicalQ: model.mechanicalQ, movingMass: model.movingMassGrams / 1000,
            coilResistance: model.resistanceOhms, coilInductance: model.inductanceMillihenries / 1000,
            forceFactor: model.forceFactor, jigMass: model.jigMassGrams / 1000)
    }
}
