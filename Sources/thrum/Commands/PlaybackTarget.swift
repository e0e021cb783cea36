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
        try PortHold.refuseIfHeld(port)
        do {
            let transport = try openTransport(path: port, baud: baud)
            return .port(name: port, transport: transport, pump: TransportPump(transport: transport))
        } catch {
            throw CommandFailure(message: error.description)
        }
    }

    /// Builds the virtual device for `profile` behind a link model (``LinkCatalogue``; the
    /// realistic USB full-speed one by default) with a crystal 100 ppm off, as a real board's is:
    /// the report then shows the errors a real link leaves, not a perfect clock.
    static func virtual(profile: ActuatorProfile, link: LinkProfile = LinkCatalogue.usbFullSpeed, seed: UInt64 = 1) -> PlaybackTarget {
        let rig = VirtualRig(profile: profile, link: link, seed: seed)
        // A long wait before an event keeps one trace window at each end (constant memory).
        rig.device.chip.coalescesQuietWindows = true
        return .simulated(device: rig.device, pump: rig.pump)
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

    /// On the virtual device: each event's true onset (the chip's first non-zero drive) added to
    /// `report`; nothing on hardware.
    func attachTruth(to report: inout PlaybackReport) {
        guard case .simulated(let device, _) = self else { return }
        VirtualRig.attachTruth(to: &report, device: device)
    }

    /// The acceleration the virtual actuator produced, in pattern time (nil on real hardware).
    func accelerationTrace(report: PlaybackReport) -> (samples: [(time: Double, value: Double)], start: Double, end: Double)? {
        guard case .simulated(let device, _) = self else { return nil }
        let startTrue = Double(report.startHostTime.nanoseconds) / 1e3
        let samples = VirtualRig.accelerationEnvelope(of: device).samples.map { sample in
            (time: (Double(sample.time) - startTrue) / 1e6, value: sample.g)
        }
        return (samples, -0.02, report.duration + 0.1)
    }
}
