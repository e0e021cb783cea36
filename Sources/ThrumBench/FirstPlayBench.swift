import Dispatch
import ThrumEngine
import ThrumHarness
import ThrumSim
import ThrumPattern
import ThrumTime

/// A developer's first play, on the wall clock: an engine on the built-in virtual device (the
/// device `HapticEngine()` plays on without a port: usb-fs, paced to real time), `start()`, then
/// an advanced player's 0.5 s continuous pattern started at `HapticTimeImmediate`. The figure is
/// the wall time from `player.start` to its completion handler; Core Haptics calls it after the
/// pattern's own length (0.5 s). Measured in the build the bench runs in (the target, ≤ 0.6 s,
/// is for a debug build).
public enum FirstPlayBench {
    /// Wall-clock seconds of one first play.
    public struct Result: Sendable {
        /// `engine.start()`: call → return.
        public var start: Double
        /// `player.start(atTime: HapticTimeImmediate)` → its completion handler.
        public var completion: Double
    }

    /// The pattern's length, s.
    public static let patternLength = 0.5

    /// One first play on a fresh virtual device (the default device's setup), nil when the
    /// completion handler never ran within 10 s.
    public static func run() throws -> Result? {
        let rig = VirtualRig(link: LinkCatalogue.usbFullSpeed, seed: 1, crystalErrorPPM: 0)
        let device = SharedDevice.of(session: rig.session, profile: rig.profile, runMode: .paced)
        let engine = HapticEngine(device: device)
        let wall = MonotonicClock()
        let t0 = wall.now()
        try engine.start()
        let started = wall.now()
        let pattern = try HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticContinuous, parameters: [.init(parameterID: .hapticIntensity, value: 1)], relativeTime: 0,
                    duration: patternLength)
            ], parameters: [])
        let player = try engine.makeAdvancedPlayer(with: pattern)
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        player.completionHandler = { _ in
            box.end = wall.now()
            done.signal()
        }
        let t1 = wall.now()
        try player.start(atTime: HapticTimeImmediate)
        defer { engine.stop() }
        guard done.wait(timeout: .now() + 10) == .success, let end = box.end else { return nil }
        return Result(start: (started - t0).seconds, completion: (end - t1).seconds)
    }

    private final class Box: @unchecked Sendable { var end: HostTime? }
}
