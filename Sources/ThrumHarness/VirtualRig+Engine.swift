import ThrumCompiler
import ThrumEngine

extension VirtualRig {
    /// A Core-Haptics-shaped engine on the rig's virtual device and profile, in virtual time (not
    /// started: call `start()` or `prepare()`, then drive it with `run(for:)` and friends).
    public func makeEngine(configuration: HapticEngine.Configuration = HapticEngine.Configuration()) -> HapticEngine {
        HapticEngine(session: session, profile: profile, configuration: configuration)
    }
}
