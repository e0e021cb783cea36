import ThrumEngine

extension PlaybackExpectations {
    /// `--expect-max-error-us N` and `--expect-onsets K` (`thrum play`, a pattern or a stored preset).
    static func take(from arguments: inout ArgumentList) throws(UsageError) -> PlaybackExpectations {
        PlaybackExpectations(
            maxError: try arguments.option(
                "expect-max-error-us", as: { Double($0).flatMap { $0.isFinite && $0 > 0 ? $0 * 1e-6 : nil } },
                expected: "a number of µs > 0"),
            onsets: try arguments.option("expect-onsets", as: { Int($0).flatMap { $0 >= 0 ? $0 : nil } }, expected: "a whole number ≥ 0"))
    }
}
