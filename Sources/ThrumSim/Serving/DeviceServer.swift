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
    public func servePass() throws(TransportError) {
        let bytes = try transport.read(maxCount: 4096, timeout: maximumWait)
        device.advance(to: trueNow)
        device.receive(bytes)
        let output = device.takeOutput()
        if !output.isEmpty { try transport.write(output) }
    }

    private var trueNow: UInt64 {
        UInt64(max(0, (clock.now() - origin).nanoseconds / 1_000))
    }
}
