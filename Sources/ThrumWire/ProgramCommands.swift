/// PRELOAD_SEGMENT (0x0C): one segment of a preloaded program (PROTOCOL.md §3.1).
public struct PreloadSegmentCommand: Sendable, Hashable {
    /// µs from the program's start (GO's `start`) to this segment's start.
    public var offset: UInt32
    /// Length of the ramp in µs, 1 ... 1 000 000.
    public var duration: UInt32
    /// Amplitude at the segment's start.
    public var from: UInt8
    /// Amplitude at its end.
    public var to: UInt8
    /// 0, or an event id relative to GO's `eventBase` (the device reports `eventBase + event`).
    public var event: UInt32

    /// Creates a preloaded segment.
    public init(offset: UInt32, duration: UInt32, from: UInt8, to: UInt8, event: UInt32 = 0) {
        self.offset = offset
        self.duration = duration
        self.from = from
        self.to = to
        self.event = event
    }
}

/// GO (0x0D): copy a preloaded program into the queue (PROTOCOL.md §3.1). Any lane.
public struct GoCommand: Sendable, Hashable {
    /// Program slot, 0 ..< ``ProtocolConstants/programSlots``.
    public var slot: UInt8
    /// Device time of the program's start.
    public var start: UInt32
    /// Added to every nonzero event id of the program.
    public var eventBase: UInt32

    /// Creates a GO command.
    public init(slot: UInt8, start: UInt32, eventBase: UInt32 = 0) {
        self.slot = slot
        self.start = start
        self.eventBase = eventBase
    }
}

/// ROM_EFFECT (0x0E): play a DRV2605L ROM effect through the driver's sequencer (PROTOCOL.md §3.1).
public struct ROMEffectCommand: Sendable, Hashable {
    /// Device time at which the effect starts.
    public var start: UInt32
    /// ROM waveform id, 1 ... 123.
    public var effect: UInt8
    /// 0, or the haptic event whose onset it marks.
    public var event: UInt32

    /// Creates a ROM effect command.
    public init(start: UInt32, effect: UInt8, event: UInt32 = 0) {
        self.start = start
        self.effect = effect
        self.event = event
    }
}
