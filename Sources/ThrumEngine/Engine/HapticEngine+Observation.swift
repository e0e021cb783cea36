import ThrumTime

// What tools read from a running engine (the CLI, a studio page, a labgrid driver): link health,
// the device's identity and state, the clock, and the onsets as they arrive (OnsetStream.swift).
// They read the engine's session under the device's lock; none of them changes what plays.
extension HapticEngine {
    /// The link's figures now: round trip, clock offset, drift and bound, the queue, faults
    /// (``LinkHealth``), with this device's lead and how far ahead drive is queued.
    public var linkHealth: LinkHealth {
        device.locked {
            let ahead = device.placement.sentEnd - device.timeNow
            return LinkHealth(
                session: session, leadTime: device.leadTime,
                queuedAhead: device.isRunning && ahead > .zero ? HostDuration.microseconds(ahead.microseconds) : nil)
        }
    }

    /// What the device said about itself (firmware, protocol, device id, capabilities) and the
    /// state it last reported (calibration, power, faults): ``DeviceStatus``.
    public var deviceStatus: DeviceStatus { device.locked { session.status } }

    /// The host clock the engine's time (``currentTime``, every `atTime:`) reads: the monotonic
    /// clock on a port, the virtual clock on the virtual device. For what must share the
    /// engine's timeline (a sound device's sink, ``EngineAudio``).
    public var clock: any HostClock { session.pump.clock }

    /// The device time the clock model maps host time `time` to (for a report's start).
    public func deviceTime(at time: HostTime) -> DeviceTime { device.locked { session.deviceTime(at: time) } }

    /// Exchanges bytes with the device for `duration` (acknowledgements, reports), rendering and
    /// sending no drive: after ``stop(completionHandler:)``, to let the STOP's acknowledgement and
    /// the last reports come back. Link errors are left for the next start to meet. On a device
    /// that runs by itself (not ``SharedDevice/RunMode/manual``) its run thread does the
    /// exchanging, and this waits `duration`.
    public func exchange(for duration: HostDuration) {
        guard device.runMode == .manual else { return device.run(for: duration.seconds) }
        device.locked {
            let until = session.pump.clock.now() + duration
            while session.pump.clock.now() < until { try? session.runOnce(until: until) }
        }
    }
}
