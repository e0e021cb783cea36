import ThrumHarness
import ThrumCompiler
import ThrumPattern

/// Compiler throughput in events per second (wall clock; meaningful in a release build) at
/// several pattern sizes, to see how it grows.
public enum CompileThroughputBench {
    /// Events per second at each size: the best of at least 5 compiles and 300 ms of compiling
    /// (wall clock; the best run is the one least disturbed by other processes on the machine).
    public static func run(sizes: [Int]) -> [(events: Int, perSecond: Double)] {
        let compiler = PatternCompiler(profile: .default)
        return sizes.map { n in
            let pattern = mixedPattern(events: n)
            _ = compiler.compile(pattern)  // warm-up
            let clock = ContinuousClock()
            var repeats = 0
            var best = Double.infinity
            var total = 0.0
            repeat {
                let start = clock.now
                _ = compiler.compile(pattern)
                let d = clock.now - start
                let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                best = min(best, seconds)
                total += seconds
                repeats += 1
            } while (total < 0.3 || repeats < 5) && repeats < 2_000
            return (n, Double(n) / best)
        }
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
                    ? HapticEvent(eventType: .hapticContinuous, parameters: parameters, relativeTime: t, duration: 0.015)
                    : HapticEvent(eventType: .hapticTransient, parameters: parameters, relativeTime: t)
            }, parameters: [])
    }
}
