import Foundation

/// Drives a manual ``HapticEngine``'s run loop on a background thread. No longer needed: an
/// engine on real time runs by itself after `start()` and is safe from any thread (see
/// `docs/engine.md`, "Threading"); kept for code written against it.
///
/// The engine stays single-threaded: the driver thread runs it in short steps and every other
/// thread reaches it only through ``sync(_:)``, which waits for the step in progress and runs its
/// body with exclusive access. Handlers (completion, stopped, reset, finished) run on the driver
/// thread, inside a step; do not call ``sync(_:)`` or ``stop()`` from them.
public final class HapticEngineDriver: @unchecked Sendable {
    private let engine: HapticEngine
    private let step: Double
    private let engineLock = NSLock()
    private let stateLock = NSLock()
    private var waiting = 0
    private var running = false
    private var finished: DispatchSemaphore?

    /// A driver for `engine`; each step runs the engine for at most `step` seconds, which bounds
    /// how long ``sync(_:)`` waits.
    public init(engine: HapticEngine, step: Double = 0.005) {
        self.engine = engine
        self.step = step
    }

    /// Starts the driver thread (no-op when running).
    public func start() {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard !running else { return }
        running = true
        let done = DispatchSemaphore(value: 0)
        finished = done
        let thread = Thread { [self] in
            loop()
            done.signal()
        }
        thread.name = "thrum.engine-driver"
        thread.start()
    }

    /// Stops the driver thread and waits for it (the engine itself keeps its state).
    public func stop() {
        stateLock.lock()
        running = false
        let done = finished
        finished = nil
        stateLock.unlock()
        done?.wait()
    }

    /// Runs `body` with exclusive access to the engine, between two run-loop steps.
    public func sync<T>(_ body: (HapticEngine) throws -> T) rethrows -> T {
        stateLock.lock()
        waiting += 1
        stateLock.unlock()
        engineLock.lock()
        stateLock.lock()
        waiting -= 1
        stateLock.unlock()
        defer { engineLock.unlock() }
        return try body(engine)
    }

    private func loop() {
        while true {
            stateLock.lock()
            let keepGoing = running
            let yielding = waiting > 0
            stateLock.unlock()
            if !keepGoing { return }
            if yielding {
                usleep(50)  // let a sync caller in before the next step
                continue
            }
            engineLock.lock()
            engine.run(for: step)
            let idle = !engine.isRunning
            engineLock.unlock()
            if idle { usleep(UInt32(step * 1e6)) }  // nothing to drive: do not spin
        }
    }
}
