/// A linear stretch of an envelope over [t0, t1) µs, t0 < t1, values 0…1.
struct Piece: Sendable {
    var t0: Int64
    var t1: Int64
    var v0: Double
    var v1: Double

    /// Linear interpolation at `t` (inside the piece).
    @inline(__always)
    func value(at t: Int64) -> Double {
        if v0 == v1 || t <= t0 { return v0 }
        if t >= t1 { return v1 }
        return v0 + (v1 - v0) * Double(t - t0) / Double(t1 - t0)
    }

    var isFlat: Bool { v0 == v1 }
}
