import ThrumLink
import ThrumTime

/// Serves a ``VirtualDevice`` over a byte transport in real time (what `thrum sim` runs).
///
/// The device's true time follows the host's monotonic clock from the moment serving starts.
/// When the process is descheduled, the next pass catches up by simulating the missed interval
/// step by step, so the firmware still fires every timer at its own device time: a late wake-up
/// delays only when bytes are read and written, never when the actuator is driven.
public final class DeviceServer {
    public let device: VirtualDevice
    public let transport: any ByteTransport
    public let clock: any HostClock
    /// The longest the server sleeps waiting for bytes, in µs (bounds how stale output gets).
    public var maximumWait: HostDuration = .microseconds(250)

    private let origin: HostTime
    /// The link the bytes cross (``link``), with the link faults of ``faults`` on top.
    private var path: FaultyLink<AnyLinkModel>
    private var deviceFaults: [SimulatedPump.DeviceFault] = []
    private var inbound: [(arrival: UInt64, order: Int, bytes: [UInt8])] = []
    private var outbound: [(arrival: UInt64, order: Int, bytes: [UInt8])] = []
    private var order = 0
    /// Called after each pass with the chip's register writes since the last call, each with the
    /// host's monotonic time of its true time (what `thrum sim --trace` writes).
    public var registerWriteSink: (([RegisterWrite], _ hostTime: (UInt64) -> HostTime) -> Void)?
    private var writesReported = 0
    /// Called when an injected device event happens (for the CLI to say so): the event and the true time, µs.
    public var onDeviceFault: ((SimulatedPump.DeviceFault) -> Void)?

    /// How bytes cross between the pseudo-terminal and the device (default: at once). Set before
    /// serving. Any ``LinkModel`` works: a catalogue model or a ``DelayLink`` (`thrum sim --link`).
    public var link: any LinkModel = FixedLatencyLink(latency: 0) {
        didSet { rebuildPath() }
    }

    /// The faults being injected (none by default). Set before serving.
    public var faults = FaultPlan() {
        didSet {
            rebuildPath()
            deviceFaults = SimulatedPump.deviceFaults(of: faults).sorted { $0.time < $1.time }
        }
    }

    /// Link faults injected so far.
    public var injectedLinkFaults: FaultyLink<AnyLinkModel>.Counts { path.counts }

    /// Creates a server; true time zero of the device is now on `clock`.
    public init(device: VirtualDevice, transport: any ByteTransport, clock: any HostClock = MonotonicClock()) {
        self.device = device
        self.transport = transport
        self.clock = clock
        origin = clock.now() - .microseconds(Int64(device.now))
        path = FaultyLink(base: AnyLinkModel(FixedLatencyLink(latency: 0)), plan: FaultPlan())
    }

    private func rebuildPath() {
        path = FaultyLink(base: AnyLinkModel(link), plan: faults)
    }

    /// Serves until the transport fails or `shouldStop` returns true.
    public func serve(shouldStop: () -> Bool = { false }) throws(TransportError) {
        while !shouldStop() {
            try servePass()
        }
    }

    /// One pass: wait briefly for bytes (no longer than until the next chunk is due), bring the
    /// device up to the present, deliver what has arrived, write what is due.
    ///
    /// Bytes cross ``link`` (at once by default) and, with ``faults``, a ``FaultyLink`` both ways,
    /// and the device events happen at their times: a reset restarts the device, a disconnect
    /// closes the transport (the host sees the port hang up) and ends serving with
    /// ``TransportError/disconnected``.
    ///
    /// Causality holds as on a board: the device stamps bytes with the true time they reached it
    /// (never later: the host may already have the ACK that carries the stamp), and what the device
    /// writes leaves no earlier than the true time it was written at. A firmware pass that spent
    /// bus time runs the device ahead of the wall clock by that much, so its output waits here until
    /// the wall clock has caught up.
    public func servePass() throws(TransportError) {
        defer { reportRegisterWrites() }
        let bytes = try transport.read(maxCount: 4096, timeout: waitLimit(at: trueNow))
        let now = trueNow
        while let fault = deviceFaults.first, fault.time <= now {
            deviceFaults.removeFirst()
            device.advance(to: max(device.now, fault.time))
            onDeviceFault?(fault)
            switch fault {
            case .disconnect:
                transport.close()
                throw .disconnected
            case .reset:
                inbound.removeAll()
                device.reset()
            case .clockLoss(_, let micros):
                device.loseClockTime(micros)
            }
        }
        enqueue(bytes, at: now, direction: .hostToDevice, into: &inbound)
        // Each chunk reaches the device at its own arrival, and is stamped there.
        for chunk in takeDue(&inbound, at: now) {
            device.advance(to: max(device.now, chunk.arrival))
            device.receive(chunk.bytes, arrivedAt: chunk.arrival)
            enqueue(device.takeOutput(), at: device.now, direction: .deviceToHost, into: &outbound)
        }
        device.advance(to: now)
        enqueue(device.takeOutput(), at: device.now, direction: .deviceToHost, into: &outbound)
        for chunk in takeDue(&outbound, at: trueNow) { try transport.write(chunk.bytes) }
    }

    /// How long the next read may wait: ``maximumWait``, or less when a chunk falls due sooner.
    private func waitLimit(at now: UInt64) -> HostDuration {
        let soonest = [inbound.lazy.map(\.arrival).min(), outbound.lazy.map(\.arrival).min()].compactMap { $0 }.min()
        guard let next = soonest else { return maximumWait }
        let until = HostDuration.microseconds(Int64(next > now ? next - now : 0))
        return min(maximumWait, until)
    }

    private func enqueue(
        _ bytes: [UInt8], at now: UInt64, direction: LinkDirection,
        into queue: inout [(arrival: UInt64, order: Int, bytes: [UInt8])]
    ) {
        guard !bytes.isEmpty else { return }
        var chunk = bytes
        guard let arrival = path.deliver(&chunk, writtenAt: now, direction: direction) else { return }
        order += 1
        queue.append((arrival, order, chunk))
    }

    private func takeDue(
        _ queue: inout [(arrival: UInt64, order: Int, bytes: [UInt8])], at now: UInt64
    ) -> [(arrival: UInt64, order: Int, bytes: [UInt8])] {
        let due = queue.filter { $0.arrival <= now }.sorted { ($0.arrival, $0.order) < ($1.arrival, $1.order) }
        queue.removeAll { $0.arrival <= now }
        return due
    }

    private func reportRegisterWrites() {
        guard let sink = registerWriteSink else { return }
        let writes = device.chip.trace.registerWrites
        guard writes.count > writesReported else { return }
        let origin = self.origin
        sink(Array(writes[writesReported...]), { origin + .microseconds(Int64($0)) })
        writesReported = writes.count
    }

    private var trueNow: UInt64 {
        UInt64(max(0, (clock.now() - origin).nanoseconds / 1_000))
    }
}
