import Foundation
import ThrumTime

/// The lock every engine, player and device call takes: recursive (handlers run inside it and may
/// call back), and fair to callers: the run thread lets a waiting caller in between two steps.
final class EngineLock: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private let counter = NSLock()
    private var waiting = 0
    /// How deep the owning thread is in ``withLock(_:)`` (read and written only under the lock).
    var depth = 0

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        counter.lock()
        waiting += 1
        counter.unlock()
        lock.lock()
        counter.lock()
        waiting -= 1
        counter.unlock()
        defer { lock.unlock() }
        return try body()
    }

    /// Gives a caller waiting for the lock the chance to take it (called without holding it).
    func yieldIfWaited() {
        var spins = 0
        while spins < 50 {
            counter.lock()
            let someone = waiting > 0
            counter.unlock()
            if !someone { return }
            usleep(20)
            spins += 1
        }
    }
}

/// The run thread of a ``SharedDevice`` on real time (or paced virtual time): after an engine
/// starts, it exchanges bytes, renders drive and calls handlers without the caller doing anything,
/// as Core Haptics does. Over a transport it can wait on apart from the lock
/// (``ThrumLink/WakeableTransport``) each step waits for input WITHOUT the lock, until the next
/// deadline or a caller's wake (``SharedDevice/runnerStep(pacedTarget:slice:)``); otherwise (and on
/// paced virtual time) it steps the device at most `slice` at a time under the lock, so a call
/// from another thread waits at most one step for it. While no engine is started it sleeps until
/// kicked (``kick()``, when one starts); it ends when its device goes away.
final class DeviceRunner: @unchecked Sendable {
    private weak var device: SharedDevice?
    private let state = NSLock()
    private let wakeUp = DispatchSemaphore(value: 0)
    private var running = false
    private var alive = false
    /// The thread-dictionary key that marks a run thread.
    static let marker = "thrum.device.run-thread"
    /// Longest step on real time when the wait cannot happen apart from the lock: bounds how long
    /// a caller waits for it.
    let slice = EngineDuration.milliseconds(1)

    init(device: SharedDevice) { self.device = device }

    /// Whether the thread is running.
    var isAlive: Bool {
        state.lock()
        defer { state.unlock() }
        return alive
    }

    func start() {
        state.lock()
        running = true
        alive = true
        state.unlock()
        let thread = Thread { [self] in
            Thread.current.name = "thrum.device"
            Thread.current.threadDictionary[DeviceRunner.marker] = true
            loop()
            state.lock()
            alive = false
            state.unlock()
        }
        thread.name = "thrum.device"
        thread.start()
    }

    /// Asks the thread to end after its current step.
    func stop() {
        state.lock()
        running = false
        state.unlock()
        wakeUp.signal()
    }

    /// Wakes the thread when an engine started.
    func kick() { wakeUp.signal() }

    private var shouldRun: Bool {
        state.lock()
        defer { state.unlock() }
        return running
    }

    private func loop() {
        let wall = MonotonicClock()
        // Paced: virtual µs = wall µs + offset, re-based whenever virtual time ran ahead (a caller
        // ran the device itself) so that pacing continues from there.
        var offset: EngineDuration?
        while shouldRun {
            guard let device else { return }
            var target: EngineTime?
            if device.runMode == .paced {
                let wallNow = EngineTime(wall.now())
                let virtualNow = device.locked { device.timeNow }
                if offset == nil || wallNow + offset! < virtualNow { offset = virtualNow - wallNow }
                target = wallNow + offset!
            }
            if !device.runnerStep(pacedTarget: target, slice: slice) {
                offset = nil
                _ = wakeUp.wait(timeout: .now() + 0.5)
                continue
            }
            device.yieldToCallers()
            // Paced virtual time: the simulation ran up to the wall clock; wait a little for it to move.
            if target != nil { usleep(500) }
        }
    }
}
