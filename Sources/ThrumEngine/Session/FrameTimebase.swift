import Foundation
import ThrumLink
import ThrumTime

/// One timeline for the devices of a ``HapticEngineGroup`` that see the same USB start-of-frame
/// grid (devices on one host controller, each counting its crystal against the grid:
/// ``ThrumLink/FrameClock``).
///
/// Each device's clock model places the grid in host time with its own error (hundreds of µs in
/// the first second on a jittery link); two devices scheduled each through its own model land that
/// far apart. Here the schedule runs on the grid instead: a host time maps to a grid position (the
/// devices' estimates of it averaged, followed by slewing, ``SlewedMapping``), and each device
/// reads that position through its own count. Two devices then start an event at the same grid
/// position, apart only by how exactly each takes its SOF interrupts (µs); where the grid sits
/// against the host's clock is the average of the devices' estimates, as uncertain as any one
/// device's alignment.
///
/// The grid runs at the host's rate until every member's clock window spans
/// ``DeviceTimeline/trustedWindow``; from then on at the rate the members' models and counts
/// together measure (the host controller's crystal against the host's clock).
///
/// Shared by the group's devices, each of which runs under its own lock: members publish what
/// the timeline needs (``publish(_:estimate:frames:)``) and read it under this one.
public final class FrameTimebase: @unchecked Sendable {
    /// A device's place in a timebase.
    struct Membership {
        let timebase: FrameTimebase
        let index: Int

        /// The device time at host time `t` on the group's timeline, read through this device's
        /// count `frames` (to the nearest µs); nil until every member has published a fitted count.
        func deviceTime(atHost t: HostTime, frames: FrameClock) -> DeviceTime? {
            guard frames.isFitted, let position = timebase.gridMicros(atHost: t),
                let micros = frames.deviceMicros(atFrame: position / FrameClock.framePeriod)
            else { return nil }
            return DeviceTime(microseconds: Int64(micros.rounded()))
        }
    }

    /// What one member publishes: its clock model's estimate as a line, and its frame count.
    struct Member {
        /// The estimate's device time at `host`, its drift (ppm) and its window's span.
        var host: HostTime
        var device: DeviceTime
        var driftPPM: Double
        var windowSpan: HostDuration
        var frames: FrameClock
    }

    private let lock = NSLock()
    private var members: [Member?]
    private var mapping = SlewedMapping()
    private var lastAsked: HostTime?

    /// A timebase for `count` devices.
    public init(count: Int) { members = Array(repeating: nil, count: count) }

    /// Whether every member has published a fitted frame count.
    public var isComplete: Bool { lock.withLock { members.allSatisfy { $0?.frames.isFitted == true } } }

    /// Member `index` publishes its clock model (as of now) and frame count.
    func publish(_ index: Int, estimate clock: ClockModel, frames: FrameClock) {
        guard let last = clock.samples.last else { return }
        let member = Member(
            host: last.hostReceive, device: clock.deviceTime(at: last.hostReceive),
            driftPPM: clock.driftPPM, windowSpan: clock.windowSpan, frames: frames)
        lock.withLock { members[index] = member }
    }

    /// Member `index` withdraws (its device rebooted: a new clock, no count yet).
    func withdraw(_ index: Int) { lock.withLock { members[index] = nil } }

    /// The group's grid position (µs of frames) at host time `t`; nil until complete.
    func gridMicros(atHost t: HostTime) -> Double? {
        lock.withLock {
            var positions: [Double] = []
            var rates: [Double] = []
            var long = true
            for case let member? in members {
                let elapsed = (t - member.host).microseconds * (1 + member.driftPPM * 1e-6)
                let device = member.device + .microseconds(Int64(elapsed.rounded()))
                guard let frame = member.frames.frame(atDevice: device),
                    let counted = member.frames.driftPPM
                else { return nil }
                positions.append(frame * FrameClock.framePeriod)
                // The grid against the host: the device against the host less the device against the grid.
                rates.append(member.driftPPM - counted)
                long = long && member.windowSpan >= DeviceTimeline.trustedWindow
            }
            guard positions.count == members.count, !positions.isEmpty else { return nil }
            let target = positions.reduce(0, +) / Double(positions.count)
            let drift = long ? rates.reduce(0, +) / Double(rates.count) * 1e-6 : 0
            defer { lastAsked = max(lastAsked ?? t, t) }
            guard mapping.anchor != nil, let last = lastAsked, t - last < DeviceTimeline.restartAfter else {
                return mapping.restart(at: t, target: target, drift: drift)
            }
            return mapping.value(at: t, target: target, drift: drift)
        }
    }

    /// The grid position (fractional frames) of device time `device` on member `index`'s count,
    /// with how far off it may be (frames); nil when that member has no fitted count.
    func frame(ofMember index: Int, atDevice device: DeviceTime) -> (frame: Double, uncertainty: Double)? {
        lock.withLock {
            guard let frames = members[index]?.frames, let f = frames.frame(atDevice: device),
                let u = frames.uncertaintyMicros(atDevice: device)
            else { return nil }
            return (f, u / FrameClock.framePeriod)
        }
    }
}
