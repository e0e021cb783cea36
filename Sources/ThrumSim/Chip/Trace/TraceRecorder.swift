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
    /// Passes `count` empty windows (what ``RestWindows`` leaves out).
    mutating func skipWindows(_ count: UInt64) { windowStart += count * period }

    /// Starts windows on the period grid at or before `time`.
    mutating func align(to time: UInt64) { windowStart = time - time % period }
}

/// The trace windows of a span in which the actuator is at rest to the last bit and not driven:
/// every step adds the same values, so each window closes with the same sample. With coalescing,
/// a run of quiet windows keeps its first and last, so the windows between are passed at once.
struct RestWindows {
    let accelerationG: Double
    let envelopeG: Double
    let rtp: UInt8
    let activity: OutputActivity
    let coalescing: Bool

    /// What the steps from `start` to `end` (µs) would record, window by window.
    func pass(from start: UInt64, to end: UInt64, recorder: inout TraceRecorder, trace: inout SimulationTrace) {
        var now = start
        while now < end {
            recorder.accumulate(volts: 0, accelerationG: accelerationG, envelopeG: envelopeG)
            let windowEnd = recorder.windowEnd
            guard windowEnd <= end else { return }
            now = windowEnd
            recorder.flush(into: &trace, rtp: rtp, activity: activity, coalescingQuiet: coalescing)
            // Whole windows left: when each would only replace the run's last sample, keep the last one.
            let whole = (end - now) / recorder.period
            if whole > 1, coalescing, replacesLast(in: trace, windowAt: now) {
                recorder.skipWindows(whole - 1)
                now = recorder.windowStart
            }
        }
    }

    private func replacesLast(in trace: SimulationTrace, windowAt time: UInt64) -> Bool {
        let n = trace.samples.count
        let sample = TraceSample(
            time: time, drivePeakVolts: 0, accelerationPeakG: abs(accelerationG), accelerationEnvelopeG: envelopeG,
            rtpInput: rtp, activity: activity)
        return n >= 2 && trace.samples[n - 1].isQuiet(like: sample) && trace.samples[n - 2].isQuiet(like: sample)
    }
}
