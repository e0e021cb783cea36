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
/// While drive streams, the mapping follows the clock model by slewing (``SlewedMapping``):
/// intervals stay device-timed and the absolute alignment converges to the model's. After a
/// silence of ``restartAfter`` the mapping takes the model's estimate as it is, and so it does at
/// the start of drive after a gap when the guaranteed bracket rules the mapping out
/// (``ruledOutMargin``).
///
/// The drift a stream starts at: where the device counts its crystal against the USB
/// start-of-frame grid (``ThrumLink/FrameClock``), that count, taking the grid to run at the
/// host's rate until the clock model's window spans ``trustedWindow`` (the host controller's
/// crystal and the host's clock are a few tens of ppm apart; a young round-trip estimate is
/// further off). Without it, the device's nominal rate, unless the model's drift is bounded to
/// ``trustedDriftWidth`` or its window spans ``trustedWindow``.
///
/// In a ``HapticEngineGroup`` whose devices all report frame times, the mapping is the group's
/// (``FrameTimebase``): one timeline on the shared frame grid, read through each device's count.
struct DeviceTimeline {
    /// Silence (between the end of the last segment and the next start) after which the mapping
    /// restarts from the model.
    static let restartAfter = HostDuration.seconds(1)
    /// A drift estimate whose samples bound it to ± this (ppm) is trusted from a stream's start.
    static let trustedDriftWidth = 50.0
    /// A window of samples spanning this long gives a drift estimate trusted from a stream's start
    /// (on `usb-fs`, 4 s of samples put the estimate within ≈ 20 ppm, where the guaranteed bounds
    /// are still ±300 ppm wide; docs/timing.md).
    static let trustedWindow = HostDuration.seconds(4)

    private var lastHostEnd: HostTime?
    private var lastDeviceEnd = DeviceTime.zero
    private var mapping = SlewedMapping()
    private var lastMappedHostEnd: HostTime?
    /// The group's timeline and this device's place in it, when it is in a group.
    var timebase: FrameTimebase.Membership?

    /// The drift (ppm) and whether a stream may start at it, from the clock model and the
    /// device's frame count.
    static func drift(clock: ClockModel, frames: FrameClock?) -> (ppm: Double, known: Bool) {
        var model = clock.driftPPM
        if let bounds = clock.driftBoundsPPM { model = min(max(model, bounds.lowerBound), bounds.upperBound) }
        let long = clock.windowSpan >= trustedWindow
        if let counted = frames?.driftPPM, !long { return (counted, true) }
        let bounded = clock.driftBoundsPPM.map { ($0.upperBound - $0.lowerBound) / 2 <= trustedDriftWidth } ?? false
        return (model, bounded || long)
    }

    /// How far outside the clock model's guaranteed bracket the slewed mapping may lie at the
    /// start of a segment after a gap before it steps to the model's estimate
    /// (``replaceIfRuledOut(at:clock:)``): half the `mistimed` tolerance
    /// (``DevicePlacement/mistimedTolerance``, 1 ms). Nearer than that is left to slewing, so the
    /// ordinary narrowing of a young window does not step the rhythm.
    static let ruledOutMargin = HostDuration.microseconds(500)

    /// The device time (before any latency shift) the schedule uses for host time `t`.
    mutating func deviceTime(atHost t: HostTime, clock: ClockModel, frames: FrameClock? = nil) -> DeviceTime {
        if let timebase, let frames, let device = timebase.deviceTime(atHost: t, frames: frames) { return device }
        let target = Double(clock.deviceTime(at: t).microseconds)
        let drift = Self.drift(clock: clock, frames: frames)
        guard mapping.anchor != nil, let last = lastMappedHostEnd, t - last < Self.restartAfter else {
            return Self.deviceTime(mapping.restart(at: t, target: target, drift: drift.known ? drift.ppm * 1e-6 : 0))
        }
        let bounds = clock.driftBoundsPPM.map { ($0.lowerBound * 1e-6)...($0.upperBound * 1e-6) }
        return Self.deviceTime(mapping.value(at: t, target: target, drift: drift.ppm * 1e-6, driftBounds: bounds))
    }

    /// Steps the slewed mapping to the model's estimate at host time `t` when the samples rule
    /// it out: it lies more than ``ruledOutMargin`` outside the guaranteed bracket there. A start
    /// placed on a wide bracket (a starved host's slow return legs during the connect and the
    /// start's narrowing) is off by up to half its width, and slewing at 20 ppm would keep every
    /// later event that far off once the bracket narrows (docs/timing.md, "A whole play offset").
    /// Only at a segment that does not continue the previous one, so a continuous event never
    /// steps; drive already sent keeps its placement. The drift assumed so far is kept.
    private mutating func replaceIfRuledOut(at t: HostTime, clock: ClockModel) {
        guard timebase == nil, let anchor = mapping.anchor, let last = lastMappedHostEnd, t - last < Self.restartAfter else { return }
        let target = Double(clock.deviceTime(at: t).microseconds)
        var probe = mapping
        let reading = probe.value(at: t, target: target, drift: anchor.drift)
        // The guaranteed bracket (``ThrumLink/ClockModel/hostTimeBounds(atDevice:)``), as `mistimed`
        // judges an onset: the host times at which the device clock could read the mapping's value.
        let margin = Self.ruledOutMargin
        guard let allowed = clock.hostTimeBounds(atDevice: DeviceTime(microseconds: Int64(reading.rounded()))),
            t < allowed.lowerBound - margin || t > allowed.upperBound + margin,
            // Only to an estimate the samples allow (a window whose legs changed can tilt it).
            let better = clock.hostTimeBounds(atDevice: DeviceTime(microseconds: Int64(target.rounded()))), better.contains(t)
        else { return }
        _ = mapping.restart(at: t, target: target, drift: anchor.drift)
    }

    private static func deviceTime(_ micros: Double) -> DeviceTime { DeviceTime(microseconds: Int64(micros.rounded())) }

    /// Device start and length of a segment spanning `duration` of host time from `start`,
    /// scheduled `shift` early (the learnt fixed latency). The length is at least 1 µs and at most
    /// a segment's longest (``ThrumWire/ProtocolConstants/segmentMaxDurationMicroseconds``).
    mutating func map(
        hostStart start: HostTime, duration: HostDuration, clock: ClockModel, frames: FrameClock? = nil, shift: DeviceDuration
    ) -> (start: DeviceTime, duration: DeviceDuration) {
        let end = start + duration
        let deviceStart: DeviceTime
        if let previous = lastHostEnd, previous == start {
            deviceStart = lastDeviceEnd
        } else {
            replaceIfRuledOut(at: start, clock: clock)
            deviceStart = deviceTime(atHost: start, clock: clock, frames: frames) - shift
        }
        let deviceEnd = max(deviceStart + .microseconds(1), deviceTime(atHost: end, clock: clock, frames: frames) - shift)
        lastHostEnd = end
        lastDeviceEnd = deviceEnd
        lastMappedHostEnd = max(lastMappedHostEnd ?? end, end)
        let length = min(deviceEnd - deviceStart, .microseconds(Int64(ProtocolConstants.segmentMaxDurationMicroseconds)))
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

    /// Forgets the chain and the slewed mapping: the device clock moved (the clock model's window
    /// restarted on it), so the next mapped instant takes the model's estimate as it is. Slewing
    /// at 20 ppm would take hours to follow a step of tens of ms.
    mutating func forgetMapping() {
        lastHostEnd = nil
        mapping = SlewedMapping()
    }
}
