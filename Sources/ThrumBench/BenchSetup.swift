import ThrumHarness
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime

/// The link and session set-up every timing figure shares, so that figures are comparable.
public enum BenchSetup {
    /// The OS scheduling jitter of the headline figures (DESIGN.md §6): 0.5–8 ms, uniform.
    public static let jitter = LinkCatalogue.wakeJitter

    /// The realistic USB full-speed link (``LinkCatalogue``'s `usb-fs`: data lands 100–400 µs
    /// into the frame, host wake-ups 0.5–8 ms late).
    public static func jitteredUSB(seed: UInt64) -> any LinkModel { LinkCatalogue.usbFullSpeed.make(seed) }

    /// The same with 5 % chunk loss and 5 % corruption in both directions.
    public static func lossyUSB(seed: UInt64) -> LossyLink<AnyLinkModel> {
        LossyLink(base: AnyLinkModel(jitteredUSB(seed: seed)), loss: 0.05, corruption: 0.05, seed: seed &* 31 &+ 7)
    }

    /// Session tunables of every figure: the shipped defaults, nothing the host could not know.
    public static func session() -> DeviceSessionConfiguration { DeviceSessionConfiguration() }

    /// A device clock start and crystal error for run `seed`: ±100 ppm alternately, arbitrary start.
    public static func crystal(seed: UInt64) -> (ppm: Double, start: UInt32) {
        var rng = SplitMix64(seed: seed ^ 0xC10C)
        return (seed % 2 == 0 ? 100 : -100, UInt32(truncatingIfNeeded: rng.next()))
    }

    /// The connect's startup probing (``ThrumLink/LinkConfiguration/startupProbing``) ends within
    /// this of an engine's start (s): steady-state figures (idle traffic, a group's probing) are
    /// taken after it.
    static let startupProbingEnd = 2.5

    /// A rig on the jittered USB link, drift ±100 ppm.
    public static func rig(seed: UInt64, link: any LinkModel) -> VirtualRig {
        let c = crystal(seed: seed)
        return VirtualRig(crystalErrorPPM: c.ppm, clockStart: c.start, link: link, sessionConfiguration: session())
    }

    /// Transients of alternating strength, `spacing` s apart (each starts from rest).
    public static func transients(count: Int, spacing: Double) -> HapticPattern {
        HapticPattern(
            events: (0..<count).map { k in
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [
                        HapticEventParameter(parameterID: .hapticIntensity, value: [1.0, 0.6, 0.8][k % 3]),
                        HapticEventParameter(parameterID: .hapticSharpness, value: [0.8, 0.3, 0.5][k % 3]),
                    ], relativeTime: Double(k) * spacing)
            }, parameters: [], parameterCurves: [])
    }
}

extension VirtualRig {
    /// Current true time, µs.
    var trueNow: UInt64 { pump.trueTime }

    /// Runs the link (pings, ACKs) until true time `t` µs.
    func idle(until t: UInt64) throws {
        let deadline = HostTime(nanoseconds: Int64(t) * 1_000)
        while clock.now() < deadline { try pump.run(session.link, until: deadline) }
    }

    /// Signed error of the host's clock model against the true device clock now, µs.
    var clockError: Double {
        let truth = device.deviceClock(atTrueTime: trueNow)
        let model = session.link.clock.deviceTime32(at: clock.now()).rawValue
        return Double(Int32(bitPattern: model &- truth))
    }
}
