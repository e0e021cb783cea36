import Foundation
import ThrumEngine
import ThrumLibrary
import ThrumWire

/// What a device holds in its library storage, as `thrum info` and `thrum library list` show it.
struct DeviceLibrary {
    enum State {
        /// The device speaks protocol version 0: no library.
        case unsupported(UInt32)
        /// The board has no library storage.
        case noStorage
        /// No library stored.
        case empty(capacity: UInt32)
        /// A library is active.
        case active(image: LibraryImage, status: LibraryStatusReport)
    }
    var state: State

    /// Asks the device (LIBRARY_QUERY, then LIBRARY_READ of the whole image when one is active).
    static func read(_ connection: DeviceConnection) throws -> DeviceLibrary {
        let device = connection.device
        guard let identity = connection.status.identity, identity.protocolVersion >= 1 else {
            return DeviceLibrary(state: .unsupported(connection.status.identity?.protocolVersion ?? 0))
        }
        do {
            let status = try device.libraryStatus()
            switch status.status {
            case ProtocolConstants.libraryStatusNoStorage: return DeviceLibrary(state: .noStorage)
            case ProtocolConstants.libraryStatusActive:
                let read = try device.readLibrary()
                return DeviceLibrary(state: .active(image: read.image, status: read.status))
            default: return DeviceLibrary(state: .empty(capacity: status.capacity))
            }
        } catch {
            throw CommandFailure(message: error.description)
        }
    }

    /// One line for `thrum info`.
    var text: String {
        switch state {
        case .unsupported(let v): return "library: none (protocol \(v) has no preset library)"
        case .noStorage: return "library: the device has no library storage"
        case .empty(let capacity): return "library: none stored (a slot holds \(capacity) B)"
        case .active(let image, let s):
            return "library: '\(image.name)' version \(image.version), \(s.size) B, CRC-32 \(LibraryCommand.hexCRC(s.crc)), "
                + "slot \(s.slot) (record \(s.seq)), \(image.presets.count) presets for \(image.profile.id); a slot holds \(s.capacity) B"
        }
    }

    /// The `library` object of `thrum info --json` (null without a library).
    var json: Any {
        switch state {
        case .unsupported, .noStorage: return NSNull()
        case .empty(let capacity):
            return ["stored": false, "capacity_bytes": Int(capacity)] as [String: Any]
        case .active(let image, let s):
            return [
                "stored": true, "name": image.name, "version": Int(image.version), "bytes": Int(s.size),
                "crc32": LibraryCommand.hexCRC(s.crc), "slot": Int(s.slot), "sequence": Int(s.seq), "presets": image.presets.count,
                "actuator": image.profile.id, "capacity_bytes": Int(s.capacity),
            ] as [String: Any]
        }
    }

    /// The presets, as `thrum library list --json` prints them.
    static func presetsJSON(_ image: LibraryImage) -> [[String: Any]] {
        image.summaries().map { s in
            [
                "id": Int(s.id), "name": s.name, "trigger": JSONOutput.orNull(s.trigger.map { Int($0) }),
                "duration_s": JSONOutput.seconds(Double(s.durationMicroseconds) / 1e6), "events": s.events,
                "bytes": s.programBytes,
            ]
        }
    }
}
