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
    /// `bins` spans of equal host time (a span with fewer than ``minimumPointsPerSpan`` points is
    /// merged into its older neighbour), each span gives one point near its floor, and a
    /// least-squares line through those points, weighted by each span's count, gives the slope
    /// (three passes, each with the previous slope removed before picking the points); the line
    /// then drops onto the lowest point of the newer half. Each span's point is the same quantile
    /// of its delays — the k-th lowest, k ∝ its count (the lowest of n points sits at about the
    /// 1/(n+1) quantile, so a span dense with probes after connecting would otherwise sit lower
    /// than a span of idle pings and tilt the line) — and spans of equal *time* put the window's
    /// whole length under the line: spans of equal *counts* put most of them inside the probe
    /// burst of the first seconds, a baseline too short for the drift (docs/timing.md). Too few
    /// points and it falls back to ``lower(_:slope:slopeLimit:)``.
    static func lowerLongBaseline(_ points: [(x: Double, z: Double)], bins: Int, slopeLimit: Double) -> ClockLine {
        let hull = lower(points, slope: nil, slopeLimit: slopeLimit)
        guard bins >= 2, points.count >= bins * 2 else { return hull }
        // The fit runs at every sample: loops, not key paths and intermediate arrays (the same
        // arithmetic in the same order, so the same line to the last bit).
        var low = points[0].x, high = points[0].x
        for p in points {
            low = min(low, p.x)
            high = max(high, p.x)
        }
        guard high > low else { return hull }
        let width = (high - low) / Double(bins)
        var spans = [[(x: Double, z: Double)]](repeating: [], count: bins)
        for p in points { spans[min(bins - 1, Int((p.x - low) / width))].append(p) }
        // Newest first, so the sparse idle end of a window borrows from the older spans: each
        // merged span is a run of neighbouring spans (oldest first), the oldest run also taking
        // any remainder too small to stand alone.
        var runs: [ClosedRange<Int>] = []  // newest first
        var carried = 0, runEnd = bins - 1
        for b in stride(from: bins - 1, through: 0, by: -1) {
            carried += spans[b].count
            if carried >= minimumPointsPerSpan {
                runs.append(b...runEnd)
                carried = 0
                runEnd = b - 1
            }
        }
        if carried > 0 {
            if runs.isEmpty { runs = [0...runEnd] } else { runs[runs.count - 1] = 0...runs[runs.count - 1].upperBound }
        }
        guard runs.count >= 2 else { return hull }
        let merged: [[(x: Double, z: Double)]] = runs.reversed().map { run in
            if run.lowerBound == run.upperBound { return spans[run.lowerBound] }
            var joined: [(x: Double, z: Double)] = []
            for b in run { joined.append(contentsOf: spans[b]) }
            return joined
        }
        var sparsest = merged[0].count
        for span in merged { sparsest = min(sparsest, span.count) }
        var slope = hull.slope
        var kept: [(x: Double, z: Double, weight: Double)] = []
        kept.reserveCapacity(merged.count)
        for _ in 0..<3 {
            kept.removeAll(keepingCapacity: true)
            for span in merged {
                let k = max(1, Int((Double(span.count + 1) / Double(sparsest + 1)).rounded()))
                let p = lowest(span, rank: k, slope: slope)
                kept.append((p.x, p.z, Double(span.count)))
            }
            let sw = kept.reduce(0) { $0 + $1.weight }
            let mx = kept.reduce(0) { $0 + $1.weight * $1.x } / sw
            let mz = kept.reduce(0) { $0 + $1.weight * $1.z } / sw
            let sxx = kept.reduce(0) { $0 + $1.weight * ($1.x - mx) * ($1.x - mx) }
            let sxz = kept.reduce(0) { $0 + $1.weight * ($1.x - mx) * ($1.z - mz) }
            guard sxx > 0 else { return hull }
            slope = max(-slopeLimit, min(slopeLimit, sxz / sxx))
        }
        // Drop onto the lowest point of the newer half: the estimate is used at the newest end,
        // so a point far back would carry the slope's residual error over a long lever arm.
        let middle = (low + high) / 2
        var intercept = Double.infinity
        for p in points where p.x >= middle { intercept = min(intercept, p.z - slope * p.x) }
        return intercept == .infinity ? through(points, slope: slope) : ClockLine(intercept: intercept, slope: slope)
    }

    /// The point of `span` at 1-based `rank` (at most its count) in the order of z − slope · x,
    /// equal values in the order given: the point a stable sort would put there, found in one
    /// pass that keeps the `rank` lowest so far (the fit runs at every sample, so no sort).
    static func lowest(_ span: [(x: Double, z: Double)], rank: Int, slope: Double) -> (x: Double, z: Double) {
        let k = min(rank, span.count)
        precondition(k >= 1)
        if k == 1 {
            // The first of the lowest (equal values oldest first), without the list below.
            var index = 0, lowest = span[0].z - slope * span[0].x
            for i in span.indices.dropFirst() {
                let value = span[i].z - slope * span[i].x
                if value < lowest { (index, lowest) = (i, value) }
            }
            return span[index]
        }
        var best: [(value: Double, index: Int)] = []  // ascending; equal values oldest first
        best.reserveCapacity(k)
        for i in span.indices {
            let value = span[i].z - slope * span[i].x
            if best.count == k {
                guard value < best[k - 1].value else { continue }
                best.removeLast()
            }
            var j = best.count
            while j > 0, best[j - 1].value > value { j -= 1 }
            best.insert((value, i), at: j)
        }
        return span[best[k - 1].index]
    }

    /// The fewest points a span of ``lowerLongBaseline(_:bins:slopeLimit:)`` keeps on its own.
    static let minimumPointsPerSpan = 8

    /// The time per byte (µs) a serial line adds to the outbound delay, from `points` (x, z) and
    /// the bytes written up to each frame's end (`counts`). The window is cut into `bins` spans
    /// of host time; within a span, with the drift `slope` taken off, the lowest points of each
    /// byte count seen at least `minimumSamples` times are that count's delay floor, and the
    /// floors of longer writes sit above the shortest's by the byte time × the extra bytes.
    /// Comparing counts only within a span keeps a drift error from reading as byte time when
    /// short and long writes come at different times (probes after connecting, then playback).
    /// Each count gives the same quantile of its delays (the lowest of n points sits at about the
    /// 1/(n+1) quantile, so a count seen a hundred times would otherwise sit lower than one seen
    /// ten times). Nil when no span holds two counts `minimumSpread` bytes apart; clamped to
    /// 0…`limit` (a link that delivers frames whole has 0; 1000 µs is a 10 000 baud line).
    static func perByte(
        _ points: [(x: Double, z: Double)], counts: [Int], slope: Double, bins: Int, minimumSpread: Int = 8,
        minimumSamples: Int = 4, limit: Double = 1_000
    ) -> Double? {
        guard let low = points.map(\.x).min(), let high = points.map(\.x).max() else { return nil }
        // No two counts far enough apart anywhere (idle pings, all one length): none in a span.
        let written = counts.lazy.filter { $0 > 0 }
        guard let fewest = written.min(), let most = written.max(), most - fewest >= minimumSpread else { return nil }
        let width = max(1, (high - low) / Double(max(1, bins)))
        var spans = [[Int: [Double]]](repeating: [:], count: max(1, bins))
        for (p, c) in zip(points, counts) where c > 0 {
            spans[min(spans.count - 1, Int((p.x - low) / width))][c, default: []].append(p.z - slope * p.x)
        }
        var rise = 0.0, extraBytes = 0.0
        for span in spans {
            let seen = span.filter { $0.value.count >= minimumSamples }
            guard seen.count >= 2, let sparsest = seen.values.map(\.count).min(), let shortest = seen.keys.min() else { continue }
            var floors: [Int: Double] = [:]
            for (c, r) in seen {
                let k = max(1, Int((Double(r.count + 1) / Double(sparsest + 1)).rounded()))
                floors[c] = r.sorted()[min(k, r.count) - 1]
            }
            for (c, floor) in floors where c - shortest >= minimumSpread {
                rise += floor - floors[shortest]!
                extraBytes += Double(c - shortest)
            }
        }
        guard extraBytes > 0 else { return nil }
        return max(0, min(limit, rise / extraBytes))
    }

    /// The upper envelope: the lower envelope of the mirrored points, mirrored back.
    static func upper(_ points: [(x: Double, z: Double)], slope fixed: Double?, slopeLimit: Double, bins: Int = 0) -> ClockLine {
        var mirrored = points
        for i in mirrored.indices { mirrored[i].z = -mirrored[i].z }
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

    /// The distances of the points above `line`, smallest first.
    static func sortedResiduals(_ points: [(x: Double, z: Double)], above line: ClockLine) -> [Double] {
        points.map { $0.z - line($0.x) }.sorted()
    }
}
