import ThrumEngine
import ThrumPattern
import XCTest

/// A tiny "app" whose haptic contract is tested with the recording fake.
private struct Checkout {
    let notifications: NotificationFeedbackGenerator
    let selection: SelectionFeedbackGenerator

    func pick(_ items: [String]) -> Int {
        for _ in items { selection.selectionChanged() }
        return items.count
    }

    func pay(amount: Int) -> Bool {
        let ok = amount > 0
        notifications.notificationOccurred(ok ? .success : .error)
        return ok
    }
}

final class FeedbackGeneratorTests: XCTestCase {
    func testGeneratorsRecordTheirRequests() {
        let fake = RecordingHapticPlayer()
        let impact = ImpactFeedbackGenerator(style: .heavy, player: fake)
        impact.prepare()
        impact.impactOccurred()
        impact.impactOccurred(intensity: 0.4)
        impact.impactOccurred(intensity: 7)  // clamped, like UIKit
        SelectionFeedbackGenerator(player: fake).selectionChanged()
        NotificationFeedbackGenerator(player: fake).notificationOccurred(.warning)
        XCTAssertEqual(
            fake.calls,
            [
                .prepare(HapticRequest(presetName: "impact.heavy")),
                .play(HapticRequest(presetName: "impact.heavy")),
                .play(HapticRequest(presetName: "impact.heavy", intensity: 0.4)),
                .play(HapticRequest(presetName: "impact.heavy", intensity: 1)),
                .play(HapticRequest(presetName: "selection")),
                .play(HapticRequest(presetName: "notification.warning")),
            ])
        XCTAssertNil(impact.lastError)
    }

    func testAnAppsHapticContractWithTheFake() {
        let fake = RecordingHapticPlayer()
        let app = Checkout(
            notifications: NotificationFeedbackGenerator(player: fake), selection: SelectionFeedbackGenerator(player: fake))
        XCTAssertEqual(app.pick(["a", "b", "c"]), 3)
        XCTAssertTrue(app.pay(amount: 10))
        XCTAssertFalse(app.pay(amount: 0))
        XCTAssertEqual(fake.playedNames, ["selection", "selection", "selection", "notification.success", "notification.error"])
    }

    func testAFailedPlaybackDoesNotChangeTheCallersResult() {
        let fake = RecordingHapticPlayer()
        fake.failure = HapticError(.engineNotRunning, "no device")
        let notifications = NotificationFeedbackGenerator(player: fake)
        var reported: [Error] = []
        notifications.errorHandler = { reported.append($0) }
        let app = Checkout(notifications: notifications, selection: SelectionFeedbackGenerator(player: fake))
        XCTAssertTrue(app.pay(amount: 5), "the app's result is the same without haptics")
        XCTAssertEqual((notifications.lastError as? HapticError)?.code, .engineNotRunning)
        XCTAssertEqual(reported.count, 1)
        XCTAssertEqual(fake.playedNames, ["notification.success"])
        fake.failure = nil
        _ = app.pay(amount: 5)
        XCTAssertNil(notifications.lastError)
    }

    func testGeneratorsOnTheEnginePlayOnTheDevice() throws {
        let rig = EngineRig()
        let impact = ImpactFeedbackGenerator(style: .rigid, player: rig.engine)
        impact.prepare()
        XCTAssertNil(impact.lastError)
        XCTAssertTrue(rig.engine.isPrepared)
        rig.engine.run(for: 0.5)
        let t = rig.now
        impact.impactOccurred()
        rig.engine.runUntilPlayersFinished(timeout: 1)
        let full = rig.peakRTP(from: t, to: rig.now)
        XCTAssertGreaterThan(full, 200)
        let onset = try XCTUnwrap(rig.engine.onsets.last.flatMap { rig.trueOnset($0) })
        // Prepared: a GO one frame ahead instead of a lead time; felt after the pre-shifted rise.
        XCTAssertEqual(rig.engine.preparedStarts, 1)
        let preShift = try XCTUnwrap(rig.engine.onsets.last?.preShift)
        XCTAssertLessThan(onset - t, preShift + 0.0015)
        XCTAssertLessThan(onset - t, rig.engine.leadTime.seconds / 2)

        let t2 = rig.now
        impact.impactOccurred(intensity: 0.5)
        rig.engine.runUntilPlayersFinished(timeout: 1)
        XCTAssertEqual(Double(rig.peakRTP(from: t2, to: rig.now)), Double(full) / 2, accuracy: 2)

        let t3 = rig.now
        NotificationFeedbackGenerator(player: rig.engine).notificationOccurred(.error)
        SelectionFeedbackGenerator(player: rig.engine).selectionChanged()
        rig.engine.runUntilPlayersFinished(timeout: 2)
        XCTAssertGreaterThan(rig.peakRTP(from: t3, to: rig.now), 0)
    }

    func testAGeneratorOnAStoppedEngineReportsInsteadOfThrowing() {
        let rig = EngineRig()
        rig.link.cutAt = 0  // nothing answers
        let selection = SelectionFeedbackGenerator(player: rig.engine)
        selection.selectionChanged()
        XCTAssertEqual((selection.lastError as? HapticError)?.code, .engineStartTimeout)
    }
}

/// The guides' haptic manager (heartbeat, success and error patterns of its own) tested through a
/// recording player, then played through the engine to the chip.
final class CustomPatternContractTests: XCTestCase {
    /// An app's haptic manager: custom patterns, played through whatever `HapticPlaying` it is given.
    private struct HapticManager {
        let player: any HapticPlaying
        static let heartbeat = HapticPattern(events: [transient(0), transient(0.15, intensity: 0.6)], parameters: [], parameterCurves: [])
        static let success = HapticPattern(events: [transient(0, sharpness: 0.3), transient(0.1)], parameters: [], parameterCurves: [])
        func beat() throws { try player.play(pattern: Self.heartbeat) }
        func succeeded() throws { try player.play(pattern: Self.success) }
    }

    func testTheRecordingPlayerRecordsCustomPatterns() throws {
        let fake = RecordingHapticPlayer()
        let manager = HapticManager(player: fake)
        try fake.prepare(pattern: HapticManager.heartbeat)
        try manager.beat()
        try manager.succeeded()
        try fake.play(HapticRequest(presetName: "selection"))
        XCTAssertEqual(fake.playedPatterns, [HapticManager.heartbeat, HapticManager.success])
        XCTAssertEqual(fake.playedNames, ["selection"])
        XCTAssertEqual(fake.calls.first, .prepare(HapticRequest(pattern: HapticManager.heartbeat)))
        XCTAssertTrue(fake.requests[0].description.hasPrefix("custom pattern (2 events"), fake.requests[0].description)
    }

    func testTheSameManagerPlaysThroughTheEngineToTheChip() throws {
        let rig = EngineRig()
        try rig.engine.start()
        let manager = HapticManager(player: rig.engine)
        let before = rig.now
        try manager.beat()
        rig.engine.run(for: 0.5)
        let onsets = rig.engine.onsets.filter { $0.status == .onTime }
        XCTAssertEqual(onsets.count, 2)
        let truths = onsets.compactMap { rig.trueOnset($0) }
        XCTAssertEqual(truths.count, 2)
        if truths.count == 2 { XCTAssertEqual(truths[1] - truths[0], 0.15, accuracy: 50e-6) }
        XCTAssertGreaterThan(rig.peakRTP(from: before, to: rig.now), 0)
    }
}
