import Foundation
import ThrumPattern

/// The one directory the studio reads and writes: names given by the page are resolved inside
/// it, symbolic links followed, and anything that lands outside it (`..`, an absolute path, a
/// link to elsewhere) is refused as if it did not exist. Only AHAP files are served.
public struct ServedDirectory: Sendable {
    /// The directory's real path (links resolved).
    public let root: String
    /// The most files ``list()`` returns.
    public static let mostFiles = 2_000
    /// The largest file read or written (bytes).
    public static let largestFile = 16 << 20

    /// Serves `path` (a directory).
    /// - Throws: ``StudioServerError`` when it is not a directory.
    public init(path: String) throws(StudioServerError) {
        guard let real = Self.realPath(path) else { throw StudioServerError("\(path): no such directory") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StudioServerError("\(path): not a directory")
        }
        root = real
    }

    /// The real path of `name` (relative to the root, `/`-separated) when it is an AHAP file
    /// inside the root (after following links); nil otherwise. With `mayBeNew`, a file that does
    /// not exist yet resolves through its directory.
    public func resolve(_ name: String, mayBeNew: Bool = false) -> String? {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\0"), name.lowercased().hasSuffix(".ahap"),
            !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        else { return nil }
        let joined = root + "/" + name
        if let real = Self.realPath(joined) {
            guard inside(real), FileManager.default.isReadableFile(atPath: real) else { return nil }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            return real
        }
        guard mayBeNew, let parent = Self.realPath(FilePathText.directory(of: joined)), inside(parent) || parent == root
        else { return nil }
        // A dangling link would be followed by the write: refuse it.
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: joined)) != nil { return nil }
        return parent + "/" + (joined as NSString).lastPathComponent
    }

    /// The AHAP files under the root (links that lead outside left out), relative names, sorted.
    public func list() -> [String] {
        var names: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        while let name = walker.nextObject() as? String, names.count < Self.mostFiles {
            if name.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                walker.skipDescendants()
                continue
            }
            if name.lowercased().hasSuffix(".ahap"), resolve(name) != nil { names.append(name) }
        }
        return names.sorted()
    }

    /// The bytes of `name`.
    /// - Throws: ``StudioServerError`` when it is not a served file or cannot be read.
    public func read(_ name: String) throws(StudioServerError) -> Data {
        guard let path = resolve(name) else { throw StudioServerError("\(name): no such file in the served directory") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= Self.largestFile else { throw StudioServerError("\(name): \(size) bytes, larger than the studio reads") }
        guard let data = FileManager.default.contents(atPath: path) else { throw StudioServerError("\(name): cannot be read") }
        return data
    }

    /// Replaces `name`'s bytes atomically (a temporary file beside it, then a rename), keeping
    /// the file a link points to a link's target.
    /// - Throws: ``StudioServerError`` when it is not a served name or the write fails.
    public func write(_ data: Data, to name: String) throws(StudioServerError) {
        guard data.count <= Self.largestFile else { throw StudioServerError("\(name): larger than the studio writes") }
        guard let path = resolve(name, mayBeNew: true) else { throw StudioServerError("\(name): not a file in the served directory") }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw StudioServerError("\(name): cannot be written (\(error.localizedDescription))")
        }
    }

    /// The modification time (ns) and size of `name`, nil when it is not a served file.
    public func stamp(_ name: String) -> FileStamp? {
        guard let path = resolve(name) else { return nil }
        return FileStamp(path: path)
    }

    private func inside(_ real: String) -> Bool { real.hasPrefix(root + "/") }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

/// What tells a file changed: its modification time, size and inode.
public struct FileStamp: Equatable, Sendable {
    public var modified: Int64
    public var size: Int64
    public var inode: UInt64

    /// The stamp of `path`, nil when it cannot be read.
    public init?(path: String) {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        modified = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
        size = Int64(s.st_size)
        inode = UInt64(s.st_ino)
    }
}
