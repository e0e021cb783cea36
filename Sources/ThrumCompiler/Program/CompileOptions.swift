/// Knobs of the compiler. The defaults are the documented semantics (`docs/semantics.md`).
public struct CompileOptions: Equatable, Sendable {
    /// How overlapping events combine into the one drive amplitude.
    public enum Mixing: String, Equatable, Sendable, CaseIterable {
        /// 1 − Π(1 − aᵢ): adds small overlaps, never exceeds full scale (default).
        case softSum
        /// The largest contribution wins.
        case max
        /// Σ aᵢ clipped at full scale.
        case clippedSum
    }

    /// Shift drive onsets earlier so the felt onset (acceleration at 50 % of the event's peak)
    /// lands on the requested time. Default on.
    public var feltOnsetCompensation: Bool
    /// How overlapping events mix. Default `.softSum`.
    public var mixing: Mixing
    /// Longest continuous event, s; longer ones are clamped and reported. Default 30 (Apple's limit).
    public var maxContinuousDuration: Double
    /// Overrides the actuator response model derived from the profile (nil = derive).
    public var response: ActuatorResponse?
    /// Largest step, s, used to approximate products and mixes that are not linear. Default 2 ms.
    public var curveStep: Double

    /// Creates options.
    public init(
        feltOnsetCompensation: Bool = true, mixing: Mixing = .softSum, maxContinuousDuration: Double = 30,
        response: ActuatorResponse? = nil, curveStep: Double = 0.002
    ) {
        self.feltOnsetCompensation = feltOnsetCompensation
        self.mixing = mixing
        self.maxContinuousDuration = maxContinuousDuration
        self.response = response
        self.curveStep = curveStep
    }
}
