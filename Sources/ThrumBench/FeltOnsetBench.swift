import ThrumHarness
import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumSim

/// Felt onset of transients (case acceleration envelope reaching 50 % of the event's peak, from
/// the LRA model, true time, interpolated between trace windows) against the requested time (the
/// host's planned pattern start plus the event's time), with and without the compiler's
/// felt-onset pre-shift; jittered USB link, driver calibrated first (CALIBRATE).
public enum FeltOnsetBench {
    /// Signed errors, ms.
    public struct Result: Sendable {
        public var compensated: [Double] = []
        public var uncompensated: [Double] = []
    }

    /// Transients of several strengths, 250 ms apart.
    public static func run(seed: UInt64, count: Int) throws -> Result {
        var result = Result()
        for compensate in [true, false] {
            let rig = BenchSetup.rig(seed: seed, link: BenchSetup.jitteredUSB(seed: seed))
            try rig.connect()
            try rig.calibrateDriver()
            try rig.idle(until: rig.trueNow + 1_000_000)
            let pattern = BenchSetup.transients(count: count, spacing: 0.25)
            let program = PatternCompiler(profile: rig.profile, options: CompileOptions(feltOnsetCompensation: compensate)).compile(pattern)
            let report = try rig.play(program: program)
            let start = Double(report.startHostTime.nanoseconds) / 1e3
            for event in program.events where event.played {
                let requested = start + event.requestedTime * 1e6
                guard let felt = FeltOnsetGrid.feltOnset(rig.device.chip.trace, from: requested - 40_000, to: requested + 150_000) else { continue }
                let error = (felt - requested) / 1e3
                if compensate { result.compensated.append(error) } else { result.uncompensated.append(error) }
            }
        }
        return result
    }
}
