import ThrumLink
import ThrumPattern
import ThrumTime

/// Several devices, each behind its own ``HapticEngine``, played against one host timeline: the
/// left and right hand of a glove, two rigs compared side by side.
///
/// The engines' clocks must read one timeline: two ports opened in one process do (the monotonic
/// clock), and so do virtual rigs on one `ManualClock` (or created together, each clock starting
/// at 0: the group advances them in step). A start time then means the same instant on every
/// device: each engine maps it to its own device's clock through its own clock model, so crystals
/// that drift apart still land together. The group runs the engines' loops in turns up to the same instant,
/// ``slice`` seconds at a time, so no device waits longer than that for its host side.
///
/// How far apart the devices started an event, as reported, is ``OnsetSkew/skew``; each device's
/// reported onset carries a guaranteed bound, so the true skew lies within the sum of the two
/// half-widths of the reported one (``OnsetSkew/bound``).
///
/// A group keeps its devices' clock samples coming: each link pings whenever nothing went out for
/// ``probeInterval`` (10 ms), not only in the seconds after connecting. Two devices land within
/// the noise of their two offset estimates, which shrinks with the samples; one device's alignment
/// is its link's asymmetry, which samples do not move, so a single engine keeps the sparse idle
/// pings. The cost is about 0.5 kB/s host → device and 1 kB/s back per device on `usb-fs`
/// (`two_device_probing_*`, docs/timing.md). Its clock estimates also leave out the host's reader
/// wake-up floor (``ThrumLink/LinkSession/appliesReaderWakeFloor``).
///
/// Devices with native USB on one host controller see the same start-of-frame grid and report
/// their clocks against it (FRAME_TIME, protocol version 3). Once every device has, the group
/// schedules them all on that grid (``timebase``, ``FrameTimebase``): they then start an event
/// within microseconds of each other, and the skew is measured on the grid too, with a bound of a
/// few µs (``OnsetSkew/measuredOnFrameGrid``). Without it (a serial bridge, an older device) each
/// device follows its own clock model as above.
public final class HapticEngineGroup {
    /// The engines, the first one the reference for skews.
    public let engines: [HapticEngine]
    /// The timeline on the USB frame grid the devices share, used once every device reports frame
    /// times (``FrameTimebase/isComplete``).
    public let timebase: FrameTimebase
    /// How long each engine's loop runs in its turn (s).
    public var slice: Double = 0.0005
    /// The least an engine's turn lasts on its own clock (s).
    static let minimumTurn = 0.0001

    /// How long a device's link may go without sending before it pings for a clock sample; nil
    /// leaves each link's own pings (``LinkConfiguration/pingInterval``).
    public var probeInterval: HostDuration? {
        didSet { applyProbeInterval() }
    }

    /// The probing a group sets unless told otherwise.
    public static let defaultProbeInterval: HostDuration = .milliseconds(10)

    /// A group of `engines` (at least one), all reading the same host clock.
    public init(_ engines: [HapticEngine], probeInterval: HostDuration? = HapticEngineGroup.defaultProbeInterval) {
        precondition(!engines.isEmpty, "a group needs an engine")
        self.engines = engines
        before = engines.map { e in e.device.locked { (e.session.link.steadyPingInterval, e.session.link.appliesReaderWakeFloor) } }
        self.probeInterval = probeInterval
        timebase = FrameTimebase(count: engines.count)
        applyProbeInterval()
        for (k, engine) in engines.enumerated() {
            engine.device.locked { engine.device.placement.frameTimebase = FrameTimebase.Membership(timebase: timebase, index: k) }
        }
        // The reader's wake-up floor moves every device's estimate toward its truth by the same
        // amount on average, which a skew does not see, while its learning in the first second
        // moved the two apart: two devices started at once landed 423 → 569 µs p99 apart with it
        // (24 pairs, usb-fs; docs/timing.md). A group leaves it out.
        for engine in engines { engine.device.locked { engine.session.link.appliesReaderWakeFloor = false } }
    }

    private func applyProbeInterval() {
        for engine in engines { engine.device.locked { engine.session.link.steadyPingInterval = probeInterval } }
    }

    /// The host time (s) every engine has reached (the latest of their clocks: ``run(until:)``
    /// brings the others up to it).
    public var currentTime: Double { engines.map(\.currentTime).max() ?? 0 }

    /// The longest start lead among the engines: a start this far ahead reaches every device in time.
    public var leadTime: HostDuration { engines.map(\.leadTime).max() ?? .zero }

    /// Starts every engine (connects each device), catches up every engine whose link sat unrun
    /// (``catchUp()``), then brings every engine to the same instant.
    public func start() throws {
        for engine in engines { try engine.start() }
        catchUp()
        run(until: currentTime)
    }

    /// Catches up every engine whose link sat unrun for longer than
    /// ``HapticEngine/Configuration/idleResynchronization`` (engines held idle between plays):
    /// each reads what its device sent and synchronizes and narrows its clock afresh, **before** a
    /// start time is set. An engine's player does that by itself when it is made or started, but
    /// one engine after the other: the time a later engine's catch-up takes, the earlier engine's
    /// link sits unrun again, and when that passes the limit, its player's start catches it up
    /// once more after the shared start time was set, and its play begins where its link then
    /// allows — a whole play tens of ms apart (docs/studio.md). So the group goes round its
    /// engines until none needs it (at most ``catchUpRounds`` rounds), then runs them all.
    public func catchUp() {
        for _ in 0..<Self.catchUpRounds {
            let stale = engines.filter { e in e.device.locked { e.device.needsCatchUp } }
            if stale.isEmpty { break }
            for engine in stale { engine.device.locked { engine.device.catchUpAfterIdle() } }
        }
    }

    /// How many times ``catchUp()`` goes round the engines at most: a second round catches up the
    /// engines the first one's later catch-ups left unrun too long; their clocks are fresh then,
    /// so their second catch-up is short.
    static let catchUpRounds = 3

    /// Stops every engine.
    public func stop() {
        for engine in engines { engine.stop() }
    }

    /// Gives the engines back as engines of their own, still started: each leaves the group's
    /// timeline (``timebase``) and its link pings and learns its reader's wake-up floor as before
    /// the group was made. For engines that outlive one group play (a program holding its ports
    /// that groups them anew for each play); the group is not used again.
    public func release() {
        for (k, engine) in engines.enumerated() {
            engine.device.locked {
                engine.device.placement.frameTimebase = nil
                engine.session.link.steadyPingInterval = before[k].steadyPingInterval
                engine.session.link.appliesReaderWakeFloor = before[k].appliesReaderWakeFloor
            }
        }
    }

    /// Each engine's link settings as the group found them (``release()`` puts them back).
    private let before: [(steadyPingInterval: HostDuration?, appliesReaderWakeFloor: Bool)]

    /// One player per engine: `patterns[k]` plays on engine `k` (the same pattern everywhere when
    /// one is given; a routed pattern per device otherwise).
    public func makePlayers(with patterns: [HapticPattern]) throws -> [any HapticAdvancedPatternPlayer] {
        precondition(patterns.count == 1 || patterns.count == engines.count, "one pattern, or one per engine")
        catchUp()
        return try engines.enumerated().map { k, engine in try engine.makeAdvancedPlayer(with: patterns[patterns.count == 1 ? 0 : k]) }
    }

    /// Starts `players` (one per engine, from ``makePlayers(with:)``) at host time `time` (s).
    /// Engines left unrun too long since their players were made are caught up together first
    /// (``catchUp()``), not one by one inside the starts.
    public func start(_ players: [any HapticPatternPlayer], atTime time: Double) throws {
        catchUp()
        for player in players { try player.start(atTime: time) }
    }

    /// Runs every engine's loop until host time `time` (s), in turns.
    public func run(until time: Double) {
        var reached = engines.map(\.currentTime).min() ?? time
        while reached < time {
            let step = min(time, reached + slice)
            // On one real clock the time has moved past `step` by the time a later engine gets its
            // turn: each still exchanges bytes for a moment (its own clock, if virtual, is behind).
            for engine in engines { engine.run(until: max(step, engine.currentTime + Self.minimumTurn)) }
            let now = engines.map(\.currentTime).min() ?? time
            // An engine whose link died returns at once; without progress, stop rather than spin.
            if now <= reached { return }
            reached = now
        }
    }

    /// Runs every engine for `seconds`.
    public func run(for seconds: Double) { run(until: currentTime + seconds) }

    /// Runs until every engine's players have finished, or `timeout` s; then until each player's
    /// onsets are reported (or `grace` s more: reports come back behind the last drive, and a
    /// device served by a busy machine — a simulator paced to the wall clock — can fall a few
    /// hundred ms behind it). `continuing` is asked after every turn of ``slice`` × 20 (10 ms):
    /// the caller's look at what arrived (onsets observed, link figures), and false ends the run
    /// there (a stop; a looped player never finishes by itself). Returns whether all finished.
    @discardableResult
    public func runUntilPlayersFinished(
        _ players: [any HapticPatternPlayer], timeout: Double, grace: Double = 1.5, while continuing: () -> Bool = { true }
    ) -> Bool {
        let deadline = currentTime + timeout
        while currentTime < deadline && engines.contains(where: \.hasActivePlayers) {
            run(for: slice * 20)
            if !continuing() { return false }
        }
        let finished = !engines.contains(where: \.hasActivePlayers)
        let until = currentTime + grace
        while currentTime < until
            && zip(engines, players).contains(where: { engine, player in engine.onsets(for: player).contains { $0.status == .notReported } })
        {
            run(for: slice * 20)
            if !continuing() { break }
        }
        return finished
    }

    /// The skew of every onset of `players[k]` (k ≥ 1) against the same event and pass of
    /// `players[0]`, for the onsets both devices reported. When each device played its own part of
    /// a pattern, `eventIndices[k]` maps device k's event indices to the whole pattern's (the
    /// skews then name those, and only events two devices share are compared).
    ///
    /// Where both devices report frame times, the skew is their two onsets' distance on the USB
    /// frame grid (a frame is 1 ms of the host controller's clock, within 500 ppm of the host's:
    /// USB 2.0 §7.1.11), bounded by how exactly each device's count is known; otherwise the
    /// difference of the two reported onsets, bounded by the sum of their bounds.
    public func skews(of players: [any HapticPatternPlayer], eventIndices: [[Int]]? = nil) -> [OnsetSkew] {
        guard players.count == engines.count, let reference = players.first else { return [] }
        func index(_ record: OnsetRecord, device k: Int) -> Int {
            guard let map = eventIndices?[k], record.patternIndex < map.count else { return record.patternIndex }
            return map[record.patternIndex]
        }
        var byEvent: [OnsetKey: OnsetRecord] = [:]
        for record in engines[0].onsets(for: reference) { byEvent[OnsetKey(index(record, device: 0), record.pass)] = record }
        var result: [OnsetSkew] = []
        for k in 1..<engines.count {
            for record in engines[k].onsets(for: players[k]) {
                let event = index(record, device: k)
                guard let base = byEvent[OnsetKey(event, record.pass)], let a = base.onsetTime, let b = record.onsetTime,
                    let boundA = base.onsetBound, let boundB = record.onsetBound
                else { continue }
                if let onGrid = gridSkew(of: record, device: k, against: base) {
                    result.append(
                        OnsetSkew(
                            device: k, patternIndex: event, pass: record.pass, skew: onGrid.skew, bound: onGrid.bound, reference: base,
                            record: record, measuredOnFrameGrid: true))
                    continue
                }
                result.append(
                    OnsetSkew(
                        device: k, patternIndex: event, pass: record.pass, skew: b - a, bound: boundA + boundB, reference: base,
                        record: record))
            }
        }
        return result
    }

    /// Largest rate error of a USB host controller's frame clock (±500 ppm, USB 2.0 §7.1.11).
    static let frameClockTolerance = 500e-6

    /// The skew of `record` (device `k`) against `base` (device 0) on the frame grid, s, and its
    /// bound; nil unless both devices have a fitted frame count.
    private func gridSkew(of record: OnsetRecord, device k: Int, against base: OnsetRecord) -> (skew: Double, bound: Double)? {
        // The devices' onsets are their first drive; each record's reported onset adds its planned
        // pre-shift, and so does the skew.
        guard let deviceA = base.deviceOnset, let deviceB = record.deviceOnset,
            let a = timebase.frame(ofMember: 0, atDevice: deviceA), let b = timebase.frame(ofMember: k, atDevice: deviceB)
        else { return nil }
        let skew = (b.frame - a.frame) * FrameClock.framePeriod * 1e-6
        let preShift = record.preShift - base.preShift
        let bound = (a.uncertainty + b.uncertainty) * FrameClock.framePeriod * 1e-6 + abs(skew) * Self.frameClockTolerance
        return (skew + preShift, bound)
    }

    private struct OnsetKey: Hashable {
        var patternIndex: Int
        var pass: Int
        init(_ patternIndex: Int, _ pass: Int) {
            self.patternIndex = patternIndex
            self.pass = pass
        }
    }
}

/// How far apart two devices of a ``HapticEngineGroup`` started the same event.
public struct OnsetSkew: Sendable {
    /// The device (engine index) compared with device 0.
    public var device: Int
    /// The event (index in the pattern) and the loop pass.
    public var patternIndex: Int
    public var pass: Int
    /// This device's reported onset minus device 0's, s.
    public var skew: Double
    /// Half-width of the interval that holds the true skew around ``skew`` (the two reported
    /// bounds' half-widths added), s.
    public var bound: Double
    /// The two onset records compared.
    public var reference: OnsetRecord
    public var record: OnsetRecord
    /// Whether the skew was measured on the USB frame grid both devices report against (a bound of
    /// µs), rather than as the difference of two onsets reported through two clock models.
    public var measuredOnFrameGrid = false
}
