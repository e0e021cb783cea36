/// What the DRV2605L output stage is doing at a given moment.
public enum OutputActivity: UInt8, Sendable, Codable {
    /// Standby or reset: outputs off (tied to ground through 15 kΩ, i.e. effectively open).
    case off
    /// Enabled but not driving: Hi-Z.
    case idle
    /// Driving the actuator (closed or open loop, or DC in ERM mode).
    case driving
    /// Closed-loop active braking (antiphase drive).
    case braking
    /// Auto-calibration or diagnostics routine running (GO = 1).
    case calibrating
}
