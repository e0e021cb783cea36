/// SEGMENT (0x04): a linear amplitude ramp on the device timeline (PROTOCOL.md §3.1).
public struct SegmentCommand: Sendable, Hashable {
    /// Device time (µs, 32-bit wrapping) at which the ramp begins.
    public var start: UInt32
    /// Length of the ramp in µs, 1 ... 1 000 000.
    public var duration: UInt32
    /// Amplitude at `start` (0 = no drive, 255 = full scale).
    public var from: UInt8
    /// Amplitude at `start + duration`.
    public var to: UInt8
    /// 0, or the haptic event whose onset this segment marks (the device reports an ONSET).
    public var event: UInt32

    /// Creates a segment command.
    public init(start: UInt32, duration: UInt32, from: UInt8, to: UInt8, event: UInt32 = 0) {
        self.start = start
        self.duration = duration
        self.from = from
        self.to = to
        self.event = event
    }
}

/// CONFIGURE_DRIVER (0x05): DRV2605L values for a closed-loop LRA (PROTOCOL.md §3.1).
public struct DriverConfiguration: Sendable, Hashable {
    /// RATED_VOLTAGE register value.
    public var ratedVoltage: UInt8
    /// OD_CLAMP register value.
    public var odClamp: UInt8
    /// DRIVE_TIME field value.
    public var driveTime: UInt8
    /// OL_LRA_PERIOD register value.
    public var olLraPeriod: UInt8

    /// Creates a driver configuration.
    public init(ratedVoltage: UInt8, odClamp: UInt8, driveTime: UInt8, olLraPeriod: UInt8) {
        self.ratedVoltage = ratedVoltage
        self.odClamp = odClamp
        self.driveTime = driveTime
        self.olLraPeriod = olLraPeriod
    }
}
