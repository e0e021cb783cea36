import ThrumCompiler
import ThrumLink
import ThrumTime
import ThrumWire

/// Maps drive segments from host time to device time so that what is contiguous on the host
/// stays contiguous on the device, and so that the rhythm of what plays is the device's.
///
/// Each end of a segment goes through the clock model, so crystal drift is followed (a 1 s
/// segment on a 100 ppm crystal lasts 1.0001 s of device time). A segment that starts where the
/// previous one ended reuses that end exactly: converting the two separately could leave a 1 µs
/// gap — and the device, which honours gaps, would write amplitude 0 in the middle of a
/// continuous event.
///
/// The clock model's estimate moves as its bracket tightens (hundreds of µs in the first seconds
/// of a jittery link, tens later). Applied as steps, every move would land in the interval
/// between two events. So while drive streams, the mapping follows the model by slewing, at most
/// ``maximumSlew`` of the elapsed time (20 ppm: 2.4 µs over a 120 ms interval): intervals stay
/// device-timed and the absolute alignment converges to the model's. After a silence of
/// ``restartAfter`` the mapping takes the model's estimate as it is.
struct DeviceTimeline {
    /// The largest correction per µs of host time while streaming.
    static let maximumSlew = 20e-6
    /// Silence (between the end of the last segment and the next start) after which the mapping
    /// restarts from the model.
    static let restartAfter = HostDuration.seconds(1)

    private var lastHostEnd: HostTime?
    private var lastDeviceEnd = DeviceTime.zero
    /// A drift estimate whose samples bound it to ± this (ppm) is trusted from a stream's start.
    static let trustedDriftWidth = 50.0
    /// A window of samples spanning this long gives a drift estimate trusted from a stream's start
    /// (on `usb-fs`, 4 s of samples put the estimate within ≈ 20 ppm, where the guaranteed bounds
    /// are still ±300 ppm wide; docs/timing.md).
    static let trustedWindow = HostDuration.seconds(4)
    /// The largest change of the assumed drift per µs of host time (50 ppm per second).
    static let maximumDriftChange = 50e-6 / 1e6
    /// The last mapped instant (the device time is before the latency shift, fractional µs) and
    /// the drift the mapping assumed there.
    private var anchor: (host: HostTime, deviceMicros: Double, drift: Double)?
    private var lastMappedHostEnd: HostTime?

    /// The device time (before any latency shift) the schedule uses for host time `t`.
    mutating func deviceTime(atHost t: HostTime, clock: ClockModel) -> DeviceTime {
        let target = Double(clock.deviceTime(at: t).microseconds)
        // The model's drift, kept inside what the samples allow.
        var drift = clock.driftPPM * 1e-6
        if let bounds = clock.driftBoundsPPM { drift = min(max(drift, bounds.lowerBound * 1e-6), bounds.upperBound * 1e-6) }
        guard let a = anchor, let last = lastMappedHostEnd, t - last < Self.restartAfter else {
            // A new stream starts at the device's nominal rate unless the drift is known to within
            // what a crystal may be off anyway, or the window is long enough for its estimate to
            // beat the nominal rate (the guaranteed bounds stay wide for long on a jittery link).
            let bounded = clock.driftBoundsPPM.map { ($0.upperBound - $0.lowerBound) / 2 <= Self.trustedDriftWidth } ?? false
            let known = bounded || clock.windowSpan >= Self.trustedWindow
            anchor = (t, target, known ? drift : 0)
            return Self.deviceTime(target)
        }
        let elapsed = (t - a.host).microseconds
        // Drive rendered again behind the newest mapping (after a CUT) keeps its old mapping.
        guard t > a.host else { return Self.deviceTime(a.deviceMicros + elapsed * (1 + a.drift)) }
        // The drift estimate is noisy while the window is short: follow it at a bounded rate, so
        // that it moves the intervals between events by a few µs at most.
        let step = Self.maximumDriftChange * elapsed
        var assumed = a.drift + min(max(drift - a.drift, -step), step)
        // Never a drift the samples rule out.
        if let bounds = clock.driftBoundsPPM { assumed = min(max(assumed, bounds.lowerBound * 1e-6), bounds.upperBound * 1e-6) }
        let predicted = a.deviceMicros + elapsed * (1 + assumed)
        let room = Self.maximumSlew * elapsed
        let mapped = predicted + min(max(target - predicted, -room), room)
        anchor = (t, mapped, assumed)
        return Self.deviceTime(mapped)
    }

    private static func deviceTime(_ micros: Double) -> DeviceTime { DeviceTime(microseconds: Int64(micros.rounded())) }

    /// Device start and duration (µs of device time) of a segment spanning `duration` µs of host
    /// time from `start`, scheduled `shift` early (the learnt fixed latency).
    mutating func map(hostStart start: HostTime, duration: UInt32, clock: ClockModel, shift: DeviceDuration) -> (
        start: DeviceTime, duration: UInt32
    ) {
        let end = start + .microseconds(Int64(duration))
        let deviceStart: DeviceTime
        if let previous = lastHostEnd, previous == start {
            deviceStart = lastDeviceEnd
        } else {
            deviceStart = deviceTime(atHost: start, clock: clock) - shift
        }
        let deviceEnd = max(deviceStart + .microseconds(1), deviceTime(atHost: end, clock: clock) - shift)
        lastHostEnd = end
        lastDeviceEnd = deviceEnd
        lastMappedHostEnd = max(lastMappedHostEnd ?? end, end)
        let length = UInt32(
            clamping: min((deviceEnd - deviceStart).microseconds, Int64(ProtocolConstants.segmentMaxDurationMicroseconds)))
        return (deviceStart, length)
    }

    /// Continues the chain from a CUT: the next segment starting at host time `hostEnd` starts at
    /// device time `deviceEnd` exactly (where the CUT ended the old drive).
    mutating func restart(hostEnd: HostTime, deviceEnd: DeviceTime) {
        lastHostEnd = hostEnd
        lastDeviceEnd = deviceEnd
    }

    /// Forgets the chain (after a STOP, the next segment starts afresh); the slewed mapping stays.
    mutating func reset() { lastHostEnd = nil }
}
