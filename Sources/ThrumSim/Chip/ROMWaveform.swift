/// Approximate envelopes of the DRV2605L ROM effects 1–123, for the chip model's sequencer.
///
/// **TI does not publish the ROM waveforms** (nor their durations, apart from what the names say:
/// #15 750 ms, #16 1000 ms). These are Thrum's approximations from the effect names — the same
/// ones `ThrumPattern.ROMEffect` uses for previews, duplicated here in compact form because
/// ThrumSim may not depend on the layers above it. A test in EndToEndTests (which sees both
/// modules) checks that the two tables agree. A real DRV2605L plays its own waveforms.
public enum ROMWaveform: Sendable, Equatable {
    /// `count` pulses of `lengthMs` at `percent` of full scale, onsets `intervalMs` apart.
    case pulses(count: Int, lengthMs: Int, intervalMs: Int, percent: Int)
    /// Constant drive at `percent` for `durationMs`.
    case steady(durationMs: Int, percent: Int)
    /// A linear ramp of the drive level from `fromPercent` to `toPercent` over `durationMs`.
    case ramp(durationMs: Int, fromPercent: Int, toPercent: Int)

    /// Length of the effect in µs.
    public var durationMicros: UInt64 {
        switch self {
        case .pulses(let count, let length, let interval, _): return UInt64((count - 1) * interval + length) * 1000
        case .steady(let d, _), .ramp(let d, _, _): return UInt64(d) * 1000
        }
    }

    /// Closed-loop drive level (fraction of full scale) `t` µs into the effect; 0 outside it.
    public func level(atMicros t: UInt64) -> Double {
        guard t < durationMicros else { return 0 }
        switch self {
        case .pulses(_, let length, let interval, let percent):
            let phase = interval > 0 ? t % UInt64(interval * 1000) : t
            return phase < UInt64(length * 1000) ? Double(percent) / 100 : 0
        case .steady(_, let percent):
            return Double(percent) / 100
        case .ramp(let d, let from, let to):
            let x = Double(t) / Double(d * 1000)
            return (Double(from) + (Double(to) - Double(from)) * x) / 100
        }
    }

    /// The waveform of ROM effect `id` (1…123), nil otherwise.
    public static func effect(_ id: UInt8) -> ROMWaveform? {
        guard id >= 1, Int(id) <= table.count else { return nil }
        return table[Int(id) - 1]
    }

    /// Effects 1…123 in order (generated from ThrumPattern's ROMEffect table).
    public static let table: [ROMWaveform] = [
        .pulses(count: 1, lengthMs: 20, intervalMs: 0, percent: 100),  // 1
        .pulses(count: 1, lengthMs: 20, intervalMs: 0, percent: 60),  // 2
        .pulses(count: 1, lengthMs: 20, intervalMs: 0, percent: 30),  // 3
        .pulses(count: 1, lengthMs: 12, intervalMs: 0, percent: 100),  // 4
        .pulses(count: 1, lengthMs: 12, intervalMs: 0, percent: 60),  // 5
        .pulses(count: 1, lengthMs: 12, intervalMs: 0, percent: 30),  // 6
        .pulses(count: 1, lengthMs: 40, intervalMs: 0, percent: 100),  // 7
        .pulses(count: 1, lengthMs: 40, intervalMs: 0, percent: 60),  // 8
        .pulses(count: 1, lengthMs: 40, intervalMs: 0, percent: 30),  // 9
        .pulses(count: 2, lengthMs: 20, intervalMs: 60, percent: 100),  // 10
        .pulses(count: 2, lengthMs: 20, intervalMs: 60, percent: 60),  // 11
        .pulses(count: 3, lengthMs: 20, intervalMs: 60, percent: 100),  // 12
        .steady(durationMs: 200, percent: 60),  // 13
        .steady(durationMs: 300, percent: 100),  // 14
        .steady(durationMs: 750, percent: 100),  // 15
        .steady(durationMs: 1000, percent: 100),  // 16
        .pulses(count: 1, lengthMs: 20, intervalMs: 0, percent: 100),  // 17
        .pulses(count: 1, lengthMs: 20, intervalMs: 0, percent: 80),  // 18
        .pulses(count: 1, lengthMs: 20, intervalMs: 0, percent: 60),  // 19
        .pulses(count: 1, lengthMs: 20, intervalMs: 0, percent: 30),  // 20
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 100),  // 21
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 80),  // 22
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 60),  // 23
        .pulses(count: 1, lengthMs: 10, intervalMs: 0, percent: 100),  // 24
        .pulses(count: 1, lengthMs: 10, intervalMs: 0, percent: 80),  // 25
        .pulses(count: 1, lengthMs: 10, intervalMs: 0, percent: 60),  // 26
        .pulses(count: 2, lengthMs: 20, intervalMs: 60, percent: 100),  // 27
        .pulses(count: 2, lengthMs: 20, intervalMs: 60, percent: 80),  // 28
        .pulses(count: 2, lengthMs: 20, intervalMs: 60, percent: 60),  // 29
        .pulses(count: 2, lengthMs: 20, intervalMs: 60, percent: 30),  // 30
        .pulses(count: 2, lengthMs: 15, intervalMs: 60, percent: 100),  // 31
        .pulses(count: 2, lengthMs: 15, intervalMs: 60, percent: 80),  // 32
        .pulses(count: 2, lengthMs: 15, intervalMs: 60, percent: 60),  // 33
        .pulses(count: 2, lengthMs: 10, intervalMs: 60, percent: 100),  // 34
        .pulses(count: 2, lengthMs: 10, intervalMs: 60, percent: 80),  // 35
        .pulses(count: 2, lengthMs: 10, intervalMs: 60, percent: 60),  // 36
        .pulses(count: 2, lengthMs: 20, intervalMs: 120, percent: 100),  // 37
        .pulses(count: 2, lengthMs: 20, intervalMs: 120, percent: 80),  // 38
        .pulses(count: 2, lengthMs: 20, intervalMs: 120, percent: 60),  // 39
        .pulses(count: 2, lengthMs: 20, intervalMs: 120, percent: 30),  // 40
        .pulses(count: 2, lengthMs: 15, intervalMs: 120, percent: 100),  // 41
        .pulses(count: 2, lengthMs: 15, intervalMs: 120, percent: 80),  // 42
        .pulses(count: 2, lengthMs: 15, intervalMs: 120, percent: 60),  // 43
        .pulses(count: 2, lengthMs: 10, intervalMs: 120, percent: 100),  // 44
        .pulses(count: 2, lengthMs: 10, intervalMs: 120, percent: 80),  // 45
        .pulses(count: 2, lengthMs: 10, intervalMs: 120, percent: 60),  // 46
        .steady(durationMs: 250, percent: 100),  // 47
        .steady(durationMs: 250, percent: 80),  // 48
        .steady(durationMs: 250, percent: 60),  // 49
        .steady(durationMs: 250, percent: 40),  // 50
        .steady(durationMs: 250, percent: 20),  // 51
        .pulses(count: 4, lengthMs: 60, intervalMs: 120, percent: 100),  // 52
        .pulses(count: 4, lengthMs: 60, intervalMs: 120, percent: 60),  // 53
        .pulses(count: 4, lengthMs: 40, intervalMs: 120, percent: 100),  // 54
        .pulses(count: 4, lengthMs: 40, intervalMs: 120, percent: 60),  // 55
        .pulses(count: 4, lengthMs: 20, intervalMs: 120, percent: 100),  // 56
        .pulses(count: 4, lengthMs: 20, intervalMs: 120, percent: 60),  // 57
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 100),  // 58
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 80),  // 59
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 60),  // 60
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 40),  // 61
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 20),  // 62
        .pulses(count: 1, lengthMs: 15, intervalMs: 0, percent: 10),  // 63
        .steady(durationMs: 250, percent: 100),  // 64
        .steady(durationMs: 250, percent: 80),  // 65
        .steady(durationMs: 250, percent: 60),  // 66
        .steady(durationMs: 250, percent: 40),  // 67
        .steady(durationMs: 250, percent: 20),  // 68
        .steady(durationMs: 250, percent: 10),  // 69
        .ramp(durationMs: 1000, fromPercent: 100, toPercent: 0),  // 70
        .ramp(durationMs: 1000, fromPercent: 100, toPercent: 0),  // 71
        .ramp(durationMs: 500, fromPercent: 100, toPercent: 0),  // 72
        .ramp(durationMs: 500, fromPercent: 100, toPercent: 0),  // 73
        .ramp(durationMs: 250, fromPercent: 100, toPercent: 0),  // 74
        .ramp(durationMs: 250, fromPercent: 100, toPercent: 0),  // 75
        .ramp(durationMs: 1000, fromPercent: 100, toPercent: 0),  // 76
        .ramp(durationMs: 1000, fromPercent: 100, toPercent: 0),  // 77
        .ramp(durationMs: 500, fromPercent: 100, toPercent: 0),  // 78
        .ramp(durationMs: 500, fromPercent: 100, toPercent: 0),  // 79
        .ramp(durationMs: 250, fromPercent: 100, toPercent: 0),  // 80
        .ramp(durationMs: 250, fromPercent: 100, toPercent: 0),  // 81
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 100),  // 82
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 100),  // 83
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 100),  // 84
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 100),  // 85
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 100),  // 86
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 100),  // 87
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 100),  // 88
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 100),  // 89
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 100),  // 90
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 100),  // 91
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 100),  // 92
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 100),  // 93
        .ramp(durationMs: 1000, fromPercent: 50, toPercent: 0),  // 94
        .ramp(durationMs: 1000, fromPercent: 50, toPercent: 0),  // 95
        .ramp(durationMs: 500, fromPercent: 50, toPercent: 0),  // 96
        .ramp(durationMs: 500, fromPercent: 50, toPercent: 0),  // 97
        .ramp(durationMs: 250, fromPercent: 50, toPercent: 0),  // 98
        .ramp(durationMs: 250, fromPercent: 50, toPercent: 0),  // 99
        .ramp(durationMs: 1000, fromPercent: 50, toPercent: 0),  // 100
        .ramp(durationMs: 1000, fromPercent: 50, toPercent: 0),  // 101
        .ramp(durationMs: 500, fromPercent: 50, toPercent: 0),  // 102
        .ramp(durationMs: 500, fromPercent: 50, toPercent: 0),  // 103
        .ramp(durationMs: 250, fromPercent: 50, toPercent: 0),  // 104
        .ramp(durationMs: 250, fromPercent: 50, toPercent: 0),  // 105
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 50),  // 106
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 50),  // 107
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 50),  // 108
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 50),  // 109
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 50),  // 110
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 50),  // 111
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 50),  // 112
        .ramp(durationMs: 1000, fromPercent: 0, toPercent: 50),  // 113
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 50),  // 114
        .ramp(durationMs: 500, fromPercent: 0, toPercent: 50),  // 115
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 50),  // 116
        .ramp(durationMs: 250, fromPercent: 0, toPercent: 50),  // 117
        .steady(durationMs: 5000, percent: 100),  // 118
        .steady(durationMs: 500, percent: 50),  // 119
        .steady(durationMs: 500, percent: 40),  // 120
        .steady(durationMs: 500, percent: 30),  // 121
        .steady(durationMs: 500, percent: 20),  // 122
        .steady(durationMs: 500, percent: 10),  // 123
    ]
}
