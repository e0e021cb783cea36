import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// The studio's group plays (docs/studio.md, after its table of plays after idle gaps): two
/// devices on ports of one host, their engines started and then held idle between plays with
/// nothing running their links, grouped anew for each play. In virtual time on one shared clock (the rigs share their
/// `ManualClock`), so the time one engine's catch-up after the idle takes passes for the other's
/// link too, as on the studio's one host clock. Judged by both chips' traces.
final class GroupAfterIdleTests: XCTestCase {
    /// What one group play after an idle did, by the chips.
    struct Play {
        var idle: Double
        /// How long the group's start took (its engines' catch-up after the idle), s.
        var catchUp: Double
        /// Per device, each beat's true onset less the group's start plus the beat's time, s.
        var offsets: [[Double]]
        /// Each beat's true skew (device 1 − device 0), s.
        var truths: [Double]
    }

    static let beats = 8
    static let interval = 0.1

    /// The studio's held engines on `left` and `right` (on one clock), one group play of the
    /// metronome after each idle of `idles` (s), as `thrum studio` plays one
    /// (``HapticEngineGroup`` made, started, players made, one start a lead ahead, released after);
    /// `beforePlay` runs after each idle, before the group is made. Every beat must be reported by
    /// both devices with a skew that holds the truth.
    private func play(
        left: VirtualRig, right: VirtualRig, after idles: [Double], interval: Double = GroupAfterIdleTests.interval,
        beforePlay: (Int) -> Void = { _ in }
    ) throws -> [Play] {
        var configuration = HapticEngine.Configuration()
        configuration.calibrateOnStart = false  // (slow to simulate; changes nothing here)
        let engines = [left.makeEngine(configuration: configuration), right.makeEngine(configuration: configuration)]
        // The studio opens its ports one after the other, each engine started as it is opened.
        for engine in engines { try engine.start() }
        var plays: [Play] = []
        for (n, idle) in idles.enumerated() {
            left.clock.advance(by: .seconds(idle))
            beforePlay(n)
            let group = HapticEngineGroup(engines)
            defer { group.release() }
            let before = group.currentTime
            try group.start()
            let catchUp = group.currentTime - before
            let players = try group.makePlayers(with: [
                TestPatterns.metronome(beats: Self.beats, interval: interval)
            ])
            let start = group.currentTime + group.leadTime.seconds + 0.02
            try group.start(players, atTime: start)
            XCTAssertTrue(group.runUntilPlayersFinished(players, timeout: 5))
            var offsets: [[Double]] = []
            for (k, rig) in [left, right].enumerated() {
                let onsets = engines[k].onsets(for: players[k])
                XCTAssertEqual(
                    onsets.map(\.status), Array(repeating: .onTime, count: Self.beats),
                    "after \(idle) s idle, device \(k)")
                offsets.append(
                    try onsets.map { r in
                        try XCTUnwrap(rig.trueOnset(of: r), "device \(k) never drove beat \(r.patternIndex)")
                            - (start + Double(r.patternIndex) * interval)
                    })
            }
            let skews = group.skews(of: players)
            XCTAssertEqual(skews.count, Self.beats, "after \(idle) s idle: every beat reported by both devices")
            var truths: [Double] = []
            for s in skews {
                let truth = try XCTUnwrap(right.trueOnset(of: s.record)) - XCTUnwrap(left.trueOnset(of: s.reference))
                truths.append(truth)
                XCTAssertLessThanOrEqual(
                    abs(s.skew - truth), s.bound + 1e-6,
                    "after \(idle) s idle, beat \(s.patternIndex): the bound misses the true skew")
            }
            plays.append(Play(idle: idle, catchUp: catchUp, offsets: offsets, truths: truths))
            let us = { (v: [Double]) in v.map { Int(($0 * 1e6).rounded()) } }
            print(
                "GroupAfterIdleTests: after \(idle) s idle: catch-up \(Int((catchUp * 1e3).rounded())) ms, true skews µs \(us(truths)), device 0 / 1 from the shared start µs \(us(offsets[0])) / \(us(offsets[1]))"
            )
        }
        return plays
    }

    /// A link that holds every byte the host writes during ``Stall/window`` until its end (a
    /// device process a loaded machine did not run, a bridge that stalled), and is `inner` otherwise.
    struct StallingLink: WrappingLink {
        final class Stall: @unchecked Sendable {
            /// True µs.
            var window: Range<UInt64>?
        }
        var inner: any LinkModel
        let stall: Stall
        var lastArrival: UInt64 = 0

        mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
            guard var arrival = inner.deliver(&bytes, writtenAt: time, direction: direction) else { return nil }
            guard direction == .hostToDevice else { return arrival }
            if let window = stall.window, window.contains(time) { arrival = max(arrival, window.upperBound) }
            lastArrival = max(lastArrival, arrival)
            return lastArrival
        }
    }

    /// One engine's catch-up after the idle is slow (its device answers nothing for 0.6 s: a
    /// simulator process a loaded machine did not run): the group catches the engines up before it
    /// sets the start, so the other engine's link has not sat unrun too long again when its player
    /// starts. Before, that engine caught up once more inside its player's start, after the start
    /// time was set, and its whole play began late by what that took.
    func testAPlayAfterAnIdleStartsOnTheSharedTimeWhenOneEngineCatchesUpSlowly() throws {
        let clock = ManualClock()
        let link = LinkCatalogue.usbFullSpeed.withoutStartOfFrames
        let stall = StallingLink.Stall()
        let left = VirtualRig(link: link, seed: 1, clock: clock)  // −100 ppm
        let right = VirtualRig(
            crystalErrorPPM: 100, link: StallingLink(inner: link.make(2), stall: stall), clock: clock)
        let plays = try play(left: left, right: right, after: [7]) { _ in
            let now = right.pump.trueTime
            stall.window = now..<(now + 600_000)
        }
        let play = try XCTUnwrap(plays.first)
        XCTAssertGreaterThan(play.catchUp, 0.5, "the slow engine's catch-up took longer than idleResynchronization")
        for (k, offsets) in play.offsets.enumerated() {
            for (beat, offset) in offsets.enumerated() {
                XCTAssertLessThan(
                    abs(offset), 1.5e-3,
                    "device \(k) beat \(beat): \(Int((offset * 1e6).rounded())) µs from the shared start")
            }
        }
        XCTAssertLessThan(play.truths.map(abs).max() ?? 1, 1.5e-3, "the largest true skew")
    }

    /// After idles longer than the clock model's 20 s window: the device's watchdog ended the
    /// session after 1 s of silence, and the host claims it again on the FAULT it reads (its pings
    /// went unanswered for 0.5 s, and the resynchronization waited its whole 1.5 s); the window
    /// keeps an anchor across the idle, so the drift is not fitted again on a fraction of a second
    /// of fresh samples (−996 ppm for a −100 ppm crystal; the two devices walked apart 200 µs/s).
    func testPlaysAfterIdlesLongerThanTheClockWindowKeepTheirDrift() throws {
        let clock = ManualClock()
        let link = LinkCatalogue.usbFullSpeed.withoutStartOfFrames
        let left = VirtualRig(link: link, seed: 1, clock: clock)  // −100 ppm
        let right = VirtualRig(link: link, seed: 2, clock: clock)  // +100 ppm
        let plays = try play(left: left, right: right, after: [25, 30])
        for play in plays {
            XCTAssertLessThan(play.catchUp, 0.3, "after \(play.idle) s idle the catch-up took \(play.catchUp) s")
            // Each device's start sits within its link's unseen asymmetry (up to ≈ 1 ms on this
            // model); what the drift decides is how that offset moves over the play.
            for (k, offsets) in play.offsets.enumerated() {
                let walk = offsets.max()! - offsets.min()!
                XCTAssertLessThan(
                    walk, 30e-6,
                    "after \(play.idle) s idle, device \(k) walked \(Int((walk * 1e6).rounded())) µs over 0.7 s")
            }
            let walk = play.truths.max()! - play.truths.min()!
            XCTAssertLessThan(
                walk, 40e-6, "after \(play.idle) s idle the skew walked \(Int((walk * 1e6).rounded())) µs over 0.7 s")
        }
    }

    /// A host that reads its ports late while it is loaded (``Load/window``, true µs): every chunk
    /// the device sends then reaches the host 2–40 ms after `inner` would deliver it, in order —
    /// the studio's group play on a machine at load 8–20, where the host runs two engines in turns
    /// and each reads its port only in its own turn (return legs of 3–44 ms were measured through
    /// the studio during its plays, against 50–100 µs out, and 50–100 µs back after an idle).
    struct LoadedReturns: WrappingLink {
        final class Load: @unchecked Sendable {
            var window: Range<UInt64>?
        }
        var inner: any LinkModel
        let load: Load
        var random: SplitMix64
        var lastArrival: UInt64 = 0

        init(inner: any LinkModel, load: Load, seed: UInt64) {
            self.inner = inner
            self.load = load
            random = SplitMix64(seed: seed)
        }

        mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
            guard var arrival = inner.deliver(&bytes, writtenAt: time, direction: direction) else { return nil }
            guard direction == .deviceToHost else { return arrival }
            if let window = load.window, window.contains(time) { arrival += 2_000 + random.next() % 38_000 }
            lastArrival = max(lastArrival, arrival)
            return lastArrival
        }
    }

    /// The studio's plays after idles longer than the clock window, as measured through it (load
    /// 8–20): while a play ran, the host read its ports late (return legs of milliseconds); after
    /// the idle, promptly. The window's anchor across the idle is the last samples of the play
    /// before, whose return legs sat milliseconds above the fresh ones: fitted across the idle,
    /// the return leg's floor tilted by that much over 25 s (+300 ppm for a −100 ppm crystal in
    /// the studio, whose outbound leg said −100.0), and the estimate — the middle of the two
    /// legs — walked 200 µs/s, or the drift a play started at was tens of ppm off (−48 ppm): the
    /// two devices walked apart ≈ 100 µs/s. Now the drift fitted before the idle is carried
    /// across it, within the bracket across the idle. Judged by both chips over a 1.75 s play:
    /// the skew walked 537 µs before, 12 µs now. (Not yet: the first play's own window, whose
    /// returns slowed down inside it, tilts too — it walks 220 µs here, and a shorter one, carried,
    /// still walks the next play ≈ 140 µs/s: docs/studio.md.)
    func testAPlayAfterALongIdleKeepsTheDriftFittedBeforeIt() throws {
        let clock = ManualClock()
        let link = LinkCatalogue.usbFullSpeed.withoutStartOfFrames
        let load = LoadedReturns.Load()
        let left = VirtualRig(crystalErrorPPM: -100, link: LoadedReturns(inner: link.make(1), load: load, seed: 1), clock: clock)
        let right = VirtualRig(crystalErrorPPM: 100, link: LoadedReturns(inner: link.make(2), load: load, seed: 2), clock: clock)
        // The returns are slow from 0.4 s after the first play's idle (its start placed on prompt
        // ones) until after the second play's idle: the anchor kept across it is of slow returns.
        let plays = try play(left: left, right: right, after: [1, 25], interval: 0.25) { n in
            let now = left.pump.trueTime
            load.window = n == 0 ? (now + 400_000)..<(now + 20_000_000) : nil
        }
        // Where each device starts within its link's unseen asymmetry is the link's (up to ≈ 1 ms on
        // this model, constant over a play; every reported skew holds the truth within its bound,
        // checked above); what the drift decides is how the skew moves over the play.
        let play = try XCTUnwrap(plays.last)
        let walk = play.truths.max()! - play.truths.min()!
        XCTAssertLessThan(walk, 30e-6, "the skew walked \(Int((walk * 1e6).rounded())) µs over 1.75 s")
    }
}

/// A link model that changes only what ``LinkModel/deliver(_:writtenAt:direction:)`` does and is
/// `inner` in everything else.
protocol WrappingLink: LinkModel {
    var inner: any LinkModel { get set }
}

extension WrappingLink {
    mutating func hostWakeLatency(at time: UInt64) -> UInt64 { inner.hostWakeLatency(at: time) }
    func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? { inner.startOfFrame(atOrBefore: time) }
    var lastInTransferCompletion: UInt64? { inner.lastInTransferCompletion }
    var lineByteTime: Double? { inner.lineByteTime }
}
