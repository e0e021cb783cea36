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

    /// µs from `start` to the segment's first drive (PROTOCOL.md §4.1): for a ramp up from 0,
    /// the instant its rounded amplitude reaches 1, `ceil(duration / (2 × to))`, when that falls
    /// inside the segment; 0 for every other segment.
    public static func firstDriveOffset(duration: UInt32, from: UInt8, to: UInt8) -> UInt32 {
        guard from == 0, to > 0 else { return 0 }
        let e1 = (UInt64(duration) + 2 * UInt64(to) - 1) / (2 * UInt64(to))
        return e1 < UInt64(duration) ? UInt32(e1) : 0
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
