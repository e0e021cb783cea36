import ThrumCompiler
import ThrumTime

/// The timeline the engine mixes its players' drive on, with the compiler's ``ThrumCompiler/DriveMixer``.
///
/// The mixer's ramps, marks and segments count offsets from a time 0 (``ThrumTime/PatternOffset``:
/// for a compiled program, the pattern's start). The engine mixes every player together on one
/// such timeline whose time 0 is engine time ``origin``: a player places its compiled drive on it
/// (``offset(of:)`` of the engine time ``ThrumTime/PatternOffset/engineTime(origin:)`` gives), and
/// the drive it returns goes back to the engine's schedule (``time(of:)``) before the clock model
/// maps it to the device. These two functions are the only crossings.
enum RenderTimeline {
    /// The engine time of the render timeline's time 0.
    static let origin = EngineTime.zero

    /// Where engine time `t` lies on the render timeline.
    @inline(__always)
    static func offset(of t: EngineTime) -> PatternOffset { PatternOffset(at: t, origin: origin) }

    /// The engine time of offset `o` of the render timeline.
    @inline(__always)
    static func time(of o: PatternOffset) -> EngineTime { o.engineTime(origin: origin) }

    /// How far the drive of a run whose pattern time 0 plays at `runOrigin` moves onto the render
    /// timeline: a pattern offset `x` of the run lies at `x + shift(runOrigin)` there.
    @inline(__always)
    static func shift(_ runOrigin: EngineTime) -> EngineDuration { runOrigin - origin }
}
