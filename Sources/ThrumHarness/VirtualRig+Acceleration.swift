import ThrumSim

extension VirtualRig {
    /// What the virtual actuator on `device` did, as its chip's trace recorded it: each trace
    /// window's start (µs on the simulation's clock, the host clock of virtual time) with its
    /// acceleration envelope (G), and the windows' length (µs). The truth a preview or a report's
    /// plot draws, read without reaching into the chip model.
    public static func accelerationEnvelope(of device: VirtualDevice) -> (windowMicros: UInt64, samples: [(time: UInt64, g: Double)]) {
        let trace = device.chip.trace
        return (trace.samplePeriodMicros, trace.samples.map { (time: $0.time, g: $0.accelerationEnvelopeG) })
    }
}
