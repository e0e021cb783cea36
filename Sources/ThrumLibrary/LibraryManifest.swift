import ThrumPattern

/// A library's source: `library.json` in a directory (docs/library.md §Manifest).
///
/// ```json
/// { "name": "examples", "version": 1, "actuator": "pmd-c10-100",
///   "presets": [ { "id": 1, "name": "heartbeat", "ahap": "heartbeat.ahap", "trigger": 0 },
///                { "id": 2, "preset": "impact.heavy" } ] }
/// ```
public struct LibraryManifest: Equatable, Sendable {
    /// What one preset plays.
    public enum Source: Equatable, Sendable {
        /// An AHAP file, its path relative to the manifest's directory.
        case ahap(String)
        /// A system preset by name (`impact.heavy`, `rom.1`).
        case systemPreset(String)
    }

    /// One manifest entry.
    public struct Entry: Equatable, Sendable {
        /// 1…65535, unique.
        public var id: UInt16
        /// Its name (default: the system preset's name, or the AHAP file's name without `.ahap`).
        public var name: String
        /// What it plays.
        public var source: Source
        /// Trigger input 0…7, if any (unique).
        public var trigger: UInt8?
        /// Where the entry is in the manifest (for messages).
        public var position: SourcePosition

        /// Creates an entry (a manifest built in code: `position` unknown).
        public init(id: UInt16, name: String, source: Source, trigger: UInt8? = nil, position: SourcePosition = .unknown) {
            self.id = id
            self.name = name
            self.source = source
            self.trigger = trigger
            self.position = position
        }
    }

    /// The library's name.
    public var name: String
    /// Its version (0…65535; default 1).
    public var version: UInt16
    /// A built-in actuator profile id or a profile file relative to the directory (nil: the default).
    public var actuator: String?
    /// The presets, in manifest order.
    public var entries: [Entry]

    /// Creates a manifest in code.
    public init(name: String, version: UInt16 = 1, actuator: String? = nil, entries: [Entry]) {
        self.name = name
        self.version = version
        self.actuator = actuator
        self.entries = entries
    }

    /// The manifest's file name inside a library directory.
    public static let fileName = "library.json"

    /// Parses manifest text; `file` names it in errors (`file:line:column: …`).
    public static func parse(_ text: String, file: String) throws(LibraryBuildError) -> LibraryManifest {
        try parse(Array(text.utf8), file: file)
    }

    /// Parses the manifest's bytes (UTF-8; a byte that is not is reported at its line:column).
    public static func parse(_ bytes: [UInt8], file: String) throws(LibraryBuildError) -> LibraryManifest {
        let root: JSONNode
        do {
            root = try JSONParser().parse(bytes)
        } catch {
            throw LibraryBuildError(file: file, position: error.position, message: error.message)
        }
        func fail(_ node: JSONNode, _ message: String) -> LibraryBuildError {
            LibraryBuildError(file: file, position: node.position, message: message)
        }
        guard let members = root.members else { throw fail(root, "expected an object at the top, found \(root.typeName)") }
        let known: Set<String> = ["name", "version", "actuator", "presets"]
        for m in members where !known.contains(m.key) {
            throw LibraryBuildError(file: file, position: m.keyPosition, message: "unknown key \(TextEscaping.quotedExcerpt(m.key)) (expected name, version, actuator, presets)")
        }
        guard let nameNode = root["name"] else { throw fail(root, "missing key 'name' (the library's name)") }
        guard let name = nameNode.stringValue, !name.isEmpty, name.utf8.count <= LibraryImage.maxNameBytes else {
            throw fail(nameNode, "'name' must be a string of 1…\(LibraryImage.maxNameBytes) bytes")
        }
        var version: UInt16 = 1
        if let node = root["version"] {
            guard let v = node.numberValue, v == v.rounded(), v >= 0, v <= 65535 else {
                throw fail(node, "'version' must be an integer 0…65535")
            }
            version = UInt16(v)
        }
        var actuator: String?
        if let node = root["actuator"] {
            guard let a = node.stringValue, !a.isEmpty else { throw fail(node, "'actuator' must be a profile id or a .json file") }
            actuator = a
        }
        guard let presetsNode = root["presets"] else { throw fail(root, "missing key 'presets' (an array of presets)") }
        guard let elements = presetsNode.elements, !elements.isEmpty else {
            throw fail(presetsNode, "'presets' must be a non-empty array")
        }
        var entries: [Entry] = []
        var ids: [UInt16: Int] = [:]
        var triggers: [UInt8: Int] = [:]
        for (i, node) in elements.enumerated() {
            let path = "presets[\(i)]"
            guard let fields = node.members else { throw fail(node, "\(path): expected an object, found \(node.typeName)") }
            let entryKeys: Set<String> = ["id", "name", "ahap", "preset", "trigger"]
            for m in fields where !entryKeys.contains(m.key) {
                throw LibraryBuildError(
                    file: file, position: m.keyPosition, message: "\(path): unknown key \(TextEscaping.quotedExcerpt(m.key)) (expected id, name, ahap or preset, trigger)")
            }
            guard let idNode = node["id"] else { throw fail(node, "\(path): missing key 'id' (1…65535)") }
            guard let v = idNode.numberValue, v == v.rounded(), v >= 1, v <= 65535 else {
                throw fail(idNode, "\(path).id: expected an integer 1…65535")
            }
            let id = UInt16(v)
            if let other = ids[id] { throw fail(idNode, "\(path).id: \(id) is already used by presets[\(other)]") }
            ids[id] = i
            let source: Source
            switch (node["ahap"], node["preset"]) {
            case (let a?, nil):
                guard let s = a.stringValue, !s.isEmpty else { throw fail(a, "\(path).ahap: expected a file name") }
                source = .ahap(s)
            case (nil, let p?):
                guard let s = p.stringValue, !s.isEmpty else { throw fail(p, "\(path).preset: expected a system preset name") }
                source = .systemPreset(s)
            case (nil, nil):
                throw fail(node, "\(path): give 'ahap' (a file) or 'preset' (a system preset name)")
            case (_?, let p?):
                throw fail(p, "\(path): give 'ahap' or 'preset', not both")
            }
            var entryName: String
            if let n = node["name"] {
                guard let s = n.stringValue, !s.isEmpty, s.utf8.count <= LibraryImage.maxNameBytes, !s.utf8.contains(0) else {
                    throw fail(n, "\(path).name: expected a string of 1…\(LibraryImage.maxNameBytes) bytes")
                }
                entryName = s
            } else {
                switch source {
                case .systemPreset(let s): entryName = s
                case .ahap(let f):
                    entryName = String(f.split(separator: "/").last ?? Substring(f))
                    if entryName.hasSuffix(".ahap") { entryName.removeLast(5) }
                }
                guard entryName.utf8.count <= LibraryImage.maxNameBytes else {
                    throw fail(node, "\(path): the default name \(TextEscaping.quotedExcerpt(entryName)) is longer than \(LibraryImage.maxNameBytes) bytes; give 'name'")
                }
            }
            var trigger: UInt8?
            if let t = node["trigger"] {
                guard let v = t.numberValue, v == v.rounded(), v >= 0, v < Double(LibraryImage.triggerInputs) else {
                    throw fail(t, "\(path).trigger: expected an input 0…\(LibraryImage.triggerInputs - 1)")
                }
                let input = UInt8(v)
                if let other = triggers[input] { throw fail(t, "\(path).trigger: input \(input) already plays presets[\(other)]") }
                triggers[input] = i
                trigger = input
            }
            entries.append(Entry(id: id, name: entryName, source: source, trigger: trigger, position: node.position))
        }
        return LibraryManifest(name: name, version: version, actuator: actuator, entries: entries)
    }
}

/// A library that could not be built: where (file, line:column when known) and what.
public struct LibraryBuildError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file at fault.
    public var file: String
    /// Where in it (line 0 when not known).
    public var position: SourcePosition
    /// What was wrong and what was expected.
    public var message: String

    /// Creates an error.
    public init(file: String, position: SourcePosition = .unknown, message: String) {
        self.file = file
        self.position = position
        self.message = message
    }

    public var description: String {
        position.line > 0 ? "\(file):\(position): error: \(message)" : "\(file): error: \(message)"
    }
}
