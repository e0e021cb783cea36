import ThrumHarness
import ThrumCompiler
import ThrumPattern
import ThrumTime

/// Compiler throughput in events per second (meaningful in a release build) at several pattern
/// sizes, to see how it grows. Each size is compiled many times and reported as the median run
/// with its spread (quartiles and extremes), so one lucky or disturbed run does not make the
/// figure. Each run is timed twice: on the wall clock, and on the thread's CPU time, which does
/// not count the time other processes took the core (on a loaded machine a run longer than a
/// scheduler slice is preempted more often than a short one, and the wall figure falls with size
/// for that reason alone).
public enum CompileThroughputBench {
    /// The runs of one size.
    public struct Result: Sendable, Equatable {
        /// Events in the pattern.
        public var events: Int
        /// Timed compiles (after one warm-up).
        public var runs: Int
        /// Events per second of the median run.
        public var median: Double
        /// Events per second at the 25th and 75th percentiles of the runs' throughput.
        public var p25: Double
        public var p75: Double
        /// The slowest and the fastest run, events per second.
        public var min: Double
        public var max: Double
        /// The same runs timed on the thread's CPU time (`ThreadCPUClock`): the median and the
        /// 25th and 75th percentiles, events per CPU second.
        public var cpuMedian: Double = 0
        public var cpuP25: Double = 0
        public var cpuP75: Double = 0
    }

    /// Compiles each size at least `minimumRuns` times and for at least `minimumSeconds` (at most
    /// 2 000 runs), timing each compile on `clock` and on `cpuClock`.
    public static func run(
        sizes: [Int], minimumRuns: Int = 11, minimumSeconds: Double = 0.3, clock: any HostClock = MonotonicClock(),
        cpuClock: any HostClock = ThreadCPUClock()
    ) -> [Result] {
        let compiler = PatternCompiler(profile: .default)
        return sizes.map { n in
            let pattern = mixedPattern(events: n)
            _ = compiler.compile(pattern)  // warm-up
            var durations: [Double] = [], cpuDurations: [Double] = []
            var total = 0.0
            repeat {
                let cpuStart = cpuClock.now()
                let start = clock.now()
                _ = compiler.compile(pattern)
                let seconds = (clock.now() - start).seconds
                cpuDurations.append((cpuClock.now() - cpuStart).seconds)
                durations.append(seconds)
                total += seconds
            } while (total < minimumSeconds || durations.count < minimumRuns) && durations.count < 2_000
            var result = summarize(events: n, durations: durations)
            let cpu = summarize(events: n, durations: cpuDurations)
            (result.cpuMedian, result.cpuP25, result.cpuP75) = (cpu.median, cpu.p25, cpu.p75)
            return result
        }
    }

    /// The median throughput of runs that took `durations` seconds each, with its spread
    /// (nearest-rank percentiles of the runs' events per second). Runs too short to time count
    /// as infinitely fast.
    public static func summarize(events: Int, durations: [Double]) -> Result {
        let rates = Percentiles(durations.map { $0 > 0 ? Double(events) / $0 : .infinity })
        return Result(
            events: events, runs: rates.count, median: rates.p50 ?? 0, p25: rates.percentile(25) ?? 0,
            p75: rates.percentile(75) ?? 0, min: rates.sorted.first ?? 0, max: rates.max ?? 0)
    }

    /// Compiles the bench's pattern of `events` events `runs` times (a fixed workload for a
    /// profiler: `thrum dev compile`); returns the program's segment count.
    public static func compileLoop(events: Int, runs: Int) -> Int {
        let compiler = PatternCompiler(profile: .default)
        let pattern = mixedPattern(events: events)
        var segments = 0
        for _ in 0..<runs { segments = compiler.compile(pattern).segments.count }
        return segments
    }

    /// Transients every 20 ms with a short continuous event every tenth.
    static func mixedPattern(events n: Int) -> HapticPattern {
        HapticPattern(
            events: (0..<n).map { k in
                let t = Double(k) * 0.02
                let parameters = [
                    HapticEventParameter(parameterID: .hapticIntensity, value: Float(0.3 + 0.7 * Double(k % 7) / 6)),
                    HapticEventParameter(parameterID: .hapticSharpness, value: Float(k % 5) / 4),
                ]
                return k % 10 == 9
                    ? HapticEvent(
                        eventType: .hapticContinuous, parameters: parameters, relativeTime: t, duration: 0.015)
                    : HapticEvent(eventType: .hapticTransient, parameters: parameters, relativeTime: t)
            }, parameters: [], parameterCurves: [])
    }
}
