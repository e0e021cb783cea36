import ThrumPattern

/// A player of one pattern, shaped like `CHHapticPatternPlayer`. Times are engine times in
/// seconds (``HapticEngine/currentTime``); ``HapticTimeImmediate`` (0) means as soon as possible.
public protocol HapticPatternPlayer: AnyObject {
    /// The engine-wide number of this player (used in ``OnsetRecord``).
    var playerID: Int { get }
    /// Starts the pattern at `time` (pattern time 0 is felt then).
    func start(atTime time: Double) throws
    /// Stops at `time`; the drive is cut there (the driver brakes the actuator).
    func stop(atTime time: Double) throws
    /// Applies dynamic parameters; each one's `relativeTime` counts from `time`.
    func sendParameters(_ parameters: [HapticDynamicParameter], atTime time: Double) throws
    /// Schedules a curve starting at `time` (its own `relativeTime` is replaced, as in Core Haptics).
    func scheduleParameterCurve(_ parameterCurve: HapticParameterCurve, atTime time: Double) throws
    /// Drops pending commands and stops at once.
    func cancel() throws
    /// Silences this player (its timeline keeps running).
    var isMuted: Bool { get set }
}

/// A player with transport controls, shaped like `CHHapticAdvancedPatternPlayer`.
public protocol HapticAdvancedPatternPlayer: HapticPatternPlayer {
    /// Pauses at `time`, remembering the pattern offset reached.
    func pause(atTime time: Double) throws
    /// Resumes at `time` from the offset where it paused.
    func resume(atTime time: Double) throws
    /// Moves to pattern offset `offsetTime` (s); at or past the end, playback ends (or, when
    /// looping, jumps to the loop start).
    func seek(toOffset offsetTime: Double) throws
    /// Loop back to 0 on reaching ``loopEnd``.
    var loopEnabled: Bool { get set }
    /// Loop end in pattern seconds; 0 means the end of the last event.
    var loopEnd: Double { get set }
    /// How many passes a loop plays from ``HapticPatternPlayer/start(atTime:)`` (Thrum's own:
    /// Core Haptics loops until stopped); 0, the default, loops until stopped. Set before the
    /// start: no pass beyond it is scheduled or reported, and the last one plays its whole drive
    /// (to ``loopEnd`` when one is set) and ends the play. A seek or a rate change continues the count.
    var loopPasses: Int { get set }
    /// Speed factor (> 0; other values are ignored). Scales event times and continuous durations,
    /// not transient bursts or sharpness.
    var playbackRate: Double { get set }
    /// Called once when the player finishes (end, stop, cancel), with an error if it failed.
    var completionHandler: ((Error?) -> Void)? { get set }
}
