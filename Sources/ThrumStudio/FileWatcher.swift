import Foundation

/// Watches the files the page has open and says when one changes on disk (another editor saved
/// it): it reads their stamps (modification time, size, inode) every `interval`, which costs a
/// few `stat` calls, so an idle studio stays idle.
public final class FileWatcher: @unchecked Sendable {
    /// How often the stamps are read.
    public let interval: TimeInterval
    private let directory: ServedDirectory
    private let changed: @Sendable (String) -> Void
    private let lock = NSLock()
    private var stamps: [String: FileStamp?] = [:]
    private var running = true
    private var thread: Thread?

    /// Starts watching (nothing yet: ``watch(_:)`` adds files); `changed` runs on the watcher's
    /// thread with the file's name.
    public init(directory: ServedDirectory, interval: TimeInterval = 0.2, changed: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.interval = interval
        self.changed = changed
        let thread = Thread { [weak self] in
            while let interval = self?.interval {
                Thread.sleep(forTimeInterval: interval)
                guard let self, self.isRunning else { return }
                self.poll()
            }
        }
        thread.name = "thrum-studio-watch"
        self.thread = thread
        thread.start()
    }

    deinit { stop() }

    private var isRunning: Bool { lock.withLock { running } }

    /// Stops the thread.
    public func stop() { lock.withLock { running = false } }

    /// Watches `name` from its present stamp on (called again after the studio's own save, that
    /// change is then not reported).
    public func watch(_ name: String) {
        let stamp = directory.stamp(name)
        lock.withLock { stamps[name] = stamp }
    }

    /// Reads every watched file's stamp once and reports those that changed.
    public func poll() {
        let names = lock.withLock { Array(stamps.keys) }
        for name in names {
            let now = directory.stamp(name)
            // Compare and record in one step, so two polls never both report one change.
            let isNew: Bool = lock.withLock {
                guard let before = stamps[name], before != now else { return false }
                stamps[name] = now
                return true
            }
            if isNew { changed(name) }
        }
    }
}
