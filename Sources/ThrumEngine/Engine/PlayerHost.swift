import ThrumCompiler
import ThrumPattern
import ThrumTime

/// What a player needs from its engine, and nothing more: time, the device's change leads, its
/// place among the device's active players, onset ids, compiling, prepared starts, and the lock.
/// ``HapticEngine`` is the one host; it forwards to its ``SharedDevice`` and adds its own state
/// (running, muted, idle time).
protocol PlayerHost: AnyObject {
    /// Engine time now.
    var timeNow: EngineTime { get }
    /// The earliest a change sent now can take effect on the device, from now.
    var changeLead: EngineDuration { get }
    /// How far from now an immediate start's drive begins (``HapticEngine/leadTime``).
    var startLead: EngineDuration { get }
    /// The restart margin after an any-lane STOP.
    var restartMargin: EngineDuration { get }
    /// Where drive the host cannot render again (a ROM effect, a stored preset) ends: streamed
    /// drive is placed from there on (``DevicePlacement/streamFloor``).
    var streamFloor: EngineTime { get }
    /// The device's reboot count when the call is made (players of an earlier one are invalid).
    var generation: Int { get }
    /// Whether the engine mutes every one of its players.
    var isMutedForHaptics: Bool { get }
    /// The engine time of an `atTime:` argument (immediate → now); −4840 for a bad time.
    func engineTime(_ time: Double) throws -> EngineTime
    /// Throws unless the engine runs (starting it when auto-shutdown stopped it).
    func requireRunning(_ player: StreamingPatternPlayer) throws
    /// The player has a timeline to render.
    func activate(_ player: StreamingPatternPlayer)
    /// The player stopped (or paused).
    func deactivate(_ player: StreamingPatternPlayer, paused: Bool)
    /// Makes engine time `t` renderable again (CUT, rewind or nothing).
    func invalidate(from t: EngineTime)
    /// Renders and sends what is due now.
    func service()
    /// The device-wide onset id of a player's event.
    func markID(player: StreamingPatternPlayer, run: Int, event: UInt32, record: () -> OnsetRecord) -> UInt32
    /// Forgets the unreported onsets of run `run` of `player` due at `from` or later (cut before they played).
    func forgetOnsets(player: StreamingPatternPlayer, run: Int, from: EngineTime)
    /// Records that mark `follower` begins with mark `leader`.
    func follow(_ follower: UInt32, _ leader: UInt32)
    /// `pattern` compiled for the device's profile at `rate`.
    func compile(_ pattern: HapticPattern, rate: Double) -> DriveProgram
    /// Starts the player with a GO when its pattern is preloaded; false to stream it.
    func startPrepared(_ player: StreamingPatternPlayer, at requested: EngineTime?) -> Bool
    /// Where an immediate start of `player` goes so that its first sound is on time, or nil (as
    /// soon as the drive can) without sound to play.
    func audioStartTime(for player: StreamingPatternPlayer) -> EngineTime?
    /// Runs `body` holding the device's lock.
    func withLock<T>(_ body: () throws -> T) rethrows -> T
}

extension PlayerHost {
    func deactivate(_ player: StreamingPatternPlayer) { deactivate(player, paused: false) }
}
