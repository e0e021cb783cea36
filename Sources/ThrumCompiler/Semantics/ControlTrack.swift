import ThrumPattern

/// The value over time of one pattern-wide dynamic parameter (for example
/// `HapticIntensityControl`), built from a pattern's `Parameter` steps and `ParameterCurve`s.
///
/// Rules: before the first command the value is the neutral default; each command takes over at
/// its time and holds until the next command of the same ID starts (last writer wins; at equal
/// times a curve wins over a step, and later elements over earlier ones). A curve's control-point
/// times are relative to the curve's time; values are linear between points and held before the
/// first and after the last point. Values are clamped to the parameter's range.
public struct ControlTrack: Sendable {
    private var t0: [Double] = []
    private var t1: [Double] = []
    private var v0: [Double] = []
    private var v1: [Double] = []

    /// A track that is `value` at all times.
    public init(constant value: Double) {
        append(-.infinity, .infinity, value, value)
    }

    /// The track of dynamic parameter `id` in `pattern`, with neutral `defaultValue` and range.
    public init(_ id: HapticDynamicParameter.ID, in pattern: HapticPattern, defaultValue: Double, range: ClosedRange<Double>) {
        struct Command { var time: Double; var order: Int; var step: Double?; var points: [(Double, Double)] }
        func clamp(_ v: Float) -> Double { v.isNaN ? defaultValue : min(range.upperBound, max(range.lowerBound, Double(v))) }
        var commands: [Command] = []
        for (i, p) in pattern.parameters.enumerated() where p.parameterID == id && p.relativeTime.isFinite {
            commands.append(Command(time: p.relativeTime, order: i, step: clamp(p.value), points: []))
        }
        let stepCount = pattern.parameters.count
        for (i, c) in pattern.parameterCurves.enumerated() where c.parameterID == id && !c.controlPoints.isEmpty && c.relativeTime.isFinite
            && c.controlPoints.allSatisfy({ $0.relativeTime.isFinite }) {
            let pts = c.controlPoints.enumerated()
                .sorted { ($0.element.relativeTime, $0.offset) < ($1.element.relativeTime, $1.offset) }
                .map { (c.relativeTime + $0.element.relativeTime, clamp($0.element.value)) }
            commands.append(Command(time: c.relativeTime, order: stepCount + i, step: nil, points: pts))
        }
        commands.sort { ($0.time, $0.order) < ($1.time, $1.order) }

        let first = commands.first?.time ?? .infinity
        append(-.infinity, first, defaultValue, defaultValue)
        for (k, cmd) in commands.enumerated() {
            let lo = cmd.time
            let hi = k + 1 < commands.count ? commands[k + 1].time : .infinity
            guard hi > lo else { continue }
            if let v = cmd.step {
                append(lo, hi, v, v)
                continue
            }
            let pts = cmd.points
            // Hold the first value from the curve's start to its first point.
            clipAppend(lo, pts[0].0, pts[0].1, pts[0].1, lo, hi)
            for j in 0..<(pts.count - 1) where pts[j + 1].0 > pts[j].0 {
                clipAppend(pts[j].0, pts[j + 1].0, pts[j].1, pts[j + 1].1, lo, hi)
            }
            let last = pts[pts.count - 1]
            clipAppend(last.0, .infinity, last.1, last.1, lo, hi)
        }
    }

    private mutating func append(_ a: Double, _ b: Double, _ va: Double, _ vb: Double) {
        guard b > a else { return }
        t0.append(a)
        t1.append(b)
        v0.append(va)
        v1.append(vb)
    }

    /// Appends the part of piece [a, b] inside [lo, hi], interpolating cut ends.
    private mutating func clipAppend(_ a: Double, _ b: Double, _ va: Double, _ vb: Double, _ lo: Double, _ hi: Double) {
        let ca = max(a, lo), cb = min(b, hi)
        guard cb > ca else { return }
        func at(_ t: Double) -> Double {
            if va == vb || !b.isFinite || !a.isFinite { return va }
            return va + (vb - va) * (t - a) / (b - a)
        }
        append(ca, cb, at(ca), at(cb))
    }

    /// Whether the value never changes.
    public var isConstant: Bool { t0.count == 1 }

    /// The value at time `t` (seconds).
    public func value(at t: Double) -> Double {
        if t0.count == 1 { return v0[0] }
        let k = index(at: t)
        let a = t0[k], b = t1[k], va = v0[k], vb = v1[k]
        if va == vb || !a.isFinite || !b.isFinite { return va }
        return va + (vb - va) * (t - a) / (b - a)
    }

    /// Whether the value is constant over the open interval (a, b).
    public func isConstant(from a: Double, to b: Double) -> Bool {
        let k = index(at: a)
        return t1[k] >= b && v0[k] == v1[k]
    }

    /// Times strictly inside (a, b) where the track's slope or value may change.
    public func breakpoints(from a: Double, to b: Double) -> [Double] {
        var out: [Double] = []
        var k = index(at: a) + 1
        while k < t0.count && t0[k] < b {
            if t0[k] > a { out.append(t0[k]) }
            k += 1
        }
        return out
    }

    /// Index of the last piece starting at or before `t`.
    private func index(at t: Double) -> Int {
        var lo = 0, hi = t0.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if t0[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return max(0, lo - 1)
    }
}

/// The five haptic dynamic parameters of a pattern as tracks.
public struct HapticControls: Sendable {
    /// `HapticIntensityControl`: multiplies event intensity; default 1, range 0…1.
    public var intensity: ControlTrack
    /// `HapticSharpnessControl`: adds to event sharpness; default 0, range −1…1.
    public var sharpness: ControlTrack
    /// `HapticAttackTimeControl`: adds to AttackTime; default 0, range −1…1.
    public var attackTime: ControlTrack
    /// `HapticDecayTimeControl`: adds to DecayTime; default 0, range −1…1.
    public var decayTime: ControlTrack
    /// `HapticReleaseTimeControl`: adds to ReleaseTime; default 0, range −1…1.
    public var releaseTime: ControlTrack

    /// Builds the tracks of a pattern.
    public init(_ pattern: HapticPattern) {
        intensity = ControlTrack(.hapticIntensityControl, in: pattern, defaultValue: 1, range: 0...1)
        sharpness = ControlTrack(.hapticSharpnessControl, in: pattern, defaultValue: 0, range: -1...1)
        attackTime = ControlTrack(.hapticAttackTimeControl, in: pattern, defaultValue: 0, range: -1...1)
        decayTime = ControlTrack(.hapticDecayTimeControl, in: pattern, defaultValue: 0, range: -1...1)
        releaseTime = ControlTrack(.hapticReleaseTimeControl, in: pattern, defaultValue: 0, range: -1...1)
    }
}
