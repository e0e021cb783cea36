import ThrumCompiler
import ThrumEngine
import ThrumTime

extension VirtualRig {
    /// A Core-Haptics-shaped engine on the rig's virtual device and profile, in virtual time (not
    /// started: call `start()` or `prepare()`). Every engine made here shares the rig's device
    /// (``sharedDevice(configuration:)``): one connection, drive mixed, onsets per engine.
    public func makeEngine(configuration: HapticEngine.Configuration = HapticEngine.Configuration()) -> HapticEngine {
        HapticEngine(device: sharedDevice(configuration: configuration))
    }

    /// The device the rig's engines share (made with `configuration` by the first call).
    public func sharedDevice(configuration: HapticEngine.Configuration = HapticEngine.Configuration()) -> SharedDevice {
        SharedDevice.of(session: session, profile: profile, configuration: configuration, runMode: .manual)
    }

    /// Lets `seconds` of virtual time pass: the rig's engines play by themselves meanwhile (bytes
    /// move, drive is rendered, handlers are called on this thread). What a test does instead of
    /// sleeping; the same on any of the rig's engines as `run(for:)`.
    public func advance(by seconds: Double) {
        sharedDevice().run(for: seconds)
    }

    /// Lets virtual time pass until `time` (engine seconds).
    public func advance(to time: Double) {
        sharedDevice().run(until: time)
    }
}
