import ThrumPattern

/// One corner of an envelope: time in µs relative to the event's onset, gain 0…1.
/// Two knots at the same time make a jump.
struct Knot: Hashable, Sendable {
    var t: Int64
    var g: Double
}

/// The resolved shape of one haptic event: its gain envelope (0…1, before intensity) and the
/// parameters that produced it.
struct EventShape: Sendable {
    /// Envelope corners, nondecreasing in time; the gain is 0 after the last knot.
    var knots: [Knot]
    /// Event intensity (before `HapticIntensityControl`), 0…1.
    var intensity: Double
    /// Sharpness at onset after control, 0…1.
    var sharpness: Double
    /// The event's own sharpness before the control (default applied), for previews.
    var baseSharpness: Double
    /// Whether intensity follows the control over the event's life (continuous) or is taken at onset (transient).
    var followsIntensityControl: Bool
    /// The attack the user asked for (AttackTime), s; the requested envelope's 50 % point is half of it.
    var requestedAttack: Double
    /// Time the requested envelope takes beyond its onset, s.
    var length: Double { Double(knots.last?.t ?? 0) * 1e-6 }

    /// The envelope `knots` with its peak held `d` µs longer: every knot after the first that
    /// reaches the highest gain moves `d` later (the attack keeps its timing, the
    /// hold, decay and release move). The drive of a pre-shifted event, whose onset moves earlier
    /// by the rise's felt delay and whose end moves only by the fall's.
    static func holdingPeak(_ knots: [Knot], longerBy d: Int64) -> [Knot] {
        guard d > 0, let top = knots.map(\.g).max(), top > 0, let first = knots.firstIndex(where: { $0.g == top }),
              first + 1 < knots.count else { return knots }
        var out = knots
        for i in (first + 1)..<knots.count { out[i].t += d }
        return out
    }
}

/// Turns events into shapes using `HapticSemantics` and the pattern's controls.
struct EventShaper {
    let resonanceHz: Double
    let maxContinuousDuration: Double

    /// The event parameters the compiler reads, gathered in one pass (the last one wins).
    struct Parameters {
        var intensity: Double?
        var sharpness: Double?
        var attack: Double?
        var decay: Double?
        var release: Double?
        var sustained: Double?

        init(_ e: HapticEvent) {
            self.init(e.eventParameters)
        }

        init(_ parameters: [HapticEventParameter]) {
            for p in parameters {
                let v = Double(p.value)
                switch p.parameterID {
                case .hapticIntensity: intensity = v
                case .hapticSharpness: sharpness = v
                case .attackTime: attack = v
                case .decayTime: decay = v
                case .releaseTime: release = v
                case .sustained: sustained = v
                default: break
                }
            }
        }
    }

    /// The shape of haptic event `e` (requested at `e.relativeTime`), and the duration clamp applied if any.
    func shape(of e: HapticEvent, controls: HapticControls) -> (EventShape, clampedFrom: Double?) {
        var cache = KnotCache()
        return shape(of: e, controls: controls, cache: &cache)
    }

    /// A few recent transient envelopes by (sharpness, DecayTime): patterns reuse a handful of
    /// values, and sharing the array saves an allocation per event. Compared bit for bit, so the
    /// result is exactly what `transientKnots` returns.
    struct KnotCache {
        private var keys: [(UInt64, UInt64)] = []
        private var values: [[Knot]] = []
        private var next = 0
        static let size = 16

        mutating func knots(sharpness s: Double, decayX d: Double, make: () -> [Knot]) -> [Knot] {
            let key = (s.bitPattern, d.bitPattern)
            for i in keys.indices where keys[i] == key { return values[i] }
            let k = make()
            if keys.count < Self.size {
                keys.append(key)
                values.append(k)
            } else {
                keys[next] = key
                values[next] = k
                next = (next + 1) % Self.size
            }
            return k
        }
    }

    /// `shape(of:controls:)` with a transient-envelope cache shared across calls.
    func shape(of e: HapticEvent, controls: HapticControls, cache: inout KnotCache) -> (EventShape, clampedFrom: Double?) {
        withUnsafePointer(to: e) { shape(of: $0, transient: e.type == .hapticTransient, controls: controls, cache: &cache) }
    }

    /// `shape(of:controls:cache:)` of the event at `e`, read in place (the compiler's loop: no
    /// copy of the event and its arrays); `transient` is whether its type is `hapticTransient`.
    func shape(
        of e: UnsafePointer<HapticEvent>, transient: Bool, controls: HapticControls, cache: inout KnotCache
    ) -> (EventShape, clampedFrom: Double?) {
        typealias S = HapticSemantics
        let t = e.pointee.relativeTime
        let ps = Parameters(e.pointee.eventParameters)
        let intensity = S.clamp01(ps.intensity ?? S.defaultIntensity)
        let baseSharp = ps.sharpness ?? S.defaultSharpness
        let sharp = S.clamp01(baseSharp + controls.sharpness.value(at: t))
        let decayX = S.clamp01((ps.decay ?? 0) + controls.decayTime.value(at: t))

        if transient {
            let knots = cache.knots(sharpness: sharp, decayX: decayX) { transientKnots(sharpness: sharp, decayX: decayX) }
            return (EventShape(knots: knots, intensity: intensity, sharpness: sharp, baseSharpness: baseSharp, followsIntensityControl: false, requestedAttack: 0), nil)
        }

        var duration = max(0, e.pointee.duration)
        var clamped: Double? = nil
        if duration > maxContinuousDuration {
            clamped = duration
            duration = maxContinuousDuration
        }
        let attackX = S.clamp01((ps.attack ?? 0) + controls.attackTime.value(at: t))
        let releaseX = S.clamp01((ps.release ?? 0) + controls.releaseTime.value(at: t + duration))
        let sustained = (ps.sustained ?? 1) >= 0.5
        let sharpEnd = S.clamp01(baseSharp + controls.sharpness.value(at: t + duration))

        let userAttack = S.envelopeTime(attackX, min: 0, max: S.attackTimeMax)
        let attack = max(userAttack, (1 - sharp) * S.continuousSoftAttack)
        let release = max(S.envelopeTime(releaseX, min: 0, max: S.releaseTimeMax), (1 - sharpEnd) * S.continuousSoftRelease)
        let decay = sustained ? Double.infinity : S.envelopeTime(decayX, min: S.decayTimeMin, max: S.decayTimeMax)
        let knots = continuousKnots(duration: duration, attack: attack, decay: decay, release: release)
        return (EventShape(knots: knots, intensity: intensity, sharpness: sharp, baseSharpness: baseSharp, followsIntensityControl: true,
                           requestedAttack: min(userAttack, duration)), clamped)
    }

    /// A transient: a resonant burst of `transientCycles(sharpness)` cycles, ramped in and out in
    /// proportion to 1 − sharpness, with an optional DecayTime tail.
    func transientKnots(sharpness s: Double, decayX: Double) -> [Knot] {
        typealias S = HapticSemantics
        let total = S.transientCycles(sharpness: s) / resonanceHz
        let soft = 1 - s
        let up = S.transientAttackFractionDull * soft * total
        let down = S.transientReleaseFractionDull * soft * total
        let hold = total - up - down
        let tail = S.envelopeTime(decayX, min: 0, max: S.transientDecayTailMax)
        let a = micros(up), h = micros(up + hold), r = micros(up + hold + down + tail)
        var k: [Knot] = []
        k.reserveCapacity(4)
        if a > 0 { k.append(Knot(t: 0, g: 0)) }
        k.append(Knot(t: a, g: 1))
        k.append(Knot(t: h, g: 1))
        k.append(Knot(t: r, g: 0))
        return k
    }

    /// A continuous event: attack ramp, sustain (or linear decay when not sustained), release
    /// ramp after the duration from wherever the envelope is.
    func continuousKnots(duration d: Double, attack: Double, decay: Double, release: Double) -> [Knot] {
        if d <= 0 {
            // Nothing to play, but the event still gets a (silent) marked segment.
            return [Knot(t: 0, g: 0), Knot(t: 1000, g: 0)]
        }
        var k: [Knot] = []
        k.reserveCapacity(5)
        func level(at t: Double) -> Double {
            if t < attack { return t / attack }
            return max(0, 1 - (t - attack) / decay)
        }
        k.append(Knot(t: 0, g: attack > 0 ? 0 : 1))
        if attack > 0 && attack < d { k.append(Knot(t: micros(attack), g: 1)) }
        if decay.isFinite && attack + decay <= d {
            k.append(Knot(t: micros(attack + decay), g: 0))
            return k
        }
        let endLevel = level(at: d)
        k.append(Knot(t: micros(d), g: endLevel))
        if release > 0 && endLevel > 0 {
            k.append(Knot(t: micros(d + release), g: 0))
        } else {
            k.append(Knot(t: micros(d), g: 0))
        }
        return k
    }
}

/// Seconds to whole µs, rounded; non-finite or absurd values are clamped (±10¹² s).
@inline(__always)
func micros(_ s: Double) -> Int64 {
    guard s.isFinite else { return s.isNaN ? 0 : (s > 0 ? 1_000_000_000_000_000_000 : -1_000_000_000_000_000_000) }
    return Int64(roundedHalfAway(min(1e12, max(-1e12, s)) * 1e6))
}
