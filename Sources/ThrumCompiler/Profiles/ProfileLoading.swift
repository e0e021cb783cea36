import Foundation

extension ActuatorProfile {
    /// Decodes a profile from the JSON of one `hardware/actuators/*.json` file.
    public static func decode(json data: Data) throws -> ActuatorProfile {
        try JSONDecoder().decode(ActuatorProfile.self, from: data)
    }

    /// Loads a profile from a JSON file.
    public static func load(contentsOf url: URL) throws -> ActuatorProfile {
        try decode(json: Data(contentsOf: url))
    }

    /// Loads every `*.json` profile in a directory, sorted by id.
    public static func loadAll(in directory: URL) throws -> [ActuatorProfile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }
        return try names.map { try load(contentsOf: directory.appendingPathComponent($0)) }
            .sorted { $0.id < $1.id }
    }

    /// The profile encoded as pretty, key-sorted JSON (the format of `hardware/actuators/`).
    public func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
