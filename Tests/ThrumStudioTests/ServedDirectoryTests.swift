import Foundation
import ThrumStudio
import XCTest

/// Only AHAP files under the served directory are readable or writable: no `..`, no absolute
/// paths, no symbolic link (to a file or a directory) that leads outside.
final class ServedDirectoryTests: XCTestCase {
    private var base: URL!
    private var served: URL!
    private var outside: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-served-\(UUID().uuidString)")
        served = base.appendingPathComponent("served")
        outside = base.appendingPathComponent("outside")
        let fm = FileManager.default
        try fm.createDirectory(at: served.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: served.appendingPathComponent("a.ahap"))
        try Data("{}".utf8).write(to: served.appendingPathComponent("sub/b.ahap"))
        try Data("{}".utf8).write(to: served.appendingPathComponent("notes.txt"))
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.ahap"))
        try fm.createSymbolicLink(atPath: served.appendingPathComponent("escape.ahap").path, withDestinationPath: outside.appendingPathComponent("secret.ahap").path)
        try fm.createSymbolicLink(atPath: served.appendingPathComponent("linked").path, withDestinationPath: outside.path)
        try fm.createSymbolicLink(atPath: served.appendingPathComponent("inner.ahap").path, withDestinationPath: served.appendingPathComponent("sub/b.ahap").path)
        try fm.createSymbolicLink(atPath: served.appendingPathComponent("dangling.ahap").path, withDestinationPath: outside.appendingPathComponent("new.ahap").path)
        addTeardownBlock { [base] in try? FileManager.default.removeItem(at: base!) }
    }

    func testResolvesOnlyInside() throws {
        let dir = try ServedDirectory(path: served.path)
        XCTAssertNotNil(dir.resolve("a.ahap"))
        XCTAssertNotNil(dir.resolve("sub/b.ahap"))
        XCTAssertNotNil(dir.resolve("inner.ahap"), "a link that stays inside is served")
        for name in ["../outside/secret.ahap", "sub/../a.ahap", "./a.ahap", "/etc/passwd", served.path + "/a.ahap", "escape.ahap",
                     "linked/secret.ahap", "notes.txt", "", "a.ahap\0.ahap", "dangling.ahap"] {
            XCTAssertNil(dir.resolve(name), name)
        }
        XCTAssertEqual(dir.list(), ["a.ahap", "inner.ahap", "sub/b.ahap"])
    }

    func testWritesOnlyInside() throws {
        let dir = try ServedDirectory(path: served.path)
        try dir.write(Data("new".utf8), to: "sub/c.ahap")
        XCTAssertEqual(try Data(contentsOf: served.appendingPathComponent("sub/c.ahap")), Data("new".utf8))
        for name in ["escape.ahap", "linked/x.ahap", "../outside/x.ahap", "dangling.ahap", "nodir/x.ahap"] {
            XCTAssertThrowsError(try dir.write(Data("x".utf8), to: name), name)
        }
        XCTAssertEqual(try Data(contentsOf: outside.appendingPathComponent("secret.ahap")), Data("secret".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside.appendingPathComponent("new.ahap").path))
        XCTAssertThrowsError(try dir.read("escape.ahap"))
    }

    func testNotADirectory() {
        XCTAssertThrowsError(try ServedDirectory(path: served.appendingPathComponent("a.ahap").path))
        XCTAssertThrowsError(try ServedDirectory(path: base.appendingPathComponent("missing").path))
    }

    /// The watcher reports a file changed on disk (and not the studio's own save, re-watched).
    func testWatcherSeesAnExternalChange() throws {
        let dir = try ServedDirectory(path: served.path)
        let seen = Seen()
        let watcher = FileWatcher(directory: dir, interval: 3600) { seen.add($0) }
        defer { watcher.stop() }
        watcher.watch("a.ahap")
        watcher.poll()
        XCTAssertEqual(seen.names, [])
        try Data("{\"changed\": 1}".utf8).write(to: served.appendingPathComponent("a.ahap"))
        watcher.poll()
        XCTAssertEqual(seen.names, ["a.ahap"])
        try dir.write(Data("{\"saved\": 22}".utf8), to: "a.ahap")
        watcher.watch("a.ahap")
        watcher.poll()
        XCTAssertEqual(seen.names, ["a.ahap"])
    }
}

private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ name: String) { lock.withLock { list.append(name) } }
    var names: [String] { lock.withLock { list } }
}
