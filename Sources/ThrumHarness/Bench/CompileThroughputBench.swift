import ThrumCompiler
import ThrumPattern

/// Compiler throughput in events per second (wall clock; meaningful in a release build) at
/// several pattern sizes, to see how it grows.
public enum CompileThroughputBench {
    /// Events per second at each size.
    public static func run(sizes: [Int]) -> [(events: Int, perSecond: Double)] {
        let compiler = PatternCompiler(profile: .default)
        return sizes.map { n in
            let pattern = mixedPattern(events: n)
            let clock = ContinuousClock()
            var repeats = 0
            let start = clock.now
            var elapsed = Duration.zero
            repeat {
                _ = compiler.compile(pattern)
                repeats += 1
                elapsed = clock.now - start
            } while elapsed < .milliseconds(150) && repeats < 1_000
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return (n, Double(n * repeats) / seconds)
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
