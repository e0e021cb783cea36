import Foundation
import ThrumEngine
import ThrumPattern

/// One play of a pattern on several devices against one host timeline (``HapticEngineGroup``): a
/// player per device, all started at one host time a lead ahead, run until they finish, and the
/// skew of every device's onsets against the first device's. `thrum play --port A --port B` and
/// the studio's plays on several ports both play this way.
struct GroupPlayback {
    let group: HapticEngineGroup
    /// One player per engine of the group, in its order.
    let players: [any HapticAdvancedPatternPlayer]
    /// The pattern every device plays, or one per device (routed).
    let patterns: [HapticPattern]
    /// The host time (s) every player starts at.
    let start: Double

    /// Makes a player per device (`patterns`: one for all, or one each), sets its rate, intensity
    /// and loop, and starts them all at one host time, the group's longest lead ahead.
    static func begin(
        _ group: HapticEngineGroup, patterns: [HapticPattern], rate: Double, intensity: Double? = nil, loop: Bool = false
    ) throws -> GroupPlayback {
        let players = try group.makePlayers(with: patterns)
        for player in players {
            player.playbackRate = rate
            player.loopEnabled = loop
            if let intensity {
                try player.sendParameters(
                    [HapticDynamicParameter(parameterID: .hapticIntensityControl, value: Float(intensity), relativeTime: 0)],
                    atTime: HapticTimeImmediate)
            }
        }
        let start = group.currentTime + group.leadTime.seconds + 0.02
        try group.start(players, atTime: start)
        return GroupPlayback(group: group, players: players, patterns: patterns, start: start)
    }

    /// The pattern device `k` plays.
    func pattern(of k: Int) -> HapticPattern { patterns[patterns.count == 1 ? 0 : k] }

    /// Runs until every player has finished and its onsets came back, or `timeout` s; `continuing`
    /// is asked every 10 ms (false ends the run: a stop).
    @discardableResult
    func run(timeout: Double, while continuing: () -> Bool = { true }) -> Bool {
        group.runUntilPlayersFinished(players, timeout: timeout, while: continuing)
    }

    /// Stops every player at once and runs 50 ms more for the stop to reach the devices.
    func stopNow() {
        for player in players { try? player.stop(atTime: HapticTimeImmediate) }
        group.run(for: 0.05)
    }

    /// Every device's skew against device 0 so far (``HapticEngineGroup/skews(of:eventIndices:)``).
    func skews(eventIndices: [[Int]]? = nil) -> [OnsetSkew] { group.skews(of: players, eventIndices: eventIndices) }
}

/// The skews of a group play, folded as `thrum play --port A --port B` prints them and the studio
/// shows them: the p99 of the skews' sizes and of their bounds, and whether the USB frame grid
/// measured them.
struct SkewSummary {
    let skews: [OnsetSkew]
    /// p99 of |skew| and of the bound, µs; nil without a skew.
    let p99Skew: Double?
    let p99Bound: Double?
    /// How many skews the frame grid measured.
    let onFrameGrid: Int

    init(_ skews: [OnsetSkew]) {
        self.skews = skews
        func p99(_ values: [Double]) -> Double? {
            let sorted = values.sorted()
            return sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        }
        p99Skew = p99(skews.map { abs($0.skew) * 1e6 })
        p99Bound = p99(skews.map { $0.bound * 1e6 })
        onFrameGrid = skews.filter(\.measuredOnFrameGrid).count
    }

    /// The two lines of the report: the p99s against `reference`, and what measured them.
    func lines(reference: String) -> [String] {
        guard let skew = p99Skew, let bound = p99Bound else { return ["skew: no onset reported by every device"] }
        return [
            String(
                format: "skew against %@: p99 %.0f µs over %d onsets; the true skew of each lies within its bound (p99 ±%.0f µs)",
                reference, skew, skews.count, bound),
            onFrameGrid == skews.count
                ? "measured on the USB frame grid the devices share (their start-of-frame times)"
                : "each device on its own clock model (\(onFrameGrid == 0 ? "no device reported" : "not every device reported") USB start-of-frame times)",
        ]
    }

    /// One skew as JSON: `device`, `index`, `pass`, `skew_us`, `bound_us`, `on_frame_grid`.
    static func json(_ s: OnsetSkew) -> [String: Any] {
        [
            "device": s.device, "index": s.patternIndex, "pass": s.pass, "skew_us": s.skew * 1e6, "bound_us": s.bound * 1e6,
            "on_frame_grid": s.measuredOnFrameGrid,
        ]
    }

    /// `skew_p99_us` and `skew_bound_p99_us` (null without a skew).
    var p99JSON: [String: Any] { ["skew_p99_us": p99Skew ?? NSNull(), "skew_bound_p99_us": p99Bound ?? NSNull()] }
}
