/// One decimated trace window.
public struct TraceSample: Sendable, Equatable, Codable {
    /// Start of the window, µs of device time; the window covers [time, time + period).
    public var time: UInt64
    /// Peak |coil voltage| in the window (the drive voltage envelope), volts.
    public var drivePeakVolts: Double
    /// Peak |case acceleration| in the window, G. Ripples at the carrier: a 1 ms window sees
    /// only ≈ 74° of a 205 Hz cycle, so it can read as low as 60 % of the true amplitude.
    public var accelerationPeakG: Double
    /// Case-acceleration envelope, G: the largest oscillator amplitude (m/M)·ω₀·√((ω₀x)² + ẋ²)
    /// in the window. Smooth; used for felt onsets and envelope comparisons.
    public var accelerationEnvelopeG: Double
    /// RTP_INPUT at the end of the window.
    public var rtpInput: UInt8
    /// What the output stage was doing at the end of the window.
    public var activity: OutputActivity

    /// The acceleration below which a window without drive counts as quiet, G (1 nG: far below
    /// anything felt or plotted; the ring-down of an LRA takes seconds to decay to exactly 0).
    public static let quietAcceleration = 1e-9

    /// Whether this window and `other` are both quiet — no drive, acceleration below
    /// ``quietAcceleration`` — with the same RTP_INPUT and output activity.
    public func isQuiet(like other: TraceSample) -> Bool {
        func quiet(_ s: TraceSample) -> Bool {
            s.drivePeakVolts == 0 && s.accelerationPeakG < Self.quietAcceleration && s.accelerationEnvelopeG < Self.quietAcceleration
        }
        return quiet(self) && quiet(other) && rtpInput == other.rtpInput && activity == other.activity
    }
}

/// A register write as the chip saw it (one entry per byte of an auto-incrementing write).
public struct RegisterWrite: Sendable, Equatable, Codable {
    /// Device time of the write, µs.
    public var time: UInt64
    /// Register address.
    public var register: UInt8
    /// Value written.
    public var value: UInt8
}

/// What the virtual DRV2605L and its LRA did: decimated envelopes, every register write, and
/// the exact instants the output stage started driving after being idle.
public struct SimulationTrace: Sendable, Codable {
    /// Window length of ``samples``, µs.
    public var samplePeriodMicros: UInt64
    /// Decimated windows in time order (with ``DRV2605LModel/coalescesQuietWindows`` a run of
    /// quiet windows keeps only its first and last, so times may jump across an idle stretch).
    public var samples: [TraceSample] = []
    /// Every register write in time order.
    public var registerWrites: [RegisterWrite] = []
    /// Device times (µs) at which the output stage applied drive after being idle or off.
    public var driveOnsets: [UInt64] = []

    /// Creates an empty trace.
    public init(samplePeriodMicros: UInt64) { self.samplePeriodMicros = samplePeriodMicros }

    /// The samples whose windows start in [from, to).
    public func samples(from: UInt64, to: UInt64) -> ArraySlice<TraceSample> {
        let lo = firstIndex(atOrAfter: from)
        let hi = max(lo, firstIndex(atOrAfter: to))
        return samples[lo..<hi]
    }

    /// Acceleration envelope (time µs, G) for windows starting in [from, to).
    public func accelerationEnvelope(from: UInt64, to: UInt64) -> [(time: UInt64, g: Double)] {
        samples(from: from, to: to).map { ($0.time, $0.accelerationEnvelopeG) }
    }

    /// Drive-voltage envelope (time µs, peak volts) for windows starting in [from, to).
    public func driveEnvelope(from: UInt64, to: UInt64) -> [(time: UInt64, volts: Double)] {
        samples(from: from, to: to).map { ($0.time, $0.drivePeakVolts) }
    }

    /// Largest acceleration envelope in [from, to), G (0 when empty).
    public func peakAcceleration(from: UInt64, to: UInt64) -> Double {
        samples(from: from, to: to).reduce(0) { max($0, $1.accelerationEnvelopeG) }
    }

    /// The first window at or after `after` whose acceleration envelope reaches `threshold` G;
    /// returns the window's end (the instant by which the threshold was certainly reached), µs.
    public func feltOnset(after: UInt64, threshold: Double) -> UInt64? {
        for s in samples[firstIndex(atOrAfter: after)...] where s.accelerationEnvelopeG >= threshold {
            return s.time + samplePeriodMicros
        }
        return nil
    }

    /// Felt onset at `fraction` (e.g. 0.5) of the peak envelope reached in [after, until).
    public func feltOnset(after: UInt64, fractionOfPeak fraction: Double, until: UInt64) -> UInt64? {
        let peak = peakAcceleration(from: after, to: until)
        guard peak > 0 else { return nil }
        return feltOnset(after: after, threshold: fraction * peak)
    }

    /// The completion time (µs) of the first non-zero write to RTP_INPUT, or of a GO write (a ROM
    /// effect through the sequencer), at or after `time`: when the chip was first told to drive.
    /// The device's ONSET `time` is the same instant read on the device's own clock.
    public func firstDriveCommand(atOrAfter time: UInt64) -> UInt64? {
        var lo = 0, hi = registerWrites.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if registerWrites[mid].time < time { lo = mid + 1 } else { hi = mid }
        }
        let rtp = DRV2605LRegister.rtpInput.rawValue, go = DRV2605LRegister.go.rawValue
        for w in registerWrites[lo...] where (w.register == rtp || w.register == go) && w.value & (w.register == go ? 1 : 0xFF) != 0 {
            return w.time
        }
        return nil
    }

    /// The first drive onset at or after `time`, µs.
    public func driveOnset(after time: UInt64) -> UInt64? { driveOnsets.first { $0 >= time } }

    /// The first window at or after `after` from which the envelope stays below `threshold` G
    /// for the rest of the trace; returns that window's start, µs.
    public func settledBelow(threshold: Double, after: UInt64) -> UInt64? {
        var candidate: UInt64?
        for s in samples[firstIndex(atOrAfter: after)...] {
            if s.accelerationEnvelopeG >= threshold { candidate = nil } else if candidate == nil { candidate = s.time }
        }
        return candidate
    }

    private func firstIndex(atOrAfter t: UInt64) -> Int {
        var lo = 0, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].time < t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
