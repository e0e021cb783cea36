import ThrumLink
import ThrumTime

/// A ``LinkPump`` that connects a host ``LinkSession`` to a ``VirtualDevice`` in virtual time.
///
/// Host time and the simulation's true time are the same timeline: host nanoseconds / 1000 =
/// true µs. Each call moves a ``ManualClock`` and the device forward together, delivering bytes
/// through a ``LinkModel``. Nothing waits on the wall clock, so a run is deterministic and takes
/// only as long as the arithmetic. Several pumps may share one clock (several devices on one
/// host timeline): a pump whose clock another moved on brings its device and link up to it
/// before its host side runs again, as a host that was busy with the other links.
public final class SimulatedPump: LinkPump {
    /// The virtual device on the other end.
    public let device: VirtualDevice
    /// The virtual clock, moved by this pump.
    public let manualClock: ManualClock
    public var clock: any HostClock { manualClock }
    /// What the host's port would say of the link (``LinkModel/lineByteTime``).
    public var lineByteTime: Double? { link.lineByteTime }
    /// The link between host and device.
    public var link: any LinkModel
    /// Bytes the host wrote / the device wrote, since creation.
    public private(set) var hostBytesWritten = 0
    public private(set) var deviceBytesWritten = 0

    private struct InFlight {
        var arrival: UInt64
        var order: Int
        var bytes: [UInt8]
    }
    /// A device event injected at a true time: the device disconnects, its microcontroller resets,
    /// or its clock loses `by` µs (``VirtualDevice/loseClockTime(_:)``: timer overflows missed
    /// under a long interrupt-disabled stretch, a simulator whose clock was moved back).
    public enum DeviceFault: Equatable, Sendable {
        case disconnect(at: UInt64)
        case reset(at: UInt64)
        case clockLoss(at: UInt64, by: UInt32)

        var time: UInt64 {
            switch self {
            case .disconnect(let t), .reset(let t), .clockLoss(let t, _): return t
            }
        }
    }

    /// Device events still to happen, in time order. At a disconnect the link goes dead: bytes
    /// in flight are lost and every later ``run(_:until:)`` throws ``TransportError/disconnected``.
    /// At a reset the device restarts (``VirtualDevice/reset()``) and bytes in flight to it are lost.
    public var deviceFaults: [DeviceFault] = [] {
        didSet { deviceFaults.sort { $0.time < $1.time } }
    }
    /// Whether idle stretches are passed at once (``VirtualDevice/skipIdle(to:)``): the same
    /// run, byte for byte and chip write for chip write, at a cost that follows what happens
    /// rather than the time it spans. On by default; off steps through every poll interval.
    public var skipsIdle = true
    /// Idle stretches passed at once so far.
    public private(set) var idleSkips = 0
    /// Calls of ``run(_:until:)`` so far: each is one wake-up of the host.
    public private(set) var runs = 0
    /// Whether a disconnect has happened.
    public private(set) var isDisconnected = false

    /// The device events of `plan` (disconnect and resets), in time order.
    public static func deviceFaults(of plan: FaultPlan) -> [DeviceFault] {
        (plan.disconnect.map { [DeviceFault.disconnect(at: $0)] } ?? []) + plan.resets.map { .reset(at: $0) }
    }

    private var toDevice: [InFlight] = []
    private var toHost: [InFlight] = []
    /// Chunks of device output whose USB IN transfer completes later (true µs, bytes), in the order
    /// the device wrote them: the device is told when each completes (ACK departures).
    private var inTransfers: [(time: UInt64, bytes: Int)] = []
    private var order = 0
    /// The session timer deadline the host is sleeping towards, and when it actually wakes for it
    /// (the deadline plus the link's scheduling latency, drawn once per deadline).
    private var wake: (deadline: HostTime, at: UInt64)?

    /// Creates a pump; the clock must start at the device's true time zero or later.
    public init(device: VirtualDevice, clock: ManualClock, link: any LinkModel = FixedLatencyLink()) {
        self.device = device
        self.manualClock = clock
        self.link = link
    }

    /// Current true time in µs.
    public var trueTime: UInt64 { UInt64(max(0, manualClock.now().nanoseconds / 1_000)) }

    public func run(_ session: LinkSession, until deadline: HostTime) throws(TransportError) {
        runs += 1
        try passHostAbsence()
        while true {
            if isDisconnected { throw .disconnected }
            sendFromHost(session)
            let now = trueTime
            try applyDeviceFaults(at: now)
            let deadlineMicros = UInt64(max(0, (deadline.nanoseconds + 999) / 1_000))
            if now >= deadlineMicros { return }

            var next = min(deadlineMicros, now + device.configuration.pollInterval, max(now, device.nextFirmwarePass) + 1)
            if let fault = deviceFaults.first { next = min(next, max(now + 1, fault.time)) }
            if let t = session.nextDeadline { next = min(next, max(now, wakeTime(for: t))) }
            if let t = toDevice.map(\.arrival).min() { next = min(next, max(now, t)) }
            if let t = toHost.map(\.arrival).min() { next = min(next, max(now, t)) }
            if let t = inTransfers.first?.time { next = min(next, max(now, t)) }
            if next == now { next = now + 1 }
            if next == now + device.configuration.pollInterval, let landing = idleLanding(from: now, until: deadlineMicros, hostTimer: session.nextDeadline) {
                device.skipIdle(to: landing)
                manualClock.advance(to: HostTime(nanoseconds: Int64(landing) * 1_000))
                idleSkips += 1
                continue
            }

            giveStartOfFrame(atOrBefore: now)
            device.advance(to: next)
            manualClock.advance(to: HostTime(nanoseconds: Int64(next) * 1_000))
            completeInTransfers(upTo: next)
            deliverToDevice(upTo: next)
            collectDeviceOutput(at: next)
            let delivered = deliverToHost(session, upTo: next)
            // The host's timers run when the host process wakes, late by the scheduling latency.
            if let t = session.nextDeadline, next >= wakeTime(for: t) { session.poll() }
            if delivered {
                sendFromHost(session)
                return
            }
        }
    }

    /// Where an idle stretch from `now` may be passed at once (``skipsIdle``), or nil.
    ///
    /// The steps this loop would take from `now` (a poll interval each, one firmware pass in
    /// each, nothing in flight, no timer due) change nothing but the pass's stamps, the newest
    /// USB start of frame and the time, while the device is idle and its actuator at rest to the
    /// last bit (``VirtualDevice/canSkipIdle``): so the loop lands on the start of the last such
    /// step before anything is due (a firmware deadline, the host's timer, a device event, the
    /// caller's deadline) and runs from there as it would have. Spans stay below 2³⁰ µs, so that
    /// the firmware's 32-bit clock comparisons see every pass within half its range.
    /// `hostTimer` is the session's next deadline; with `hostAway` (``passHostAbsence()``) the
    /// host is not running, so bytes waiting for it do not stop the skip either.
    private func idleLanding(from now: UInt64, until deadline: UInt64, hostTimer: HostTime?, hostAway: Bool = false) -> UInt64? {
        guard skipsIdle, toDevice.isEmpty, hostAway || toHost.isEmpty, inTransfers.isEmpty, device.now == now, device.canSkipIdle
        else { return nil }
        var stop = deadline
        if let fault = deviceFaults.first { stop = min(stop, max(now + 1, fault.time)) }
        if let t = hostTimer { stop = min(stop, max(now, wakeTime(for: t))) }
        if let t = device.nextFirmwareDeadline { stop = min(stop, t + 1) }
        let interval = device.configuration.pollInterval
        guard stop > now + 1 else { return nil }
        let steps = min((stop - now - 1) / interval, (1 << 30) / interval)
        return steps >= 2 ? now + steps * interval : nil
    }

    /// A host stall: for `duration` µs the host process does not run (a busy machine, a paused
    /// debugger), so nothing it would send goes out and nothing the device sends is read, while
    /// the device and the bytes already on the link carry on. The host's next ``run(_:until:)``
    /// reads what arrived meanwhile.
    public func stallHost(for duration: UInt64) {
        let end = trueTime + duration
        while trueTime < end {
            let now = trueTime
            var next = min(end, now + device.configuration.pollInterval, max(now, device.nextFirmwarePass) + 1)
            if let t = toDevice.map(\.arrival).min() { next = min(next, max(now + 1, t)) }
            if let t = inTransfers.first?.time { next = min(next, max(now + 1, t)) }
            giveStartOfFrame(atOrBefore: now)
            device.advance(to: next)
            manualClock.advance(to: HostTime(nanoseconds: Int64(next) * 1_000))
            completeInTransfers(upTo: next)
            deliverToDevice(upTo: next)
            collectDeviceOutput(at: next)
        }
    }

    /// Brings the device and the bytes on the link up to the clock when the clock moved on without
    /// this pump: another pump on the same ``ManualClock`` (two rigs on one host timeline, where
    /// one link's long catch-up leaves the other unrun), or a test that let time pass with
    /// nothing run (an idle host). The host side was away meanwhile, as in ``stallHost(for:)``:
    /// nothing it would send went out and nothing was read, while the device ran its passes, took
    /// the bytes already on their way when they arrived and wrote its output when it did; the
    /// next run reads what is waiting. Idle stretches are passed at once (``skipsIdle``).
    private func passHostAbsence() throws(TransportError) {
        let end = trueTime
        var now = device.now
        while now < end {
            try applyDeviceFaults(at: now)
            var next = min(end, now + device.configuration.pollInterval, max(now, device.nextFirmwarePass) + 1)
            if let fault = deviceFaults.first { next = min(next, max(now + 1, fault.time)) }
            if let t = toDevice.map(\.arrival).min() { next = min(next, max(now + 1, t)) }
            if let t = inTransfers.first?.time { next = min(next, max(now + 1, t)) }
            if next == now + device.configuration.pollInterval, let landing = idleLanding(from: now, until: end, hostTimer: nil, hostAway: true) {
                device.skipIdle(to: landing)
                idleSkips += 1
                now = landing
                continue
            }
            giveStartOfFrame(atOrBefore: now)
            device.advance(to: next)
            completeInTransfers(upTo: next)
            deliverToDevice(upTo: next)
            collectDeviceOutput(at: next)
            now = next
        }
    }

    /// Applies the device events due by `now`.
    private func applyDeviceFaults(at now: UInt64) throws(TransportError) {
        while let fault = deviceFaults.first, fault.time <= now {
            deviceFaults.removeFirst()
            device.advance(to: max(device.now, fault.time))
            switch fault {
            case .disconnect:
                isDisconnected = true
                toDevice.removeAll()
                toHost.removeAll()
                inTransfers.removeAll()
                throw .disconnected
            case .reset:
                toDevice.removeAll()
                inTransfers.removeAll()  // the new firmware counts its output from zero
                device.reset()
            case .clockLoss(_, let micros):
                device.loseClockTime(micros)
            }
        }
    }

    /// When the host wakes for a timer due at `deadline` (µs of true time).
    private func wakeTime(for deadline: HostTime) -> UInt64 {
        let due = UInt64(max(0, (deadline.nanoseconds + 999) / 1_000))
        if let wake, wake.deadline == deadline { return wake.at }
        let at = due + link.hostWakeLatency(at: due)
        wake = (deadline, at)
        return at
    }

    private func sendFromHost(_ session: LinkSession) {
        var bytes = session.takeOutgoing()
        guard !bytes.isEmpty else { return }
        hostBytesWritten += bytes.count
        if let arrival = link.deliver(&bytes, writtenAt: trueTime, direction: .hostToDevice) {
            order += 1
            toDevice.append(InFlight(arrival: arrival, order: order, bytes: bytes))
        }
    }

    private func deliverToDevice(upTo t: UInt64) {
        let due = toDevice.filter { $0.arrival <= t }.sorted { ($0.arrival, $0.order) < ($1.arrival, $1.order) }
        guard !due.isEmpty else { return }
        toDevice.removeAll { $0.arrival <= t }
        for chunk in due {
            giveStartOfFrame(atOrBefore: chunk.arrival)
            device.receive(chunk.bytes, arrivedAt: chunk.arrival)
        }
    }

    /// Gives the device the newest start of frame of a USB link (none on other links), so that
    /// whatever the firmware sends next can carry it (FRAME_TIME).
    private func giveStartOfFrame(atOrBefore t: UInt64) {
        guard let sof = link.startOfFrame(atOrBefore: t) else { return }
        device.startOfFrame(number: sof.number, at: sof.time)
    }

    private func collectDeviceOutput(at t: UInt64) {
        var bytes = device.takeOutput()
        guard !bytes.isEmpty else { return }
        let written = bytes.count
        deviceBytesWritten += written
        let arrival = link.deliver(&bytes, writtenAt: t, direction: .deviceToHost)
        if let arrival {
            order += 1
            toHost.append(InFlight(arrival: arrival, order: order, bytes: bytes))
        }
        noteInTransfer(of: written, writtenAt: t, delivered: arrival != nil)
    }

    /// Schedules the device's IN-complete for a chunk of `bytes` it wrote at `t`, on a link whose
    /// device sees its transfers. Every chunk is counted, a lost one too (the transfer took it;
    /// the loss was after), so the device's count of bytes taken never falls behind: a count
    /// behind would date a later transfer's completion to an earlier ACK, a departure later than
    /// the truth, which the clock model's bracket must never be given. A lost chunk, whose
    /// completion the link may not have computed, is dated no later than anything it knows.
    private func noteInTransfer(of bytes: Int, writtenAt t: UInt64, delivered: Bool) {
        guard let completion = link.lastInTransferCompletion else { return }
        let previous = inTransfers.last?.time ?? t
        let time = delivered ? max(completion, previous) : max(t, previous)
        inTransfers.append((time, bytes))
    }

    /// Tells the device of the IN transfers completed by `t`.
    private func completeInTransfers(upTo t: UInt64) {
        while let first = inTransfers.first, first.time <= t {
            inTransfers.removeFirst()
            device.inTransferCompleted(bytes: first.bytes, at: first.time)
        }
    }

    private func deliverToHost(_ session: LinkSession, upTo t: UInt64) -> Bool {
        let due = toHost.filter { $0.arrival <= t }.sorted { ($0.arrival, $0.order) < ($1.arrival, $1.order) }
        guard !due.isEmpty else { return false }
        toHost.removeAll { $0.arrival <= t }
        // The host reads them when it runs: the link models its wake-up on every delivery
        // (``JitteredLink``), so every read here is one the data woke.
        for chunk in due { session.receive(chunk.bytes, readerWoken: true) }
        return true
    }
}
