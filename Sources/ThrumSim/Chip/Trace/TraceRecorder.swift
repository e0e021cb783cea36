/// Accumulates per-step peaks into one trace window; plain arithmetic, no allocation per step.
struct TraceRecorder: Sendable {
    let period: UInt64
    private(set) var windowStart: UInt64 = 0
    private var peakVolts = 0.0
    private var peakAcceleration = 0.0
    private var peakEnvelope = 0.0

    init(period: UInt64) { self.period = max(1, period) }

    /// End of the current window, µs.
    var windowEnd: UInt64 { windowStart + period }

    @inline(__always)
    mutating func accumulate(volts: Double, accelerationG: Double, envelopeG: Double) {
        let v = volts < 0 ? -volts : volts
        let a = accelerationG < 0 ? -accelerationG : accelerationG
        if v > peakVolts { peakVolts = v }
        if a > peakAcceleration { peakAcceleration = a }
        if envelopeG > peakEnvelope { peakEnvelope = envelopeG }
    }

    /// Closes the current window into `trace` and opens the next one. With `coalescingQuiet`, a
    /// quiet window (``TraceSample/isQuiet(like:)``) that continues a run of at least two quiet
    /// ones replaces the run's last window instead of being added: a run keeps its first and
    /// last windows, and an idle stretch of any length takes constant memory.
    mutating func flush(into trace: inout SimulationTrace, rtp: UInt8, activity: OutputActivity, coalescingQuiet: Bool = false) {
        let sample = TraceSample(
            time: windowStart, drivePeakVolts: peakVolts, accelerationPeakG: peakAcceleration,
            accelerationEnvelopeG: peakEnvelope, rtpInput: rtp, activity: activity)
        let n = trace.samples.count
        if coalescingQuiet, n >= 2, trace.samples[n - 1].isQuiet(like: sample), trace.samples[n - 2].isQuiet(like: sample) {
            trace.samples[n - 1] = sample
        } else {
            trace.samples.append(sample)
        }
        windowStart += period
        peakVolts = 0; peakAcceleration = 0; peakEnvelope = 0
    }
}

extension TraceRecorder {
    /// Starts windows on the period grid at or before `time`.
    mutating func align(to time: UInt64) { windowStart = time - time % period }
}
