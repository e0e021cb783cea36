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

    /// µs to start a marked ramp of `duration` up from 0 earlier, keeping its end, so that its
    /// first drive lands where the ramp was meant to begin: the lengthened ramp's own first-drive
    /// offset (``firstDriveOffset(duration:from:to:)`` of `duration + lead`) equals the lead. The
    /// lengthened ramp is shallower and crosses later than the original one (by `lead / (2 × to)`
    /// with the original's offset as the lead), so the lead is the least fixed point of that
    /// offset: `ceil(duration / (2 × to − 1))` (to = 1: the duration itself); 0 for a segment that
    /// drives at once. The sum can pass the device's 1 s limit: ``led(duration:from:to:)`` keeps
    /// within it.
    public static func startLead(duration: UInt32, from: UInt8, to: UInt8) -> UInt32 {
        guard firstDriveOffset(duration: duration, from: from, to: to) > 0 else { return 0 }
        // ceil((d + L) / (2 to)) = L  ⇔  d / (2 to − 1) ≤ L < (d + 2 to) / (2 to − 1): an interval
        // longer than 1 whose least integer is ceil(d / (2 to − 1)); at most d.
        let k = 2 * UInt64(to) - 1
        return UInt32((UInt64(duration) + k - 1) / k)
    }

    /// A marked ramp as the device is sent it (``led(duration:from:to:)``): a marked part from
    /// `lead` µs before the ramp's start, and the rest of the ramp after it, unmarked, when the
    /// lengthened ramp would pass the device's 1 s limit.
    public struct Led: Sendable, Hashable {
        /// µs the marked part starts before the ramp did.
        public var lead: UInt32
        /// The marked part's length, amplitudes `from` → `markedTo`.
        public var markedDuration: UInt32
        /// The marked part's end amplitude.
        public var markedTo: UInt8
        /// The unmarked rest, starting where the marked part ends and ending where the ramp did,
        /// `markedTo` → the ramp's `to`; 0 when the marked part is the whole ramp.
        public var restDuration: UInt32

        /// A segment sent as it is: `duration` µs up to `to`, no lead, nothing split off.
        public init(whole duration: UInt32, to: UInt8) {
            self.init(lead: 0, markedDuration: duration, markedTo: to, restDuration: 0)
        }

        /// Creates a led ramp from its parts.
        public init(lead: UInt32, markedDuration: UInt32, markedTo: UInt8, restDuration: UInt32) {
            self.lead = lead
            self.markedDuration = markedDuration
            self.markedTo = markedTo
            self.restDuration = restDuration
        }
    }

    /// How a marked ramp of `duration` (at most 1 s) is sent so that its first drive lands on its
    /// start (PROTOCOL.md §4.1): a ramp up from 0 starts ``startLead(duration:from:to:)`` earlier
    /// and keeps its end. When that would make it longer than a segment may be
    /// (``ProtocolConstants/segmentMaxDurationMicroseconds``: a ramp to a low amplitude near 1 s
    /// long; to = 1 doubles it), the ramp is split at its middle: the first half, up to the
    /// ramp's value there, is led by its own lead (at most its length, so it fits), and the
    /// second half follows unmarked. Either way the marked part's first drive is exactly its
    /// lead after its start. Any other segment is sent as it is.
    public static func led(duration: UInt32, from: UInt8, to: UInt8) -> Led {
        let whole = Led(whole: duration, to: to)
        let lead = startLead(duration: duration, from: from, to: to)
        guard lead > 0 else { return whole }
        if UInt64(duration) + UInt64(lead) <= UInt64(ProtocolConstants.segmentMaxDurationMicroseconds) {
            return Led(lead: lead, markedDuration: duration + lead, markedTo: to, restDuration: 0)
        }
        // Over the limit: duration > 1 s × (2 to − 1) / (2 to) ≥ 0.5 s, so the half is ≥ 2 µs.
        let half = duration / 2
        // The ramp's value at the half, rounded half up, at least 1 (a ramp to 1 is at ½ there).
        let middle = UInt8(max(1, (2 * UInt64(to) * UInt64(half) + UInt64(duration)) / (2 * UInt64(duration))))
        let halfLead = startLead(duration: half, from: 0, to: middle)
        guard halfLead > 0, UInt64(half) + UInt64(halfLead) <= UInt64(ProtocolConstants.segmentMaxDurationMicroseconds) else {
            return whole
        }
        return Led(lead: halfLead, markedDuration: half + halfLead, markedTo: middle, restDuration: duration - half)
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
