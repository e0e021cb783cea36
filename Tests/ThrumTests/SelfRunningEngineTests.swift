import Foundation
import Dispatch
import Thrum
@testable import ThrumEngine
import ThrumHarness
import ThrumSim
import ThrumTestSupport
import XCTest

/// After `start()` the engine plays by itself, from any thread, with the handlers on its run
/// thread: here on the built-in virtual device, which runs paced to the real clock (as hardware
/// would). The tests wait for completion handlers (bounded, generous timeouts); what they check
/// — the chip's onsets — is in the device's own time, so machine load cannot change it.
final class SelfRunningEngineTests: XCTestCase {
    /// The simulated device behind an engine on the built-in virtual device.
    private func chip(of engine: HapticEngine) throws -> VirtualDevice {
        try XCTUnwrap(engine.session.pump as? SimulatedPump).device
    }

    private func beats(_ n: Int, every: Double) throws -> HapticPattern {
        try HapticPattern(
            events: (0..<n).map {
                HapticEvent(
                    eventType: .hapticTransient, parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                    relativeTime: every * Double($0))
            }, parameters: [])
    }

    /// The README's Swift example, as written there: no run loop anywhere.
    func testTheReadmeExamplePlaysWithoutAHandDrivenLoop() throws {
        let path = PackageRoot.file("examples/heartbeat.ahap").path
        // --- as in README.md (the example's path spelled for the test) ---
        let engine = try HapticEngine(device: .virtual)    // README: HapticEngine(); the same device without THRUM_PORT
        try engine.start()                                 // from here on the engine plays by itself
        let player = try engine.makeAdvancedPlayer(with: try HapticPattern(contentsOf: path))
        player.playbackRate = 1.5
        let done = DispatchSemaphore(value: 0)
        player.completionHandler = { _ in done.signal() }  // called on the engine's run thread
        try player.start(atTime: HapticTimeImmediate)
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the heartbeat never finished")  // README: done.wait()
        // --- end of the example ---
        engine.waitForOnsetReports(of: player)
        let onsets = engine.onsets(for: player)
        XCTAssertEqual(onsets.count, 4)
        let device = try chip(of: engine)
        let times = onsets.compactMap { VirtualRig.trueOnset(of: $0, on: device) }
        XCTAssertEqual(times.count, 4)
        XCTAssertTrue(onsets.allSatisfy { $0.status == .onTime })
        // At rate 1.5 the beats are 0.8 / 1.5 s apart, on the chip.
        if times.count == 4 { XCTAssertEqual(times[2] - times[0], 0.8 / 1.5, accuracy: 0.000_2) }
        engine.stop()
    }

    /// Players started from several threads at once all play, each reported, with the handlers
    /// on the run thread.
    func testCallsFromManyThreadsAreSafeAndHandlersRunOnTheRunThread() throws {
        let engine = try HapticEngine(device: .virtual)
        try engine.start()
        let pattern = try beats(3, every: 0.05)
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var threads: [String] = []
            var players: [any HapticAdvancedPatternPlayer] = []
            var errors: [Error] = []
        }
        let results = Results()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.concurrentPerform(iterations: 6) { k in
            do {
                let player = try engine.makeAdvancedPlayer(with: pattern)
                player.completionHandler = { _ in
                    results.lock.lock()
                    results.threads.append(SharedDevice.isRunThread ? "run thread" : Thread.isMainThread ? "main" : "other")
                    results.lock.unlock()
                    finished.signal()
                }
                try player.start(atTime: engine.currentTime + 0.02 + 0.013 * Double(k))
                results.lock.lock()
                results.players.append(player)
                results.lock.unlock()
            } catch {
                results.lock.lock()
                results.errors.append(error)
                results.lock.unlock()
            }
        }
        XCTAssertTrue(results.errors.isEmpty, "\(results.errors)")
        for _ in 0..<6 { XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, "a player never finished") }
        XCTAssertEqual(Set(results.threads), ["run thread"])
        let device = try chip(of: engine)
        for player in results.players {
            engine.waitForOnsetReports(of: player)
            let onsets = engine.onsets(for: player)
            XCTAssertEqual(onsets.count, 3)
            XCTAssertEqual(onsets.compactMap { VirtualRig.trueOnset(of: $0, on: device) }.count, 3)
        }
        engine.stop()
    }

    /// Two engines on the default device share it (one connection) and both play.
    func testEnginesOnTheDefaultDeviceShareOneConnection() throws {
        let a = try HapticEngine(device: .virtual)
        let b = try HapticEngine(device: .virtual)
        XCTAssertTrue(a.device === b.device)
        XCTAssertTrue(a.session === b.session)
        XCTAssertTrue(ImpactFeedbackGenerator(style: .light).player is DefaultDevicePlayer)
    }

    /// docs/engine.md's "Watching an engine" sample, on the device running by itself: the
    /// update arrives on the run thread as the report comes back, and is what the engine keeps
    /// and what the chip did; the async sequence gets the next play's, and ends with its task.
    func testTheWatchingSampleOfTheEngineDoc() async throws {
        // --- as in docs/engine.md (a semaphore added to wait for the update) ---
        let engine = try HapticEngine(device: .virtual)    // docs: HapticEngine(), the same device
        try engine.start()
        let arrived = DispatchSemaphore(value: 0)
        let received = Locked<[OnsetUpdate]>([])
        let subscription = engine.observeOnsets { update in
            received.with { $0.append(update) }
            arrived.signal()
        }
        let tap = try HapticPattern(events: [HapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0)], parameters: [])
        try engine.makePlayer(with: tap).start(atTime: HapticTimeImmediate)
        XCTAssertEqual(arrived.wait(timeout: .now() + 60), .success, "no onset arrived")
        let health = engine.linkHealth
        let identity = try XCTUnwrap(engine.deviceStatus.identity)
        subscription.cancel()
        // --- end of the sample's first half ---
        let update = try XCTUnwrap(received.with { $0.first })
        XCTAssertEqual(received.with { $0.count }, 1)
        XCTAssertEqual(engine.onsets.first, update.record)
        XCTAssertEqual(update.kind, .reported)
        let device = try chip(of: engine)
        let truth = try XCTUnwrap(VirtualRig.trueOnset(of: update.record, on: device), "the chip drove the tap")
        XCTAssertLessThanOrEqual(abs(truth - (try XCTUnwrap(update.onsetTime))), try XCTUnwrap(update.onsetBound) + 1e-6)
        XCTAssertTrue(health.isConnected)
        XCTAssertGreaterThan(health.roundTrip, .zero)
        XCTAssertEqual(identity.deviceId, device.configuration.board.deviceID)

        // The async sequence: the next play's onset, then the task's cancel ends it.
        let updates = engine.onsetUpdates()
        try engine.makePlayer(with: tap).start(atTime: HapticTimeImmediate)
        let watcher = Task { () -> OnsetUpdate? in
            for await update in updates where update.kind == .reported { return update }
            return nil
        }
        let delivered = await watcher.value
        let next = try XCTUnwrap(delivered, "the sequence delivered the second tap")
        XCTAssertEqual(engine.onsets.count, 2)
        XCTAssertEqual(next.record.playerID, engine.onsets.last?.playerID)
    }
}

/// A value shared with the engine's run thread.
private final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func with<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
