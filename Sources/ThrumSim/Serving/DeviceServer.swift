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
    /// Link faults applied to bytes both ways (nil: none), and the device events still to come.
    private var link: FaultyLink<FixedLatencyLink>?
    private var deviceFaults: [SimulatedPump.DeviceFault] = []
    private var inbound: [(arrival: UInt64, order: Int, bytes: [UInt8])] = []
    private var outbound: [(arrival: UInt64, order: Int, bytes: [UInt8])] = []
    private var order = 0
    /// Bytes that came while the device was still busy with earlier work (a frame whose handling
    /// took bus time: storage writes and the read-back of a flash), waiting as in its receive
    /// buffer; and what it answered, held until true time reaches the end of that work. A busy
    /// microcontroller answers when done and reads no frame meanwhile: its clock never stands still.
    private var heldInput: [UInt8] = []
    private var heldOutput: [UInt8] = []
    /// Called after each pass with the chip's register writes since the last call, each with the
    /// host's monotonic time of its true time (what `thrum sim --trace` writes).
    public var registerWriteSink: (([RegisterWrite], _ hostTime: (UInt64) -> HostTime) -> Void)?
    private var writesReported = 0
    /// Called when an injected device event happens (for the CLI to say so): the event and the true time, µs.
    public var onDeviceFault: ((SimulatedPump.DeviceFault) -> Void)?

    /// The faults being injected (none by default). Set before serving.
    public var faults = FaultPlan() {
        didSet {
            link = faults.affectsLink ? FaultyLink(base: FixedLatencyLink(latency: 0), plan: faults) : nil
            deviceFaults = SimulatedPump.deviceFaults(of: faults).sorted { $0.time < $1.time }
        }
    }

    /// Link faults injected so far.
    public var injectedLinkFaults: FaultyLink<FixedLatencyLink>.Counts { link?.counts ?? .init() }

    /// Creates a server; true time zero of the device is now on `clock`.
    public init(device: VirtualDevice, transport: any ByteTransport, clock: any HostClock = MonotonicClock()) {
        self.device = device
        self.transport = transport
        self.clock = clock
        origin = clock.now() - .microseconds(Int64(device.now))
    }

    /// Serves until the transport fails or `shouldStop` returns true.
    public func serve(shouldStop: () -> Bool = { false }) throws(TransportError) {
        while !shouldStop() {
            try servePass()
        }
    }

    /// One pass: wait briefly for bytes, bring the device up to the present, deliver, write output.
    ///
    /// With ``faults``, bytes cross a ``FaultyLink`` both ways and the device events happen at
    /// their times: a reset restarts the device, a disconnect closes the transport (the host sees
    /// the port hang up) and ends serving with ``TransportError/disconnected``.
    public func servePass() throws(TransportError) {
        defer { reportRegisterWrites() }
        let bytes = try transport.read(maxCount: 4096, timeout: maximumWait)
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
            }
        }
        device.advance(to: now)
        guard link != nil else {
            heldInput += bytes
            // Still busy (the device's time is ahead of true time): the bytes wait.
            guard device.now <= now else { return }
            if !heldOutput.isEmpty {
                try transport.write(heldOutput)
                heldOutput = []
            }
            let input = heldInput
            heldInput = []
            device.receive(input)
            let output = device.takeOutput()
            if device.now > now {
                heldOutput = output
            } else if !output.isEmpty {
                try transport.write(output)
            }
            return
        }
        enqueue(bytes, at: now, direction: .hostToDevice, into: &inbound)
        if device.now <= now {
            for chunk in takeDue(&inbound, at: now) { device.receive(chunk) }
        }
        // Written when the device is done with the work that produced it.
        enqueue(device.takeOutput(), at: max(now, device.now), direction: .deviceToHost, into: &outbound)
        for chunk in takeDue(&outbound, at: now) { try transport.write(chunk) }
    }

    private func enqueue(
        _ bytes: [UInt8], at now: UInt64, direction: LinkDirection,
        into queue: inout [(arrival: UInt64, order: Int, bytes: [UInt8])]
    ) {
        guard !bytes.isEmpty else { return }
        var chunk = bytes
        guard let arrival = link?.deliver(&chunk, writtenAt: now, direction: direction) else { return }
        order += 1
        queue.append((arrival, order, chunk))
    }

    private func takeDue(_ queue: inout [(arrival: UInt64, order: Int, bytes: [UInt8])], at now: UInt64) -> [[UInt8]] {
        let due = queue.filter { $0.arrival <= now }.sorted { ($0.arrival, $0.order) < ($1.arrival, $1.order) }
        queue.removeAll { $0.arrival <= now }
        return due.map(\.bytes)
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
