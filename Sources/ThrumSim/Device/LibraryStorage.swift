import Foundation

/// The virtual device's library storage: a 24LC256-class I²C EEPROM (32 KiB in 64-byte pages,
/// written in place, 5 ms per page write), optionally kept in a file so that it survives restarts
/// (`thrum sim --storage FILE`), and able to lose power in the middle of a flash.
///
/// A page write that power loss interrupts stores only the bytes it had reached (a torn write);
/// every later write is ignored until ``restorePower()``.
public final class LibraryStorage: @unchecked Sendable {
    /// Bytes of storage.
    public let size: Int
    /// The page: the most one write may hold, and the unit it may not cross.
    public let pageSize: Int
    /// µs one page write keeps the part busy (the EEPROM's write cycle).
    public let writeCycleMicroseconds: UInt64
    /// The contents (erased bytes read 0xFF).
    public private(set) var bytes: [UInt8]
    /// Where the contents are kept across restarts, if anywhere.
    public let file: URL?
    /// Bytes still to be written before power is lost (nil: no power loss planned).
    public var powerLossAfterBytes: Int?
    /// Page writes still to complete before power is lost (nil: none planned).
    public var powerLossAfterWrites: Int?
    /// Power was lost: writes are ignored.
    public private(set) var powerLost = false
    /// Page writes done (for the bench and the power-loss sweep).
    public private(set) var pageWrites = 0
    /// Bytes written.
    public private(set) var bytesWritten = 0

    /// Why a storage file could not be used.
    public struct FileError: Error, CustomStringConvertible {
        public var description: String
    }

    /// A 24LC256: 32 768 bytes, 64-byte pages, 5 ms write cycle.
    public init(size: Int = 32_768, pageSize: Int = 64, writeCycleMicroseconds: UInt64 = 5_000) {
        self.size = size
        self.pageSize = pageSize
        self.writeCycleMicroseconds = writeCycleMicroseconds
        self.bytes = [UInt8](repeating: 0xFF, count: size)
        self.file = nil
    }

    /// Storage kept in `file`: read from it when it exists (it must be `size` bytes), created
    /// erased otherwise, and written back after every page write.
    public init(file: URL, size: Int = 32_768, pageSize: Int = 64, writeCycleMicroseconds: UInt64 = 5_000) throws(FileError) {
        self.size = size
        self.pageSize = pageSize
        self.writeCycleMicroseconds = writeCycleMicroseconds
        self.file = file
        if let data = FileManager.default.contents(atPath: file.path) {
            guard data.count == size else {
                throw FileError(description: "\(file.path): a storage file holds \(size) bytes, this one \(data.count) (not a thrum sim storage file?)")
            }
            bytes = [UInt8](data)
        } else {
            bytes = [UInt8](repeating: 0xFF, count: size)
            guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes)) else {
                // Why, in words: a directory, a missing directory, no permission.
                var isDirectory: ObjCBool = false
                let parent = file.deletingLastPathComponent().path
                let reason =
                    FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) && isDirectory.boolValue
                    ? "it is a directory; give a file name"
                    : !FileManager.default.fileExists(atPath: parent) ? "the directory \(parent) does not exist"
                    : FileManager.default.fileExists(atPath: file.path) ? "it cannot be read" : "no permission to write in \(parent)"
                throw FileError(description: "cannot create the storage file \(file.path): \(reason)")
            }
        }
    }

    /// A copy of the contents as they stand, with no power loss planned (the next power-up).
    public func copy() -> LibraryStorage {
        let c = LibraryStorage(size: size, pageSize: pageSize, writeCycleMicroseconds: writeCycleMicroseconds)
        c.bytes = bytes
        return c
    }

    /// Power is back: writes work again (the contents are what the interrupted flash left).
    public func restorePower() {
        powerLost = false
        powerLossAfterBytes = nil
        powerLossAfterWrites = nil
    }

    func read(_ address: Int, count: Int) -> [UInt8]? {
        guard address >= 0, count >= 0, address + count <= size else { return nil }
        return Array(bytes[address..<(address + count)])
    }

    /// Writes inside one page; false when it would cross a page or leave the part (or power is lost).
    func write(_ address: Int, _ data: [UInt8]) -> Bool {
        guard address >= 0, address + data.count <= size, data.count <= pageSize,
            data.isEmpty || address / pageSize == (address + data.count - 1) / pageSize
        else { return false }
        if powerLost { return false }
        var n = data.count
        if let budget = powerLossAfterBytes, budget < n { n = budget }
        if let writes = powerLossAfterWrites, writes <= 0 { n = 0 }
        for i in 0..<n { bytes[address + i] = data[i] }
        bytesWritten += n
        if let budget = powerLossAfterBytes { powerLossAfterBytes = budget - n }
        if n < data.count || powerLossAfterWrites == 0 {
            powerLost = true
            save()
            return false
        }
        pageWrites += 1
        if let writes = powerLossAfterWrites { powerLossAfterWrites = writes - 1 }
        save()
        return true
    }

    private func save() {
        guard let file else { return }
        try? Data(bytes).write(to: file)
    }
}
