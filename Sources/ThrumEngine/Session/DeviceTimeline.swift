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
    /// Silence (host µs between the end of the last segment and the next start) after which the
    /// mapping restarts from the model.
    static let restartAfter: Int64 = 1_000_000

    private var lastHostEnd: Int64?
    private var lastDeviceEnd: Int64 = 0
    /// A drift estimate whose samples bound it to ± this (ppm) is trusted from a stream's start.
    static let trustedDriftWidth = 50.0
    /// The largest change of the assumed drift per µs of host time (200 ppm per second).
    static let maximumDriftChange = 200e-6 / 1e6
    /// The last mapped instant (host µs, device µs before the latency shift) and the drift the
    /// mapping assumed there.
    private var anchor: (host: Int64, device: Double, drift: Double)?
    private var lastMappedHostEnd: Int64?

    /// The device time (µs, before any latency shift) the schedule uses for host µs `t`.
    mutating func deviceTime(atHost t: Int64, clock: ClockModel) -> Int64 {
        let target = Double(clock.deviceTime(at: HostTime(nanoseconds: t * 1_000)))
        // The model's drift, kept inside what the samples allow.
        var drift = clock.driftPPM * 1e-6
        if let bounds = clock.driftBoundsPPM { drift = min(max(drift, bounds.lowerBound * 1e-6), bounds.upperBound * 1e-6) }
        guard let a = anchor, let last = lastMappedHostEnd, t - last < Self.restartAfter else {
            // A new stream starts at the device's nominal rate unless the drift is known to within
            // what a crystal may be off anyway.
            let known = clock.driftBoundsPPM.map { ($0.upperBound - $0.lowerBound) / 2 <= Self.trustedDriftWidth } ?? false
            anchor = (t, target, known ? drift : 0)
            return Int64(target.rounded())
        }
        // Drive rendered again behind the newest mapping (after a CUT) keeps its old mapping.
        guard t > a.host else { return Int64((a.device + Double(t - a.host) * (1 + a.drift)).rounded()) }
        // The drift estimate is noisy while the window is short: follow it at a bounded rate, so
        // that it moves the intervals between events by a few µs at most.
        let step = Self.maximumDriftChange * Double(t - a.host)
        let assumed = a.drift + min(max(drift - a.drift, -step), step)
        let predicted = a.device + Double(t - a.host) * (1 + assumed)
        let room = Self.maximumSlew * Double(t - a.host)
        let mapped = predicted + min(max(target - predicted, -room), room)
        anchor = (t, mapped, assumed)
        return Int64(mapped.rounded())
    }

    /// Device start and duration (µs) of a segment spanning host µs `[start, start + duration)`,
    /// scheduled `shift` µs early (the learnt fixed latency).
    mutating func map(hostStart start: Int64, duration: UInt32, clock: ClockModel, shift: Int64) -> (
        start: Int64, duration: UInt32
    ) {
        let end = start + Int64(duration)
        let deviceStart: Int64
        if let previous = lastHostEnd, previous == start {
            deviceStart = lastDeviceEnd
        } else {
            deviceStart = deviceTime(atHost: start, clock: clock) - shift
        }
        let deviceEnd = max(deviceStart + 1, deviceTime(atHost: end, clock: clock) - shift)
        lastHostEnd = end
        lastDeviceEnd = deviceEnd
        lastMappedHostEnd = max(lastMappedHostEnd ?? end, end)
        let length = UInt32(clamping: min(deviceEnd - deviceStart, Int64(ProtocolConstants.segmentMaxDurationMicroseconds)))
        return (deviceStart, length)
    }

    /// Continues the chain from a CUT: the next segment starting at host µs `hostEnd` starts at
    /// device µs `deviceEnd` exactly (where the CUT ended the old drive).
    mutating func restart(hostEnd: Int64, deviceEnd: Int64) {
        lastHostEnd = hostEnd
        lastDeviceEnd = deviceEnd
    }

    /// Forgets the chain (after a STOP, the next segment starts afresh); the slewed mapping stays.
    mutating func reset() { lastHostEnd = nil }
}
