/// A straight line z = intercept + slope · x (x and z in µs).
struct ClockLine: Sendable, Hashable {
    var intercept: Double
    var slope: Double

    func callAsFunction(_ x: Double) -> Double { intercept + slope * x }
}

/// The support line of a cloud of delay points that no point lies on the wrong side of — the
/// minimum filter of one-way delays, generalised to a drifting clock.
///
/// Among all lines below every point (a lower envelope), it picks the one closest to the points
/// on average: the linear programme of Moon, Skelly and Towsley (1999) for clock-skew estimation,
/// whose optimum is the edge of the lower convex hull above the mean x. Samples delayed by
/// queueing, scheduling or frame alignment only move points away from the envelope, so they do
/// not bias it; only the best-placed samples define it.
enum ClockEnvelope {
    /// The lower envelope of `points` (x, z); its slope is constrained to `slopeLimit` in
    /// magnitude. With a fixed `slope`, it is the line of that slope through the lowest point.
    static func lower(_ points: [(x: Double, z: Double)], slope fixed: Double?, slopeLimit: Double) -> ClockLine {
        precondition(!points.isEmpty)
        if let fixed { return through(points, slope: fixed) }
        let sorted = points.sorted { ($0.x, $0.z) < ($1.x, $1.z) }
        var hull: [(x: Double, z: Double)] = []
        for p in sorted {
            if let last = hull.last, last.x == p.x { continue }  // same x: the lower one came first
            while hull.count >= 2 {
                let a = hull[hull.count - 2], b = hull[hull.count - 1]
                // Keep only left turns (counter-clockwise) for a lower hull.
                let cross = (b.x - a.x) * (p.z - a.z) - (b.z - a.z) * (p.x - a.x)
                if cross <= 0 { hull.removeLast() } else { break }
            }
            hull.append(p)
        }
        guard hull.count >= 2 else { return through(points, slope: 0) }
        let meanX = points.reduce(0) { $0 + $1.x } / Double(points.count)
        var edge = hull.count - 2
        for i in 0..<(hull.count - 1) where hull[i + 1].x >= meanX {
            edge = i
            break
        }
        let a = hull[edge], b = hull[edge + 1]
        let slope = (b.z - a.z) / (b.x - a.x)
        guard abs(slope) <= slopeLimit else { return through(points, slope: max(-slopeLimit, min(slopeLimit, slope))) }
        return ClockLine(intercept: a.z - slope * a.x, slope: slope)
    }

    /// The upper envelope: the lower envelope of the mirrored points, mirrored back.
    static func upper(_ points: [(x: Double, z: Double)], slope fixed: Double?, slopeLimit: Double) -> ClockLine {
        let line = lower(points.map { ($0.x, -$0.z) }, slope: fixed.map { -$0 }, slopeLimit: slopeLimit)
        return ClockLine(intercept: -line.intercept, slope: -line.slope)
    }

    /// The line of slope `slope` through the lowest point.
    static func through(_ points: [(x: Double, z: Double)], slope: Double) -> ClockLine {
        let intercept = points.map { $0.z - slope * $0.x }.min()!
        return ClockLine(intercept: intercept, slope: slope)
    }

    /// How far the points sit above `line`, smallest first.
    static func residuals(_ points: [(x: Double, z: Double)], above line: ClockLine) -> [Double] {
        points.map { $0.z - line($0.x) }.sorted()
    }
}
