import ThrumCompiler
import ThrumLink
import ThrumTime
import ThrumWire

/// Maps drive segments from host time to device time so that what is contiguous on the host
/// stays contiguous on the device.
///
/// Each end of a segment goes through the clock model, so crystal drift is followed (a 1 s
/// segment on a 100 ppm crystal lasts 1.0001 s of device time). A segment that starts where the
/// previous one ended reuses that end exactly: converting the two separately could leave a 1 µs
/// gap — and the device, which honours gaps, would write amplitude 0 in the middle of a
/// continuous event.
struct DeviceTimeline {
    private var lastHostEnd: Int64?
    private var lastDeviceEnd: Int64 = 0

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
            deviceStart = Int64(clock.deviceTime(at: HostTime(nanoseconds: start * 1_000))) - shift
        }
        let deviceEnd = max(deviceStart + 1, Int64(clock.deviceTime(at: HostTime(nanoseconds: end * 1_000))) - shift)
        lastHostEnd = end
        lastDeviceEnd = deviceEnd
        let length = UInt32(clamping: min(deviceEnd - deviceStart, Int64(ProtocolConstants.segmentMaxDurationMicroseconds)))
        return (deviceStart, length)
    }

    /// Continues the chain from a CUT: the next segment starting at host µs `hostEnd` starts at
    /// device µs `deviceEnd` exactly (where the CUT ended the old drive).
    mutating func restart(hostEnd: Int64, deviceEnd: Int64) {
        lastHostEnd = hostEnd
        lastDeviceEnd = deviceEnd
    }

    /// Forgets the chain (after a STOP, the next segment starts afresh).
    mutating func reset() { lastHostEnd = nil }
}
