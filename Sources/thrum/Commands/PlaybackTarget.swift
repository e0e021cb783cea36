import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumSim
import ThrumTime

/// Where `thrum play` sends a program: a real port (real time) or the virtual device (virtual time).
enum PlaybackTarget {
    case port(name: String, transport: any ByteTransport, pump: TransportPump)
    case simulated(device: VirtualDevice, pump: SimulatedPump)

    /// Opens a serial port or pseudo-terminal.
    static func open(port: String, baud: Int) throws -> PlaybackTarget {
        do {
            let transport = try openTransport(path: port, baud: baud)
            return .port(name: port, transport: transport, pump: TransportPump(transport: transport))
        } catch {
            throw CommandFailure(message: error.description)
        }
    }

    /// Builds the virtual device for `profile`, linked by a 1 ms USB-like latency.
    static func virtual(profile: ActuatorProfile) -> PlaybackTarget {
        let device = VirtualDevice(configuration: VirtualDeviceFactory.configuration(for: profile))
        let pump = SimulatedPump(device: device, clock: ManualClock(), link: FixedLatencyLink(latency: 1_000))
        return .simulated(device: device, pump: pump)
    }

    var pump: any LinkPump {
        switch self {
        case .port(_, _, let pump): return pump
        case .simulated(_, let pump): return pump
        }
    }

    var name: String {
        switch self {
        case .port(let name, _, _): return name
        case .simulated: return "the virtual device"
        }
    }

    var isVirtual: Bool {
        if case .simulated = self { return true }
        return false
    }

    func close() {
        if case .port(_, let transport, _) = self { transport.close() }
    }

    /// The acceleration the virtual actuator produced, in pattern time (nil on real hardware).
    func accelerationTrace(report: PlaybackReport) -> (samples: [(time: Double, value: Double)], start: Double, end: Double)? {
        guard case .simulated(let device, _) = self else { return nil }
        let startTrue = device.trueTime(ofDeviceClock: UInt32(truncatingIfNeeded: report.startDeviceTime), near: device.now)
        let samples = device.chip.trace.samples.map { sample in
            (time: (Double(sample.time) - startTrue) / 1e6, value: sample.accelerationEnvelopeG)
        }
        return (samples, -0.02, report.duration + 0.1)
    }
}
