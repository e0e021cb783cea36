import Foundation

// The module's errors say what happened: `description` and `localizedDescription` carry the message.

extension I2CError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .noDevice(let address): "no device answers at I²C address 0x\(String(address, radix: 16, uppercase: true)) (errno \(errno))"
        case .invalidTransfer: "invalid I²C transfer (errno \(errno))"
        }
    }
    public var errorDescription: String? { description }
}

extension CalibrationFailure: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .notInLRAMode: "auto-calibration needs the driver in LRA mode"
        case .resistanceOutOfRange(let ohms): "actuator resistance \(ohms) Ω is outside the driver's range"
        case .resonanceOutOfRange(let hertz):
            hertz.map { "actuator resonance \($0) Hz is outside the driver's range" } ?? "no actuator resonance found"
        case .backEMFTooLow(let volts): "back-EMF \(volts) V is too low to calibrate"
        case .ratedVoltageUnreachable(let peak): "the rated voltage is out of reach (peak \(peak) V)"
        case .backEMFTooHigh(let volts): "back-EMF \(volts) V is too high to calibrate"
        }
    }
    public var errorDescription: String? { description }
}

extension LRAFitError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .invalidInput(let what): "cannot fit the actuator: \(what)"
        case .forceFactorUndetermined: "cannot fit the actuator: its force factor is undetermined by the measurements"
        case .inconsistent(let what): "cannot fit the actuator: inconsistent measurements (\(what))"
        }
    }
    public var errorDescription: String? { description }
}

extension FaultPlan.ParseError: LocalizedError {
    public var errorDescription: String? { description }
}

extension LibraryStorage.FileError: LocalizedError {
    public var errorDescription: String? { description }
}
