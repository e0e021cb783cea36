import ThrumTime

/// A dynamic parameter a player received at run time (`sendParameters`, `scheduleParameterCurve`),
/// on the engine's schedule. Last writer wins, like a pattern's own controls: each command
/// takes over from its start until a later-starting command; a curve is linear between its
/// points and holds its first and last values.
struct RuntimeControl {
    struct Command {
        var start: EngineTime
        var order: Int
        /// (time, value) points; one point = a step.
        var points: [(EngineTime, Double)]
    }

    let defaultValue: Double
    let range: ClosedRange<Double>
    private(set) var commands: [Command] = []
    private var counter = 0

    init(defaultValue: Double, range: ClosedRange<Double>) {
        self.defaultValue = defaultValue
        self.range = range
    }

    private func clamp(_ v: Double) -> Double { v.isNaN ? defaultValue : min(range.upperBound, max(range.lowerBound, v)) }

    mutating func step(at time: EngineTime, value: Double) {
        counter += 1
        commands.append(Command(start: time, order: counter, points: [(time, clamp(value))]))
        commands.sort { ($0.start, $0.order) < ($1.start, $1.order) }
    }

    mutating func curve(at time: EngineTime, points: [(EngineTime, Double)]) {
        guard !points.isEmpty else { return }
        counter += 1
        let sorted = points.sorted { $0.0 < $1.0 }.map { ($0.0, clamp($0.1)) }
        commands.append(Command(start: time, order: counter, points: sorted))
        commands.sort { ($0.start, $0.order) < ($1.start, $1.order) }
    }

    mutating func removeAll() { commands.removeAll() }

    var isNeutral: Bool { commands.isEmpty }

    /// The command in force at `t`.
    private func command(at t: EngineTime) -> Command? {
        var found: Command?
        for c in commands {
            if c.start <= t { found = c } else { break }
        }
        return found
    }

    func value(at t: EngineTime) -> Double {
        guard let c = command(at: t) else { return defaultValue }
        let p = c.points
        if t <= p[0].0 { return p[0].1 }
        for k in 0..<(p.count - 1) where t < p[k + 1].0 {
            let (a, va) = p[k], (b, vb) = p[k + 1]
            return b > a ? va + (vb - va) * Double((t - a).microseconds) / Double((b - a).microseconds) : vb
        }
        return p[p.count - 1].1
    }

    /// Times strictly inside (a, b) where the value or its slope may change.
    func breakpoints(from a: EngineTime, to b: EngineTime) -> [EngineTime] {
        var out: [EngineTime] = []
        for c in commands {
            if c.start > a && c.start < b { out.append(c.start) }
            for (t, _) in c.points where t > a && t < b { out.append(t) }
        }
        return Array(Set(out)).sorted()
    }

    /// Whether the value is the same everywhere in [a, b).
    func isConstant(from a: EngineTime, to b: EngineTime) -> Bool {
        if commands.isEmpty { return true }
        guard breakpoints(from: a, to: b).isEmpty else { return false }
        return value(at: a) == value(at: b - .microseconds(1))
    }
}
