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
        // Samples arrive in host-time order, so the sort is usually skipped.
        let inOrder = zip(points, points.dropFirst()).allSatisfy { $0.x <= $1.x }
        let sorted = inOrder ? points : points.sorted { ($0.x, $0.z) < ($1.x, $1.z) }
        var hull: [(x: Double, z: Double)] = []
        for p in sorted {
            if let last = hull.last, last.x == p.x {  // same x: keep the lower
                if p.z >= last.z { continue }
                hull.removeLast()
            }
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

    /// The lower envelope with its slope taken from a long baseline: the window is cut into
    /// `bins` spans of host time, the lowest point of each (after removing the current slope) is
    /// kept, and a least-squares line through those minima gives the slope (twice, the second
    /// time with the first's slope removed); the line then drops onto the lowest point. Each
    /// bin minimum sits on the floor to within the best-of-a-few spacing, and the fit spreads
    /// them over the whole window, so the drift comes out an order of magnitude steadier than
    /// from the single hull edge; too few points per bin and it falls back to ``lower(_:slope:slopeLimit:)``.
    static func lowerLongBaseline(_ points: [(x: Double, z: Double)], bins: Int, slopeLimit: Double) -> ClockLine {
        let hull = lower(points, slope: nil, slopeLimit: slopeLimit)
        guard bins >= 2, points.count >= bins * 4 else { return hull }
        let xs = points.map(\.x)
        let low = xs.min()!, width = (xs.max()! - low) / Double(bins)
        guard width > 0 else { return hull }
        var slope = hull.slope
        for _ in 0..<2 {
            var minima = [(x: Double, z: Double)?](repeating: nil, count: bins)
            for p in points {
                let bin = min(bins - 1, Int((p.x - low) / width))
                if let m = minima[bin], m.z - slope * m.x <= p.z - slope * p.x { continue }
                minima[bin] = p
            }
            let kept = minima.compactMap { $0 }
            guard kept.count >= 2 else { return hull }
            let mx = kept.reduce(0) { $0 + $1.x } / Double(kept.count)
            let mz = kept.reduce(0) { $0 + $1.z } / Double(kept.count)
            let sxx = kept.reduce(0) { $0 + ($1.x - mx) * ($1.x - mx) }
            let sxz = kept.reduce(0) { $0 + ($1.x - mx) * ($1.z - mz) }
            guard sxx > 0 else { return hull }
            slope = max(-slopeLimit, min(slopeLimit, sxz / sxx))
        }
        // Drop onto the lowest point of the newer half: the estimate is used at the newest end,
        // so a point far back would carry the slope's residual error over a long lever arm.
        let recent = points.filter { $0.x >= low + width * Double(bins) / 2 }
        return through(recent.isEmpty ? points : recent, slope: slope)
    }

    /// The upper envelope: the lower envelope of the mirrored points, mirrored back.
    static func upper(_ points: [(x: Double, z: Double)], slope fixed: Double?, slopeLimit: Double, bins: Int = 0) -> ClockLine {
        let mirrored = points.map { ($0.x, -$0.z) }
        let line = fixed == nil && bins >= 2
            ? lowerLongBaseline(mirrored, bins: bins, slopeLimit: slopeLimit)
            : lower(mirrored, slope: fixed.map { -$0 }, slopeLimit: slopeLimit)
        return ClockLine(intercept: -line.intercept, slope: -line.slope)
    }

    /// The line of slope `slope` through the lowest point.
    static func through(_ points: [(x: Double, z: Double)], slope: Double) -> ClockLine {
        let intercept = points.map { $0.z - slope * $0.x }.min()!
        return ClockLine(intercept: intercept, slope: slope)
    }

    /// The `count` smallest distances of the points above `line`, smallest first.
    static func residuals(_ points: [(x: Double, z: Double)], above line: ClockLine, count: Int = 3) -> [Double] {
        var smallest: [Double] = []
        for p in points {
            let r = p.z - line(p.x)
            if smallest.count < count {
                smallest.append(r)
                smallest.sort()
            } else if r < smallest[count - 1] {
                smallest[count - 1] = r
                smallest.sort()
            }
        }
        return smallest
    }
}
