import ThrumHarness
import ThrumEngine
import ThrumLink
import ThrumSim
import ThrumTime

/// Clock-sync quality: after connecting and `settle` seconds of probing, the host's model of the
/// device clock is compared with the true device clock at host instants spread over the next
/// second (between probes, so extrapolation counts), drift ±100 ppm.
public enum ClockBench {
    /// Absolute offset errors (µs) of the model under test and of an NTP-style offset from the
    /// same samples; and the drift error (ppm) at the end.
    public struct Result: Sendable {
        public var errors: [Double] = []
        public var symmetricErrors: [Double] = []
        public var driftErrors: [Double] = []
    }

    /// One run on `link`; instants every 7.3 ms for `measure` seconds.
    public static func run(seed: UInt64, link: any LinkModel, settle: Double = 2, measure: Double = 1) throws -> Result {
        let rig = BenchSetup.rig(seed: seed, link: link)
        let crystal = BenchSetup.crystal(seed: seed)
        let opened = rig.trueNow
        // Sync quality alone: a calibration inside the window (0.35 s of I²C polling on the device)
        // costs the figure about 14 µs at p99 in the simulator; see docs/timing.md.
        try rig.connect(calibrate: false)
        var t = opened
        while t < opened + UInt64(settle * 1e6) {
            t += 50_000
            try rig.idle(until: t)
        }
        var result = Result()
        let end = rig.trueNow + UInt64(measure * 1e6)
        var instant = rig.trueNow
        while instant < end {
            instant += 7_300
            try rig.idle(until: instant)
            result.errors.append(abs(rig.clockError))
            // The NTP-style offset (shortest of the last eight round trips, taken at its middle).
            let truth = Double(rig.device.deviceClock(atTrueTime: rig.trueNow))
            let offset = LinkMatrixBench.ntpOffset(rig.session.link.clock.samples.suffix(8))
            let ntp = UInt32(truncatingIfNeeded: Int64((Double(rig.trueNow) + offset).rounded()))
            result.symmetricErrors.append(abs(Double(Int32(bitPattern: ntp &- UInt32(truth)))))
        }
        result.driftErrors.append(abs(rig.session.link.clock.driftPPM - crystal.ppm))
        return result
    }
}
