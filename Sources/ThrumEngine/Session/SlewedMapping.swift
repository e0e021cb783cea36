import ThrumTime

/// A mapping from host time to a clock that follows an estimate without stepping: the core of
/// ``DeviceTimeline`` (device µs) and of ``FrameTimebase`` (frames of the USB grid, in µs).
///
/// The estimate moves as its samples come in (hundreds of µs in the first seconds of a jittery
/// link, tens later). Applied as steps, every move would land in the interval between two events.
/// So the mapping follows it by slewing, at most ``maximumSlew`` of the elapsed time, at a rate
/// that itself follows the estimated drift by at most ``maximumDriftChange`` per µs. A fresh
/// stream (``restart(at:target:drift:)``) takes the estimate as it is.
struct SlewedMapping {
    /// The largest correction per µs of host time while streaming (20 ppm: 2.4 µs over 120 ms).
    static let maximumSlew = 20e-6
    /// The largest change of the assumed drift per µs of host time (50 ppm per second).
    static let maximumDriftChange = 50e-6 / 1e6

    /// The last mapped instant (fractional µs of the target clock) and the drift assumed there.
    private(set) var anchor: (host: HostTime, micros: Double, drift: Double)?

    /// Starts afresh at host time `t`: the target clock reads `target` µs there and runs at
    /// `drift` (a fraction: 100 ppm is 1e-4) from there on.
    mutating func restart(at t: HostTime, target: Double, drift: Double) -> Double {
        anchor = (t, target, drift)
        return target
    }

    /// The reading at host time `t`, moved toward `target` by at most the slew and run at a drift
    /// moved toward `drift` by at most the drift change, kept inside `driftBounds` (fractions).
    /// Before a ``restart(at:target:drift:)``, it restarts at `t`.
    mutating func value(at t: HostTime, target: Double, drift: Double, driftBounds: ClosedRange<Double>? = nil) -> Double {
        guard let a = anchor else { return restart(at: t, target: target, drift: drift) }
        let elapsed = (t - a.host).microseconds
        // Drive rendered again behind the newest mapping (after a CUT) keeps its old mapping.
        guard t > a.host else { return a.micros + elapsed * (1 + a.drift) }
        let step = Self.maximumDriftChange * elapsed
        var assumed = a.drift + min(max(drift - a.drift, -step), step)
        // Never a drift the samples rule out.
        if let bounds = driftBounds { assumed = min(max(assumed, bounds.lowerBound), bounds.upperBound) }
        let predicted = a.micros + elapsed * (1 + assumed)
        let room = Self.maximumSlew * elapsed
        let mapped = predicted + min(max(target - predicted, -room), room)
        anchor = (t, mapped, assumed)
        return mapped
    }
}
