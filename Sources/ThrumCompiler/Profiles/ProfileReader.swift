import Foundation
import ThrumPattern

/// A user's actuator profile that cannot be used: where (file, line:column, field path) and what
/// was expected.
public struct ProfileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file as the user named it (or a description of the source).
    public var source: String
    /// Where the offending value starts (line 0 when not known, e.g. a missing field).
    public var position: SourcePosition
    /// The field path, e.g. `datasheet.resonanceHz` (empty for the document as a whole).
    public var path: String
    /// What is wrong and what was expected.
    public var message: String

    /// Creates an error.
    public init(source: String, position: SourcePosition, path: String, message: String) {
        self.source = source
        self.position = position
        self.path = path
        self.message = message
    }

    /// `file:line:column: message (at path)`.
    public var description: String {
        let place = position.line > 0 ? "\(source):\(position)" : source
        return "\(place): \(message)" + (path.isEmpty ? "" : " (at \(path))")
    }
}

/// Something in a profile that is accepted but probably not meant (an unknown key, a value
/// outside what the driver can do).
public struct ProfileWarning: Equatable, Sendable, CustomStringConvertible {
    public var source: String
    public var position: SourcePosition
    public var path: String
    public var message: String

    /// `file:line:column: warning: message (at path)`.
    public var description: String {
        let place = position.line > 0 ? "\(source):\(position)" : source
        return "\(place): warning: \(message)" + (path.isEmpty ? "" : " (at \(path))")
    }
}

extension ActuatorProfile {
    /// Reads and checks a user's profile (the format of `hardware/actuators/*.json`).
    ///
    /// Required: `id`, `datasheet.resonanceHz` (125–300 Hz, the DRV2605L's closed-loop LRA
    /// range) and `datasheet.ratedVoltageRms`. Everything else has a default: `name` = the id,
    /// `driver.overdriveClampVoltsPeak` = the datasheet's `maxVoltagePeak` or √2 × the rated
    /// voltage, `driver.sampleTimeMicroseconds` = 300, and without `physical` a generic coin-LRA
    /// model at the datasheet resonance (every field marked estimated).
    /// - Parameters:
    ///   - text: the JSON text.
    ///   - source: how to name the file in messages.
    /// - Returns: the profile and the warnings (unknown keys, values the driver clamps).
    /// - Throws: ``ProfileError`` for a syntax error, a missing field, a wrong type or a value out of range.
    public static func read(json text: String, source: String) throws(ProfileError) -> (
        profile: ActuatorProfile, warnings: [ProfileWarning]
    ) {
        try read(bytes: Array(text.utf8), source: source)
    }

    private static func read(root: JSONNode, source: String) throws(ProfileError) -> (
        profile: ActuatorProfile, warnings: [ProfileWarning]
    ) {
        var reader = ProfileFieldReader(source: source)
        let profile = try reader.profile(root)
        let calc = RegisterCalculation(profile: profile)
        for message in calc.warnings {
            reader.warnings.append(ProfileWarning(source: source, position: root.position, path: "", message: message))
        }
        return (profile, reader.warnings)
    }

    /// Reads and checks a profile file (see ``read(json:source:)``); `source` defaults to the path.
    public static func read(contentsOf url: URL, source: String? = nil) throws(ProfileError) -> (
        profile: ActuatorProfile, warnings: [ProfileWarning]
    ) {
        let name = source ?? url.path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ProfileError(source: name, position: .unknown, path: "", message: "cannot read the profile: it is a directory, not a file")
        }
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: url))
        } catch {
            let ns = error as NSError
            let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError
            let code = underlying?.domain == NSPOSIXErrorDomain ? underlying?.code : ns.domain == NSPOSIXErrorDomain ? ns.code : nil
            let reason =
                code.map { String(cString: strerror(Int32($0))).lowercased() }
                ?? (ns.code == NSFileReadNoSuchFileError
                    ? "no such file" : ns.code == NSFileReadNoPermissionError ? "permission denied" : ns.localizedDescription)
            throw ProfileError(source: name, position: .unknown, path: "", message: "cannot read the profile: \(reason)")
        }
        return try read(bytes: bytes, source: name)
    }

    /// Reads and checks a profile from its bytes (UTF-8; a byte that is not is reported at its
    /// line:column, as any other syntax error).
    public static func read(bytes: [UInt8], source: String) throws(ProfileError) -> (
        profile: ActuatorProfile, warnings: [ProfileWarning]
    ) {
        let root: JSONNode
        do {
            root = try JSONParser().parse(bytes)
        } catch {
            throw ProfileError(source: source, position: error.position, path: error.path, message: error.message)
        }
        return try read(root: root, source: source)
    }
}

/// Walks a profile's JSON tree with the field path, so each error says where it is.
struct ProfileFieldReader {
    let source: String
    var warnings: [ProfileWarning] = []

    init(source: String) { self.source = source }

    func fail(_ node: JSONNode?, _ path: String, _ message: String) -> ProfileError {
        ProfileError(source: source, position: node?.position ?? .unknown, path: path, message: message)
    }

    /// The members of an object node, warning about keys outside `known`.
    mutating func object(_ node: JSONNode, _ path: String, known: Set<String>) throws(ProfileError) -> JSONNode {
        guard let members = node.members else {
            throw fail(node, path, "expected an object, found a \(node.typeName)")
        }
        for member in members where !known.contains(member.key) {
            let at = path.isEmpty ? TextEscaping.excerpt(member.key) : "\(path).\(TextEscaping.excerpt(member.key))"
            warnings.append(
                ProfileWarning(
                    source: source, position: member.keyPosition, path: at,
                    message: "unknown key \(TextEscaping.quotedExcerpt(member.key)); ignored (known: \(known.sorted().joined(separator: ", ")))"))
        }
        return node
    }

    func string(_ parent: JSONNode, _ key: String, _ path: String, required: Bool) throws(ProfileError) -> String? {
        let at = path.isEmpty ? key : "\(path).\(key)"
        guard let node = parent[key], !node.isNull else {
            if required { throw fail(parent, at, "missing required field '\(key)' (a string)") }
            return nil
        }
        guard let value = node.stringValue, !value.isEmpty else {
            throw fail(node, at, "expected a non-empty string, found \(node.valueDescription)")
        }
        return value
    }

    func number(
        _ parent: JSONNode, _ key: String, _ path: String, required: Bool, range: ClosedRange<Double>, unit: String
    ) throws(ProfileError) -> Double? {
        let at = path.isEmpty ? key : "\(path).\(key)"
        let expected = "a number from \(format(range.lowerBound)) to \(format(range.upperBound)) \(unit)"
        guard let node = parent[key], !node.isNull else {
            if required { throw fail(parent, at, "missing required field '\(key)' (\(expected))") }
            return nil
        }
        guard let value = node.numberValue else {
            throw fail(node, at, "expected \(expected), found \(node.valueDescription)")
        }
        guard range.contains(value) else {
            throw fail(node, at, "\(format(value)) is out of range: expected \(expected)")
        }
        return value
    }

    func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
    }

    mutating func profile(_ root: JSONNode) throws(ProfileError) -> ActuatorProfile {
        _ = try object(
            root, "", known: ["id", "name", "formFactor", "datasheet", "driver", "physical", "sources", "notes"])
        guard let id = try string(root, "id", "", required: true) else { throw fail(root, "id", "missing id") }
        guard id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw fail(root["id"], "id", "expected letters, digits, '-', '_' or '.', found \"\(id)\"")
        }
        let name = try string(root, "name", "", required: false) ?? id
        let formFactor = try string(root, "formFactor", "", required: false) ?? "LRA"

        guard let sheetNode = root["datasheet"] else {
            throw fail(root, "datasheet", "missing required object 'datasheet' (with resonanceHz and ratedVoltageRms)")
        }
        let sheet = try object(
            sheetNode, "datasheet",
            known: [
                "resonanceHz", "resonanceToleranceHz", "ratedVoltageRms", "maxVoltagePeak", "ratedCurrentMilliamps",
                "maxCurrentMilliamps", "resistanceOhms", "accelerationGrms", "fallTimeMilliseconds",
            ])
        let p = "datasheet"
        let f0 = try number(
            sheet, "resonanceHz", p, required: true, range: 125...300, unit: "Hz (the DRV2605L's closed-loop LRA range)"
        )!
        let rated = try number(sheet, "ratedVoltageRms", p, required: true, range: 0.1...5.2, unit: "V RMS")!
        let datasheet = ActuatorProfile.Datasheet(
            resonanceHz: f0,
            resonanceToleranceHz: try number(
                sheet, "resonanceToleranceHz", p, required: false, range: 0...100, unit: "Hz"),
            ratedVoltageRms: rated,
            maxVoltagePeak: try number(sheet, "maxVoltagePeak", p, required: false, range: 0.1...5.5, unit: "V peak"),
            ratedCurrentMilliamps: try number(
                sheet, "ratedCurrentMilliamps", p, required: false, range: 0...2000, unit: "mA"),
            maxCurrentMilliamps: try number(
                sheet, "maxCurrentMilliamps", p, required: false, range: 0...2000, unit: "mA"),
            resistanceOhms: try number(sheet, "resistanceOhms", p, required: false, range: 1...1000, unit: "Ω"),
            accelerationGrms: try number(sheet, "accelerationGrms", p, required: false, range: 0...100, unit: "G RMS"),
            fallTimeMilliseconds: try number(
                sheet, "fallTimeMilliseconds", p, required: false, range: 0...10000, unit: "ms"))
        // 0.1…5.2 V RMS at 125…300 Hz stays within RATED_VOLTAGE's 255 (at most ≈ 228).
        var driver = ActuatorProfile.DriverSettings(
            overdriveClampVoltsPeak: datasheet.maxVoltagePeak ?? (2.0.squareRoot() * rated))
        if let driverNode = root["driver"] {
            let node = try object(driverNode, "driver", known: ["overdriveClampVoltsPeak", "sampleTimeMicroseconds"])
            if let clamp = try number(
                node, "overdriveClampVoltsPeak", "driver", required: false, range: 0.1...5.41,
                unit: "V peak (OD_CLAMP ≤ 255)")
            {
                driver.overdriveClampVoltsPeak = clamp
            }
            if let sample = try number(
                node, "sampleTimeMicroseconds", "driver", required: false, range: 150...300, unit: "µs")
            {
                guard [150.0, 200, 250, 300].contains(sample) else {
                    throw fail(
                        node["sampleTimeMicroseconds"], "driver.sampleTimeMicroseconds",
                        "expected 150, 200, 250 or 300 (µs), found \(format(sample))")
                }
                driver.sampleTimeMicroseconds = Int(sample)
            }
        }

        var physical = ActuatorProfile.PhysicalModel(
            resonanceHz: f0, mechanicalQ: 20, resistanceOhms: datasheet.resistanceOhms ?? 24,
            inductanceMillihenries: 0.1,
            movingMassGrams: 1.0, forceFactor: 0.4,
            estimated: [
                "resonanceHz", "mechanicalQ", "resistanceOhms", "inductanceMillihenries", "movingMassGrams",
                "forceFactor",
            ])
        if let physicalNode = root["physical"] {
            let q = "physical"
            let node = try object(
                physicalNode, q,
                known: [
                    "resonanceHz", "mechanicalQ", "resistanceOhms", "inductanceMillihenries", "movingMassGrams",
                    "forceFactor",
                    "jigMassGrams", "estimated",
                ])
            physical = ActuatorProfile.PhysicalModel(
                resonanceHz: try number(node, "resonanceHz", q, required: true, range: 20...1000, unit: "Hz")!,
                mechanicalQ: try number(node, "mechanicalQ", q, required: true, range: 0.5...1000, unit: "")!,
                resistanceOhms: try number(node, "resistanceOhms", q, required: true, range: 0.1...10000, unit: "Ω")!,
                inductanceMillihenries: try number(
                    node, "inductanceMillihenries", q, required: true, range: 0...100, unit: "mH")!,
                movingMassGrams: try number(node, "movingMassGrams", q, required: true, range: 0.01...1000, unit: "g")!,
                forceFactor: try number(node, "forceFactor", q, required: true, range: 0.001...100, unit: "N/A")!,
                jigMassGrams: try number(node, "jigMassGrams", q, required: false, range: 1...100000, unit: "g") ?? 100,
                estimated: try strings(node, "estimated", q))
        }
        var sources: [String: String] = [:]
        if let node = root["sources"] {
            guard let members = node.members else {
                throw fail(node, "sources", "expected an object of field path → source text, found \(node.valueDescription)")
            }
            for member in members {
                guard let text = member.value.stringValue else {
                    throw fail(
                        member.value, "sources.\(member.key)", "expected a string, found \(member.value.valueDescription)")
                }
                sources[member.key] = text
            }
        }
        let notes = try strings(root, "notes", "")
        return ActuatorProfile(
            id: id, name: name, formFactor: formFactor, datasheet: datasheet, driver: driver, physical: physical,
            sources: sources, notes: notes)
    }

    func strings(_ parent: JSONNode, _ key: String, _ path: String) throws(ProfileError) -> [String] {
        let at = path.isEmpty ? key : "\(path).\(key)"
        guard let node = parent[key], !node.isNull else { return [] }
        guard let elements = node.elements else {
            throw fail(node, at, "expected an array of strings, found \(node.valueDescription)")
        }
        var out: [String] = []
        for (i, element) in elements.enumerated() {
            guard let s = element.stringValue else {
                throw fail(element, "\(at)[\(i)]", "expected a string, found \(element.valueDescription)")
            }
            out.append(s)
        }
        return out
    }
}
