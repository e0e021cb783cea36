import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLibrary
import ThrumTime
import ThrumWire

/// `thrum play id:N --port P`: play a preset of the library stored on the device (one short
/// PLAY_PRESET message; the device expands the stored program itself).
enum StoredPresetPlay {
    /// The argument prefix.
    static let prefix = "id:"

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let options = try DeviceCommandOptions.take(from: &arguments, positional: true)
        guard let argument = options.positional, argument.hasPrefix(prefix), let id = UInt16(argument.dropFirst(prefix.count)), id > 0 else {
            throw UsageError(message: "id:N names a stored preset by its id, 1…65535 (see `thrum library list --port P`)")
        }
        let target = try options.target()
        let connection = try DeviceConnection.open(target: target, profile: options.profile)
        defer { target.close() }
        let session = connection.session
        let library = try DeviceLibrary.read(session)
        guard case .active(let image, _) = library.state else {
            throw CommandFailure(message: library.text.replacingOccurrences(of: "library: ", with: "cannot play id:\(id): "))
        }
        guard let preset = image.preset(id: id) else {
            throw CommandFailure(message: LibraryClientError.noPreset(id: UInt32(id), available: image.presets.map(\.id)).description)
        }
        if image.profile.id != options.profile.id {
            printError("note: the library was built for \(image.profile.id); the device was set up for \(options.profile.id)")
        }
        let summary = image.summaries().first { $0.id == id }!
        // As `play` settles calibration: not redone while the driver holds the kept one, written
        // back (RESTORE_CALIBRATION) when a reset cleared it, run otherwise.
        var configuration = HapticEngine.Configuration()
        if connection.stillValid != nil || connection.restoreIfLost() != nil { configuration.calibrateOnStart = false }
        let engine = HapticEngine(session: session, profile: options.profile, configuration: configuration)
        do {
            try engine.start()
            let start = try engine.playStoredPreset(id: id)
            engine.run(for: Double(summary.durationMicroseconds) / 1e6 + 0.3)
            let faults = session.faults.filter { $0.code == ProtocolConstants.faultNoPreset }
            if !faults.isEmpty { throw CommandFailure(message: "the device reported FAULT 10: no stored preset \(id)") }
            if options.json {
                JSONOutput.print([
                    "command": "play", "id": Int(id), "name": preset.name, "target": target.name,
                    "drive_start_host_monotonic_ns": start.nanoseconds, "duration_s": JSONOutput.seconds(Double(summary.durationMicroseconds) / 1e6),
                    "events": summary.events, "library": image.name,
                ])
            } else {
                print("played stored preset \(id) '\(preset.name)' from library '\(image.name)' on \(target.name): "
                    + "\(summary.events) events, \(String(format: "%.0f", Double(summary.durationMicroseconds) / 1000)) ms")
            }
            engine.stop()
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(message: "\(error)")
        }
        return 0
    }
}
