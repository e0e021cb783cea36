import ThrumTime

/// A guaranteed bracket on the device clock, from every sample in the window and nothing else.
///
/// Each sample says two things that hold whatever the link did: at the host's send time the
/// device clock read at most the ACK's `rx_time` (nothing arrives before it is sent), and at the
/// host's receive time it read at least `rx_time` (no ACK comes back before the frame arrived).
/// With the clock difference θ(x) = device − host a straight line (constant drift over the
/// window), those are half-planes; the drift range that satisfies every pair of them bounds the
/// slope, and each sample then bounds θ anywhere else by extrapolating with the worst slope of
/// that range. The result contains the truth by construction — no assumption about how the round
/// trip splits between the legs — and is as narrow as the best-placed samples make it: about the
/// shortest round trip. ``ClockModel``'s estimate sits inside it; this is what a report's "±" is.
struct ClockBracket {
    private var outbound: [(x: Double, z: Double)] = []
    private var inbound: [(x: Double, z: Double)] = []
    private let hostReference: HostTime
    private let deviceReference: DeviceTime
    /// The drift range every pair of samples allows (µs per µs).
    private(set) var slopeRange: ClosedRange<Double>
    /// Whether some line within the drift limit passes between every sample's facts (false: no
    /// constant-rate clock explains them, and `slopeRange` is the limit, not a measurement).
    private(set) var isConsistent = true
    /// µs added on each side of every interval: the largest contradiction among the window's samples.
    let slack: Double
    /// Slack for the device clock's 1 µs resolution (`rx_time` is the clock read after arrival,
    /// truncated) and the firmware's clock read after an onset's register write.
    static let resolution = 2.0

    /// A bracket from `samples` (nil without any); slopes are limited to ±`slopeLimit`.
    /// `lineByteTime`: the least µs a byte takes on the line (0: no serial line known): a frame's
    /// bytes cross before its `rx_time` (outbound) and the reply's after it (return).
    init?(samples: [ClockSample], slopeLimit: Double, lineByteTime: Double = 0) {
        // A sample that contradicted the window is left out (one of its facts is false, and it may
        // be the sample's), and every interval is widened by its excess instead (``slack``): wide
        // enough to hold the truth whether the sample or the samples it contradicted were wrong.
        let agreeing = samples.filter { $0.inconsistency == .zero }
        slack = samples.lazy.map(\.inconsistency.microseconds).max() ?? 0
        guard let newest = agreeing.last else { return nil }
        hostReference = newest.hostSend
        deviceReference = newest.deviceReceive
        for s in agreeing {
            let y = Double((s.deviceReceive - deviceReference).microseconds)
            let xs = (s.hostSend - hostReference).microseconds + lineByteTime * Double(s.outboundBytes)
            let xr = (s.hostReceive - hostReference).microseconds
            let yr = Double((s.deviceTimeAtReturn - deviceReference).microseconds) + lineByteTime * Double(s.inboundBytes)
            outbound.append((xs, y - xs + Self.resolution))
            inbound.append((xr, yr - xr))
        }
        // Only hull points can bind the slope: the lower hull of the upper-bound points and the
        // upper hull of the lower-bound points.
        let low = Self.hull(outbound, lower: true), high = Self.hull(inbound, lower: false)
        var smin = -slopeLimit, smax = slopeLimit
        for o in low {
            for i in high where o.x != i.x {
                let s = (o.z - i.z) / (o.x - i.x)
                if o.x > i.x { smax = min(smax, s) } else { smin = max(smin, s) }
            }
        }
        // Inconsistent samples (a clock that jumped) leave no slope: fall back to the limit, and
        // say so (``isConsistent``): the bracket then rests on a broken fact.
        isConsistent = smin <= smax
        slopeRange = smin <= smax ? smin...smax : -slopeLimit...slopeLimit
        // At any slope the tightest upper constraint lies on the lower hull of the upper-bound
        // points and the tightest lower one on the upper hull of the lower-bound points, so θ
        // needs only those (a few points, however many samples the window holds).
        outbound = low
        inbound = high
    }

    /// The range of θ (device − host, µs, relative to the references) at host µs `x`: the highest
    /// and lowest value any line consistent with every sample takes there. For a slope s the
    /// highest line is min over the upper constraints of (z + s·(x − xᵢ)), a concave function of s,
    /// and the lowest is max over the lower ones, a convex one; each is optimised over the feasible
    /// slopes by ternary search (a two-variable linear programme, solved exactly to 0.01 µs).
    private func theta(at x: Double) -> (low: Double, high: Double) {
        func high(_ s: Double) -> Double {
            var v = Double.infinity
            for o in outbound { v = min(v, o.z + s * (x - o.x)) }
            return v
        }
        func low(_ s: Double) -> Double {
            var v = -Double.infinity
            for i in inbound { v = max(v, i.z + s * (x - i.x)) }
            return v
        }
        let h = Self.optimise(high, over: slopeRange, maximise: true)
        let l = Self.optimise(low, over: slopeRange, maximise: false)
        return (min(l, h), max(l, h))
    }

    /// The extreme of a concave (`maximise`) or convex function over `range`.
    private static func optimise(_ f: (Double) -> Double, over range: ClosedRange<Double>, maximise: Bool) -> Double {
        var a = range.lowerBound, b = range.upperBound
        for _ in 0..<80 where b - a > 1e-12 {
            let m1 = a + (b - a) / 3, m2 = b - (b - a) / 3
            let f1 = f(m1), f2 = f(m2)
            if maximise ? f1 < f2 : f1 > f2 { a = m1 } else { b = m2 }
        }
        let ends = [f(range.lowerBound), f(range.upperBound), f((a + b) / 2)]
        return maximise ? ends.max()! : ends.min()!
    }

    /// The host times between which the device clock read `deviceTime` (µs, extended), given the
    /// host time `estimate` the model maps it to.
    func hostInterval(atDevice deviceTime: DeviceTime, estimate: HostTime) -> ClosedRange<HostTime> {
        let y = Double((deviceTime - deviceReference).microseconds)
        let x0 = (estimate - hostReference).microseconds
        var (lo, hi) = (y - theta(at: x0).high, y - theta(at: x0).low)
        // θ moves by (drift × distance): evaluate once more where each end lies.
        lo = y - theta(at: lo).high
        hi = y - theta(at: hi).low
        lo -= Self.resolution + slack
        hi += Self.resolution + slack
        return (hostReference + .seconds(lo / 1e6))...(hostReference + .seconds(max(lo, hi) / 1e6))
    }

    /// How far (µs) `sample`'s two facts fall outside this bracket (of the samples that agree,
    /// before ``slack``: a clock that moved keeps contradicting it, sample after sample): its `rx_time` below the lowest
    /// device clock the bracket allows at the sample's send time, or its return time above the
    /// highest at its receive time. Zero when the sample agrees with every sample before it.
    func contradiction(of sample: ClockSample, lineByteTime: Double) -> Double {
        let y = Double((sample.deviceReceive - deviceReference).microseconds)
        let xs = (sample.hostSend - hostReference).microseconds + lineByteTime * Double(sample.outboundBytes)
        let xr = (sample.hostReceive - hostReference).microseconds
        let yr = Double((sample.deviceTimeAtReturn - deviceReference).microseconds) + lineByteTime * Double(sample.inboundBytes)
        let outboundExcess = theta(at: xs).low - (y - xs + Self.resolution)
        let returnExcess = (yr - xr) - theta(at: xr).high
        return max(0, outboundExcess, returnExcess)
    }

    /// The lower (`lower` true) or upper convex hull of points, by x.
    private static func hull(_ points: [(x: Double, z: Double)], lower: Bool) -> [(x: Double, z: Double)] {
        let sorted = points.sorted { ($0.x, $0.z) < ($1.x, $1.z) }
        var hull: [(x: Double, z: Double)] = []
        for p in sorted {
            while hull.count >= 2 {
                let a = hull[hull.count - 2], b = hull[hull.count - 1]
                let cross = (b.x - a.x) * (p.z - a.z) - (b.z - a.z) * (p.x - a.x)
                if lower ? cross <= 0 : cross >= 0 { hull.removeLast() } else { break }
            }
            hull.append(p)
        }
        return hull
    }
}
