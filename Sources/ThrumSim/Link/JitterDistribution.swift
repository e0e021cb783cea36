import ThrumTime

/// A distribution of extra delays (µs), drawn from a ``SplitMix64``.
public enum JitterDistribution: Sendable, Hashable {
    /// No extra delay.
    case none
    /// Uniform over the range (µs).
    case uniform(ClosedRange<UInt64>)
    /// `minimum` plus an exponential tail with the given mean (µs), cut at `cap`.
    case exponential(minimum: UInt64, mean: Double, cap: UInt64)
    /// Mostly `body`, but with probability `tailProbability` a delay from `tail` instead (the
    /// long-tail mixture of a mostly idle OS with occasional long preemptions).
    indirect case mixture(body: JitterDistribution, tail: JitterDistribution, tailProbability: Double)

    /// Draws one delay in µs.
    public func sample(_ rng: inout SplitMix64) -> UInt64 {
        switch self {
        case .none:
            return 0
        case .uniform(let range):
            let width = range.upperBound - range.lowerBound
            return range.lowerBound + UInt64((rng.unit() * Double(width + 1)).rounded(.down))
        case .exponential(let minimum, let mean, let cap):
            let u = rng.unit()
            let tail = mean * log1pNegative(u)
            return min(cap, minimum + UInt64(tail.rounded(.down)))
        case .mixture(let body, let tail, let p):
            return rng.chance(p) ? tail.sample(&rng) : body.sample(&rng)
        }
    }

    /// The smallest delay the distribution can give.
    public var lowerBound: UInt64 {
        switch self {
        case .none: 0
        case .uniform(let range): range.lowerBound
        case .exponential(let minimum, _, let cap): min(minimum, cap)
        case .mixture(let body, let tail, let p): p >= 1 ? tail.lowerBound : min(body.lowerBound, p > 0 ? tail.lowerBound : .max)
        }
    }

    /// The largest delay the distribution can give.
    public var upperBound: UInt64 {
        switch self {
        case .none: 0
        case .uniform(let range): range.upperBound
        case .exponential(_, _, let cap): cap
        case .mixture(let body, let tail, let p): p <= 0 ? body.upperBound : max(body.upperBound, tail.upperBound)
        }
    }
}

/// −ln(1 − u) for u in [0, 1), without Foundation (series near 0, else a bit-level log).
func log1pNegative(_ u: Double) -> Double {
    let x = 1 - u
    guard x > 0 else { return 40 }
    return -naturalLog(x)
}

/// Natural logarithm of a positive finite double, from its exponent and an atanh series.
func naturalLog(_ x: Double) -> Double {
    let exponent = Double(x.exponent)
    let mantissa = x.significand  // in [1, 2)
    let z = (mantissa - 1) / (mantissa + 1)
    let z2 = z * z
    var term = z
    var sum = 0.0
    var k = 1.0
    while k < 60 {
        sum += term / k
        term *= z2
        k += 2
    }
    return 2 * sum + exponent * 0.693_147_180_559_945_3
}
