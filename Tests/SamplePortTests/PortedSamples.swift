// The Core Haptics guides' sample code, ported to Thrum by renames only:
//   import CoreHaptics / import UIKit      → import Thrum
//   CHHapticEngine, CHHapticPattern, CHHapticEvent, CHHapticEventParameter,
//   CHHapticDynamicParameter, CHHapticParameterCurve, CHHapticTimeImmediate,
//   CHHapticPatternPlayer, CHHapticAdvancedPatternPlayer
//                                           → the same names without "CH"
//   UIImpactFeedbackGenerator, UISelectionFeedbackGenerator, UINotificationFeedbackGenerator
//                                           → the same names without "UI"
// Nothing else is changed: no run loop, no engine passed to the generators, no `sync`. The
// tests (SamplePortTests.swift) run this code on a virtual rig's device, standing in for the
// default device, and check it against the simulated chip.
import Foundation
import Thrum

// MARK: HapticManager with heartbeat, success and error patterns

/// The guides' haptic manager: one engine for the app, restarted after a reset, patterns built
/// in code and played with a fresh player each time.
final class HapticManager {
    let hapticEngine: HapticEngine

    init?() {
        let hapticCapability = HapticEngine.capabilitiesForHardware()
        guard hapticCapability.supportsHaptics else { return nil }
        do {
            hapticEngine = try HapticEngine()
        } catch let error {
            print("Haptic engine creation error: \(error)")
            return nil
        }
        do {
            try hapticEngine.start()
        } catch let error {
            print("Haptic engine start error: \(error)")
        }
        hapticEngine.isAutoShutdownEnabled = true
        hapticEngine.resetHandler = { [weak self] in
            do {
                try self?.hapticEngine.start()
            } catch {
                print("Failed to restart the engine: \(error)")
            }
        }
    }

    func playHeartbeat() {
        do {
            let pattern = try heartbeatPattern()
            let player = try hapticEngine.makePlayer(with: pattern)
            try player.start(atTime: HapticTimeImmediate)
        } catch {
            print("Failed to play heartbeat: \(error)")
        }
    }

    func playSuccess() {
        do {
            let player = try hapticEngine.makePlayer(with: try successPattern())
            try player.start(atTime: HapticTimeImmediate)
        } catch {
            print("Failed to play success: \(error)")
        }
    }

    func playError() {
        do {
            let player = try hapticEngine.makePlayer(with: try errorPattern())
            try player.start(atTime: HapticTimeImmediate)
        } catch {
            print("Failed to play error: \(error)")
        }
    }

    private func heartbeatPattern() throws -> HapticPattern {
        let lub = HapticEvent(
            eventType: .hapticTransient,
            parameters: [
                HapticEventParameter(parameterID: .hapticIntensity, value: 1.0),
                HapticEventParameter(parameterID: .hapticSharpness, value: 0.3),
            ],
            relativeTime: 0)
        let dub = HapticEvent(
            eventType: .hapticTransient,
            parameters: [
                HapticEventParameter(parameterID: .hapticIntensity, value: 0.6),
                HapticEventParameter(parameterID: .hapticSharpness, value: 0.3),
            ],
            relativeTime: 0.15)
        return try HapticPattern(events: [lub, dub], parameters: [])
    }

    private func successPattern() throws -> HapticPattern {
        let sharpness = HapticEventParameter(parameterID: .hapticSharpness, value: 0.5)
        let events = [
            HapticEvent(
                eventType: .hapticTransient,
                parameters: [sharpness, HapticEventParameter(parameterID: .hapticIntensity, value: 0.6)], relativeTime: 0),
            HapticEvent(
                eventType: .hapticTransient,
                parameters: [sharpness, HapticEventParameter(parameterID: .hapticIntensity, value: 1.0)], relativeTime: 0.1),
        ]
        return try HapticPattern(events: events, parameters: [])
    }

    private func errorPattern() throws -> HapticPattern {
        var events: [HapticEvent] = []
        for i in 0..<3 {
            events.append(
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [
                        HapticEventParameter(parameterID: .hapticIntensity, value: 1.0),
                        HapticEventParameter(parameterID: .hapticSharpness, value: 1.0),
                    ],
                    relativeTime: 0.08 * Double(i)))
        }
        return try HapticPattern(events: events, parameters: [])
    }
}

// MARK: An engine with stopped and reset handlers

/// The guides' engine set-up: a handler for every stopped reason, a reset handler that
/// restarts the engine and remakes the player.
final class EngineWithHandlers {
    var engine: HapticEngine!
    var player: HapticPatternPlayer?
    var stopReasons: [String] = []
    var resets = 0

    func createEngine() {
        do {
            engine = try HapticEngine()
        } catch let error {
            print("Engine Creation Error: \(error)")
        }
        engine.stoppedHandler = { reason in
            print("Stop Handler: The engine stopped for reason: \(reason.rawValue)")
            switch reason {
            case .audioSessionInterrupt:
                self.stopReasons.append("Audio session interrupt")
            case .applicationSuspended:
                self.stopReasons.append("Application suspended")
            case .idleTimeout:
                self.stopReasons.append("Idle timeout")
            case .systemError:
                self.stopReasons.append("System error")
            case .notifyWhenFinished:
                self.stopReasons.append("Playback finished")
            case .gameControllerDisconnect:
                self.stopReasons.append("Controller disconnected.")
            case .engineDestroyed:
                self.stopReasons.append("Engine destroyed.")
            @unknown default:
                self.stopReasons.append("Unknown error")
            }
        }
        engine.resetHandler = {
            print("Reset Handler: Restarting the engine.")
            self.resets += 1
            do {
                try self.engine.start()
                self.player = try self.engine.makePlayer(with: self.tap())
            } catch {
                print("Failed to start the engine")
            }
        }
        do {
            try engine.start()
            player = try engine.makePlayer(with: tap())
        } catch {
            print("Failed to start the engine: \(error)")
        }
    }

    func tap() throws -> HapticPattern {
        try HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)], relativeTime: 0)
            ], parameters: [])
    }

    func playTap() {
        do {
            try player?.start(atTime: HapticTimeImmediate)
        } catch {
            print("Failed to play: \(error)")
        }
    }

    func finishAndStop() {
        engine.notifyWhenPlayersFinished { _ in .stopEngine }
    }
}

// MARK: A looping advanced player

/// The guides' continuous buzz with a tick, looped by an advanced player until stopped.
final class LoopingBuzz {
    let engine: HapticEngine
    var player: HapticAdvancedPatternPlayer?
    var finished = false

    init() throws {
        engine = try HapticEngine()
        try engine.start()
    }

    /// A 100 ms pattern: a tick at 0 and a 50 ms buzz from 50 ms (its release rings into the next pass).
    func pattern() throws -> HapticPattern {
        let tick = HapticEvent(
            eventType: .hapticTransient,
            parameters: [
                HapticEventParameter(parameterID: .hapticIntensity, value: 1.0),
                HapticEventParameter(parameterID: .hapticSharpness, value: 0.8),
            ],
            relativeTime: 0)
        let buzz = HapticEvent(
            eventType: .hapticContinuous,
            parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 0.4)],
            relativeTime: 0.05, duration: 0.05)
        return try HapticPattern(events: [tick, buzz], parameters: [])
    }

    func startLooping() throws {
        let player = try engine.makeAdvancedPlayer(with: try pattern())
        player.loopEnabled = true
        player.completionHandler = { _ in self.finished = true }
        try player.start(atTime: HapticTimeImmediate)
        self.player = player
    }

    func softer() throws {
        let intensity = HapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)
        try player?.sendParameters([intensity], atTime: HapticTimeImmediate)
    }

    func stopLooping() throws {
        try player?.stop(atTime: HapticTimeImmediate)
    }
}

// MARK: UIKit feedback generators

/// The guides' view-controller code: generators made where they are used, prepared a beat ahead.
final class FeedbackSample {
    let impact = ImpactFeedbackGenerator(style: .heavy)
    let selection = SelectionFeedbackGenerator()
    let notification = NotificationFeedbackGenerator()

    func willDrop() { impact.prepare() }
    func didDrop() { impact.impactOccurred() }
    func pickerMoved() { selection.selectionChanged() }
    func saved() { notification.notificationOccurred(.success) }
    func failed() { notification.notificationOccurred(.error) }
}

// MARK: The recording-player contract test's app code

/// An app type whose haptics are injected: `HapticPlaying` in tests, the engine in the app.
final class Checkout {
    private let feedback: NotificationFeedbackGenerator

    init(feedback: NotificationFeedbackGenerator = NotificationFeedbackGenerator()) {
        self.feedback = feedback
    }

    /// Pays; the result never depends on whether the haptic played.
    func pay(_ amount: Double) -> Bool {
        let ok = amount > 0
        feedback.notificationOccurred(ok ? .success : .error)
        return ok
    }
}
