/// Board-level facts and simulation settings of a virtual DRV2605L.
public struct DRV2605LConfiguration: Sendable, Codable, Equatable {
    /// VDD in volts. 5.0 V: a USB-powered bench rig, and inside the 2.0–5.2 V range (§0).
    /// The output can never exceed it; supply compensation keeps amplitude independent of it
    /// otherwise (§2.1).
    public var supplyVoltage: Double = 5.0
    /// 7-bit I²C address that acknowledges.
    public var address: UInt8 = 0x5A
    /// Largest internal integration step, µs.
    public var internalStepMicros: UInt64 = 20
    /// Trace window, µs (1 kHz by default).
    public var traceSamplePeriodMicros: UInt64 = 1000
    /// Whether envelopes are recorded (register writes and drive onsets always are).
    public var recordsEnvelopes = true
    /// Delay from the register write that requests drive (RTP in mode 5) to the first output
    /// pulse when the stage was idle, µs [INF: the datasheet gives no figure; one internal
    /// control tick].
    public var driveStartLatencyMicros: UInt64 = 40
    /// Delay after leaving STANDBY before the stage can drive, µs [INF: "< 1 ms", §2.5].
    public var standbyExitMicros: UInt64 = 250
    /// Duration of a diagnostics run (MODE 6 + GO), µs [INF: undocumented, §2.5].
    public var diagnosticsMicros: UInt64 = 100_000

    /// The defaults described on each property.
    public init() {}
}
