import Foundation

/// Computes how much earlier to start an event's drive so that its felt onset (the predicted
/// acceleration envelope reaching 50 % of the event's own peak) lands where the requested
/// envelope reaches 50 % of its peak: the requested time for transients and step attacks,
/// half the AttackTime later for ramped attacks. The prediction plays the event's envelope
/// through the firmware's RTP write law and the driver's closed loop (`ActuatorResponse`,
/// `ClosedLoopEnvelope`), starting from rest.
struct FeltOnsetEstimator {
    let response: ActuatorResponse
    /// Upper bound of a pre-shift, s.
    let maxShift = 0.1

    /// How long after the drive drops from its steady full level to zero the felt envelope is
    /// at half that level, s: the driver's start latency, then the closed loop's braked fall
    /// (`ClosedLoopEnvelope`, the model the onset's shift comes from) to 50 %.
    let fallLead: Double

    init(response: ActuatorResponse) {
        self.response = response
        var loop = ClosedLoopEnvelope(response: response)
        loop.advance(10 * response.timeConstant, target: 1)
        let half = loop.envelope / 2
        let dt = 25e-6
        var t = 0.0
        while loop.envelope > half && t < 0.1 {
            loop.advance(dt, target: 0)
            t += dt
        }
        fallLead = response.startLatency + t
    }


    /// A shape, amplitude and requested 50 % point. Hashes one precomputed fingerprint (the
    /// knots are few, but hashing each field through SipHash was a visible share of a compile);
    /// equality still compares every field.
    struct Key: Hashable {
        var knots: [Knot]
        var amplitude: Int
        var requestedHalf: Int64
        var fingerprint: UInt64

        init(knots: [Knot], amplitude: Int, requestedHalf: Int64) {
            self.knots = knots
            self.amplitude = amplitude
            self.requestedHalf = requestedHalf
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            @inline(__always) func mix(_ x: UInt64) { h = (h ^ x) &* 0x0000_0100_0000_01b3; h ^= h >> 29 }
            mix(UInt64(bitPattern: Int64(amplitude)))
            mix(UInt64(bitPattern: requestedHalf))
            for k in knots {
                mix(UInt64(bitPattern: k.t))
                mix(k.g.bitPattern)
            }
            fingerprint = h
        }

        static func == (a: Key, b: Key) -> Bool {
            a.fingerprint == b.fingerprint && a.amplitude == b.amplitude && a.requestedHalf == b.requestedHalf && a.knots == b.knots
        }

        func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }
    }

    /// Recent shifts and held drives (``heldShift(for:amplitude:cache:memo:)``) by envelope,
    /// amplitude and requested attack, direct-mapped and compared bit for bit (knot times and
    /// gains, `u`, the attack), so a hit is exactly what `compute` would return, the drive's knots
    /// shared. Keyed by content, not by the envelope's buffer: continuous events build their own
    /// knot arrays, and equal envelopes recur (patterns reuse a handful of values).
    struct Memo {
        /// Slots (a power of two): a few hundred distinct envelopes rarely share one.
        static let slots = 1024
        private var amplitudes = [UInt64](repeating: 0, count: Self.slots)
        private var attacks = [UInt64](repeating: 0, count: Self.slots)
        private var envelopes = [[Knot]](repeating: [], count: Self.slots)
        private var shifts = [Double](repeating: .nan, count: Self.slots)
        private var drives = [[Knot]](repeating: [], count: Self.slots)

        mutating func shift(_ shape: EventShape, _ u: Double, compute: () -> (Double, [Knot])) -> (Double, [Knot]) {
            let a = u.bitPattern, r = shape.requestedAttack.bitPattern
            var h = (a &* 0xC2B2_AE3D_27D4_EB4F) ^ (r &* 0x1656_67B1_9E37_79F9)
            for k in shape.knots {
                h = (h ^ UInt64(bitPattern: k.t)) &* 0x9E37_79B9_7F4A_7C15
                h = (h ^ k.g.bitPattern) &* 0x9E37_79B9_7F4A_7C15
            }
            let slot = Int(truncatingIfNeeded: (h ^ (h >> 32) ^ (h >> 48)) & UInt64(Self.slots - 1))
            if !shifts[slot].isNaN, amplitudes[slot] == a, attacks[slot] == r, Self.same(envelopes[slot], shape.knots) {
                return (shifts[slot], drives[slot])
            }
            let (s, drive) = compute()
            amplitudes[slot] = a
            attacks[slot] = r
            envelopes[slot] = shape.knots
            shifts[slot] = s
            drives[slot] = drive
            return (s, drive)
        }

        /// Whether two envelopes have the same knots, bit for bit.
        private static func same(_ x: [Knot], _ y: [Knot]) -> Bool {
            guard x.count == y.count else { return false }
            for i in x.indices where x[i].t != y[i].t || x[i].g.bitPattern != y[i].g.bitPattern { return false }
            return true
        }
    }

    /// The pre-shift in seconds for a shape played at constant amplitude `u` (0…1), and the
    /// envelope to drive it with. The onset moves earlier by the felt delay of the rise, the end
    /// only by the felt delay of the fall: the drive holds the shape's peak `shift − fallLead`
    /// longer (``EventShape/holdingPeak(_:longerBy:)``; the shape itself when the shift is 0). A
    /// longer hold can raise a short event's own peak (and so move its 50 % point), so the shift
    /// is taken again on the held drive, twice; the shift returned is the one of the drive returned.
    func heldShift(for shape: EventShape, amplitude u: Double, cache: inout [Key: Double], memo: inout Memo) -> (shift: Double, knots: [Knot]) {
        memo.shift(shape, u) {
            var shift = self.shift(for: shape, amplitude: u, cache: &cache)
            var drive = shape
            guard shift > 0 else { return (shift, shape.knots) }
            for _ in 0..<2 {
                drive.knots = EventShape.holdingPeak(shape.knots, longerBy: micros(max(0, shift - fallLead)))
                shift = self.shift(for: drive, amplitude: u, cache: &cache)
            }
            return (shift, drive.knots)
        }
    }

    /// The pre-shift in seconds for a shape played at constant amplitude `u` (0…1).
    func shift(for shape: EventShape, amplitude u: Double, cache: inout [Key: Double]) -> Double {
        guard u > 0 else { return 0 }
        let byte = Int((u * 255).rounded())
        let window = micros(shape.requestedAttack + 6 * response.timeConstant) + 1000
        let knots = truncate(shape.knots, at: window)
        let key = Key(knots: knots, amplitude: byte, requestedHalf: micros(shape.requestedAttack / 2))
        if let s = cache[key] { return s }
        let felt = feltHalfTime(knots: knots, amplitude: Double(byte) / 255)
        let s = min(maxShift, max(0, felt - shape.requestedAttack / 2))
        cache[key] = s
        return s
    }

    /// Time (s, from the drive onset) at which the predicted envelope first reaches half its
    /// peak. Event-driven: the RTP the firmware writes is constant between write instants (each
    /// knot interval is a segment, written at its start — a ramp up from 0 at the instant it
    /// reaches code 1, PROTOCOL.md §4.1 — then every `writeInterval` with the ramp value taken
    /// `writeTime` before the write completes; 8-bit; 0 after the last knot),
    /// the loop's level is constant between its updates, so the envelope is a chain of
    /// exponential stretches and the crossing is solved in closed form.
    func feltHalfTime(knots: [Knot], amplitude u: Double) -> Double {
        guard let end = knots.last?.t, end > 0 else { return 0 }
        let r = response
        var loop = ClosedLoopEnvelope(response: r)
        var stretches: [ClosedLoopEnvelope.Stretch]? = []
        stretches!.reserveCapacity(256)
        let latency = r.startLatency
        let interval = micros(r.writeInterval), writeTime = micros(r.writeTime)
        var now = 0.0
        // Plays RTP value `v` from `now` until µs time `until` (plus the driver's start latency).
        func hold(_ v: Double, until: Int64) {
            let t = Double(until) * 1e-6 + latency
            if t > now {
                loop.advance(t - now, target: v, now: now, recording: &stretches)
                if !loop.running { stretches!.append(.init(end: t, envelope: loop.envelope, level: .nan)) }
                now = t
            }
        }
        func byte(_ g: Double) -> Double { (u * g * 255).rounded() / 255 }
        hold(0, until: knots[0].t)
        for k in 0..<(knots.count - 1) {
            let a = knots[k], b = knots[k + 1]
            guard b.t > a.t else { continue }
            if a.g == b.g {
                hold(byte(a.g), until: b.t)
                continue
            }
            var w = a.t
            var n: Int64 = 0
            // A ramp up from 0 is first written where it reaches code 1 (firmware §4.1).
            let to = (u * b.g * 255).rounded()
            if byte(a.g) == 0, to > 0 {
                let e1 = Int64((Double(b.t - a.t) / (2 * to)).rounded(.up))
                if e1 < b.t - a.t {
                    w = a.t + e1
                    hold(0, until: w)
                }
            }
            let first = w
            while w < b.t {
                let at = n == 0 ? first : w - writeTime
                let g = a.g + (b.g - a.g) * Double(at - a.t) / Double(b.t - a.t)
                let next = min(b.t, w + interval)
                hold(byte(g), until: next)
                w = next
                n += 1
            }
        }
        // After the last knot: zero until the loop has braked and stopped (at most 100 ms).
        let stop = Double(end) * 1e-6 + latency + 0.1
        let halfPeriod = 0.5 / r.resonanceHz
        while loop.running && now < stop {
            loop.advance(halfPeriod, target: 0, now: now, recording: &stretches)
            now += halfPeriod
        }
        let list = stretches!
        var peak = 0.0
        for s in list where s.envelope > peak { peak = s.envelope }
        guard peak > 0 else { return 0 }
        let half = peak / 2
        var t0 = 0.0, e0 = 0.0
        for s in list {
            if s.envelope >= half && e0 < half {
                // Rising towards `level` with τ: e(t) = L + (e0 − L)·exp(−(t − t0)/τ).
                let l = s.level
                if l.isFinite && l > half {
                    let t = t0 + r.timeConstant * log((l - e0) / (l - half))
                    return min(s.end, max(t0, t))
                }
                return s.end
            }
            t0 = s.end
            e0 = s.envelope
        }
        return 0
    }

    /// The knots up to `limit` µs (the envelope past the window cannot move the onset).
    private func truncate(_ knots: [Knot], at limit: Int64) -> [Knot] {
        guard let last = knots.last, last.t > limit else { return knots }
        var out: [Knot] = []
        for (i, kn) in knots.enumerated() {
            if kn.t <= limit { out.append(kn); continue }
            let prev = knots[i - 1]
            let g = prev.t == kn.t ? kn.g : prev.g + (kn.g - prev.g) * Double(limit - prev.t) / Double(kn.t - prev.t)
            out.append(Knot(t: limit, g: g))
            break
        }
        return out
    }
}
