import ThrumTime

/// Moves bytes between a ``LinkSession`` and a device, and lets time pass.
///
/// The session is sans-IO: it never reads a clock or touches a port. A pump is what gives it
/// both. ``TransportPump`` does it in real time over a ``ByteTransport``; the virtual device's
/// pump (in ThrumSim) does it in virtual time, stepping the simulated firmware as it goes. The
/// engine only ever talks to this protocol, so the same engine code runs on hardware, over a
/// pseudo-terminal, and in virtual time in tests and benchmarks.
public protocol LinkPump: AnyObject {
    /// The clock this pump reads (real time) or moves (virtual time).
    var clock: any HostClock { get }

    /// Exchanges bytes and runs the session's timers until `deadline`, returning early as soon
    /// as bytes from the device have been handed to the session.
    func run(_ session: LinkSession, until deadline: HostTime) throws(TransportError)

    /// The time a byte takes on a UART between the host's port and the device, µs, when the port
    /// says it is one (``ByteTransport/lineByteTime``); nil when it does not. A session sets its
    /// clock model's ``ClockModelConfiguration/lineByteTime`` from it.
    var lineByteTime: Double? { get }
}

extension LinkPump {
    /// Not known to be a UART.
    public var lineByteTime: Double? { nil }

    /// Runs the pump until `condition` holds or `deadline` passes; returns whether it holds.
    public func run(
        _ session: LinkSession, until deadline: HostTime, while pending: () -> Bool
    ) throws(TransportError) -> Bool {
        while pending() {
            if clock.now() >= deadline { return false }
            try run(session, until: deadline)
        }
        return true
    }
}
