import Foundation
import ThrumAudio

/// The audio resources registered with an engine (`registerAudioResource(_:options:)`), by id.
public final class AudioResourceRegistry {
    private var resources: [Int: AudioResource] = [:]
    private var nextID = 1
    /// The limits checked at registration (the guides' 4.2 MB and 23 s).
    public var limits = AudioResource.Limits()

    init() {}

    /// Loads, decodes and keeps the file at `path`; returns its id.
    /// - Throws: ``HapticError`` `fileNotFound` (−4851) or `invalidAudioResource` (−4824, over a limit or undecodable).
    func register(path: String, options: AudioResource.Options) throws -> Int {
        let resource: AudioResource
        do {
            resource = try AudioResource.load(path: path, options: options, limits: limits)
        } catch {
            throw HapticError(error.code, error.description)
        }
        let id = nextID
        nextID += 1
        resources[id] = resource
        return id
    }

    /// Forgets resource `id`.
    /// - Throws: ``HapticError`` `invalidAudioResource` (−4824) for an id not registered.
    func unregister(_ id: Int) throws {
        guard resources.removeValue(forKey: id) != nil else {
            throw HapticError(.invalidAudioResource, "audio resource \(id) is not registered")
        }
    }

    /// The resource `id`, if registered.
    public subscript(id: Int) -> AudioResource? { resources[id] }

    /// How many are registered.
    public var count: Int { resources.count }
}
